"""Identity digits: the one reading of a database identity written in text (pure).

Every place that reads an identity from a report or a query (the heuristic planner's links and
numbers, the plan rule ``PLAN_REFERENCE_NOT_IN_LINK``, the slugs the assessment compares, ``vba
lookup 23487``) reads it here, so a plan can never be rejected by its own reading of the link it
cites. The rule:

* a **number** is a maximal run of decimal digits (any script: Python's ``str.isdecimal``), so a
  run is never read in part (``٢23487`` is one run, not ``23487``);
* it is an **identity** only when every digit is an ASCII ``0-9``: ``npc=２３４８７`` (full-width)
  and ``npc=٢٣٤٨٧`` (Arabic-Indic) are refused (Python's ``\\d`` and ``int()`` would accept them,
  and a reader cannot tell them from the ASCII id they look like);
* **leading zeros are normalised**: ``000023487`` is entry 23487 (what a database page
  ``npc=000023487`` shows), whatever the number of zeros;
* its value lies in ``1..``:data:`MAX_IDENTITY` (a signed 32-bit column, as
  :class:`~vba_assets.domain.resolution.models.IdentityReference` allows); ``0``, ``000`` and
  larger values are refused.

A refused number is not an identity anywhere: the planner records its link as unreadable (an
open point of the interpretation), the plan rule says why, the lookup treats the query as a name.
"""

from collections.abc import Iterator
from typing import NamedTuple

#: Largest identity accepted (a signed 32-bit column).
MAX_IDENTITY = 2_147_483_647
_ASCII_DIGITS = frozenset("0123456789")


class DigitRun(NamedTuple):
    """A maximal run of decimal digits in a text: ``text[start:end]``, and the identity it
    writes (None when refused: a non-ASCII digit, zero, or over :data:`MAX_IDENTITY`)."""

    start: int
    end: int
    identity: int | None


def parse_identity(digits: str) -> int | None:
    """The identity ``digits`` writes, or None when it is not one (see the module docstring).

    ``"23487"`` and ``"000023487"`` give 23487; ``"２３４８７"``, ``"٢٣٤٨٧"``, ``"0"``, ``""``,
    ``"23487a"`` and ``"2147483648"`` give None.
    """
    if not digits or not _ASCII_DIGITS.issuperset(digits):
        return None
    significant = digits.lstrip("0")
    if not significant or len(significant) > len(str(MAX_IDENTITY)):
        return None
    value = int(significant)
    return value if value <= MAX_IDENTITY else None


def refusal(digits: str) -> str:
    """Why :func:`parse_identity` refuses ``digits`` (a reason for a record or a finding)."""
    if not digits.isdecimal():
        return f"{digits!r} is not a run of digits"
    if not _ASCII_DIGITS.issuperset(digits):
        return f"{digits!r} is not written in ASCII digits 0-9"
    return f"{digits!r} is not an identity between 1 and {MAX_IDENTITY}"


def run_at(text: str, start: int) -> DigitRun | None:
    """The digit run that begins at ``text[start]`` (None when no digit is there). The run is
    maximal to the right; a digit just before ``start`` is the caller's concern."""
    end = start
    while end < len(text) and text[end].isdecimal():
        end += 1
    if end == start:
        return None
    return DigitRun(start, end, parse_identity(text[start:end]))


def digit_runs(text: str) -> Iterator[DigitRun]:
    """Every maximal digit run of ``text`` in order (one linear pass)."""
    index = 0
    while index < len(text):
        run = run_at(text, index)
        if run is None:
            index += 1
        else:
            yield run
            index = run.end


def holds_identity(text: str, identity: int) -> bool:
    """True when a whole number of ``text`` writes ``identity`` (leading zeros normalised)."""
    return any(run.identity == identity for run in digit_runs(text))
