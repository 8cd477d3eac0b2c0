"""Terms that any literal contains search finds (pure logic).

A search term must be literal text of the report, and a catalog's contains search compares it
literally: the planner counts only on what every backend folds, ASCII case (the embedded SQLite's
search key and ``utf8mb4_unicode_ci`` fold case and accents in every script, a case-sensitive
collation would not), and no backend folds a typographic apostrophe into the ASCII one the
catalogs hold. So a name the report writes
differently from the catalog in those respects is searched by the longest part of it that the
catalog name holds as written:

* :func:`literal_term`: a name written with a typographic apostrophe ("Kel’Thuzad") is searched
  by its longest part without one ("Thuzad");
* :func:`case_safe`: a name whose non-ASCII letters differ in case from the catalog's
  ("лоскутика" for Лоскутик, "Уборочный Голем" for Уборочный голем) is searched by the longest
  stretch it shares, letter for letter, with those names ("оскутик", "Уборочный "), when that
  stretch still reaches exactly the same entities.

What it cannot do: a part shorter than :data:`MIN_APOSTROPHE_FREE` letters is never used, so a
short name written in another case than the catalog's stays unsearchable on such a backend.
"""

import re
from dataclasses import replace

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.terms import Term

#: Apostrophes a reporter's keyboard writes that catalogs do not (they hold ASCII ``'``).
TYPOGRAPHIC_APOSTROPHES = "’ʼ‘"
#: Shortest part searched instead of a name written with one of them (or in another case).
MIN_APOSTROPHE_FREE = 4
#: A term is made case-safe only when the names of at most this many entities contain it.
MAX_CASE_SAFE_ENTITIES = 8


def literal_term(text: str) -> str:
    """The term a literal contains search can find: a name written with a typographic
    apostrophe ("Kel’Thuzad") is searched by its longest part without one ("Thuzad"), since the
    catalog writes the ASCII apostrophe and a literal search does not fold them; unchanged when
    no part has :data:`MIN_APOSTROPHE_FREE` letters."""
    if not any(char in TYPOGRAPHIC_APOSTROPHES for char in text):
        return text
    parts = [p.strip() for p in re.split(f"[{TYPOGRAPHIC_APOSTROPHES}]", text)]
    best = max(parts, key=lambda p: (_letters(p), -parts.index(p)))
    return best if _letters(best) >= MIN_APOSTROPHE_FREE else text


def case_safe(term: Term, index: NameIndex) -> Term:
    """``term`` searched by the longest stretch its catalog names hold as written (see the module
    docstring), or ``term`` unchanged: an ASCII term, one the names already hold as written, one
    the names of more than :data:`MAX_CASE_SAFE_ENTITIES` entities contain, or one without such a
    stretch that reaches exactly the entities the whole term does."""
    text = term.search_text
    if term.reference is not None or term.narrow is not None or text.isascii():
        return term
    whole = set(index.containing(text, MAX_CASE_SAFE_ENTITIES))
    if not whole or len(whole) > MAX_CASE_SAFE_ENTITIES:
        return term
    needle = normalize_for_match(text)
    names = {
        identity: [
            e.name for e in index.names_of(identity) if needle in normalize_for_match(e.name)
        ]
        for identity in whole
    }
    if all(_held(text, held) for held in names.values()):
        return term
    for part in _shared_stretches(text, [name for held in names.values() for name in held]):
        if _letters(part) < MIN_APOSTROPHE_FREE:
            break
        if set(index.containing(part, MAX_CASE_SAFE_ENTITIES)) != whole:
            continue
        if all(_held(part, held) for held in names.values()):
            return replace(term, narrow=part)
    return term


def _letters(text: str) -> int:
    return sum(char.isalnum() for char in text)


def _ascii_lower(text: str) -> str:
    """``text`` with its ASCII letters lower-cased (what every contains search folds)."""
    return "".join(char.lower() if char.isascii() else char for char in text)


def _held(part: str, names: list[str]) -> bool:
    """Whether one of ``names`` holds ``part`` as written (up to ASCII case)."""
    folded = _ascii_lower(part)
    return any(folded in _ascii_lower(name) for name in names)


def _shared_stretches(text: str, names: list[str]) -> list[str]:
    """The maximal stretches of ``text`` that one of ``names`` holds as written (up to ASCII
    case), trimmed to letters and digits at both ends: most letters first, then first in text."""
    lowered = _ascii_lower(text)
    found: set[tuple[int, int]] = set()
    for name in {_ascii_lower(n) for n in names}:
        found |= common_stretches(text, lowered, name)
    ranked = sorted(found, key=lambda span: (-_letters(text[span[0] : span[1]]), span[0]))
    return list(dict.fromkeys(text[start:end] for start, end in ranked))


def common_stretches(written: str, lowered: str, name: str) -> set[tuple[int, int]]:
    """Every maximal stretch that ``lowered`` (``written`` folded, the same length) shares with
    ``name``, as offsets into ``written``, trimmed to letters and digits at both ends."""
    width = len(name)
    previous = [0] * (width + 1)
    found: set[tuple[int, int]] = set()
    for i in range(1, len(lowered) + 1):
        current = [0] * (width + 1)
        for j in range(1, width + 1):
            if lowered[i - 1] == name[j - 1]:
                current[j] = previous[j - 1] + 1
        for j in range(1, width + 1):
            length = current[j]
            ends_here = i == len(lowered) or j == width or lowered[i] != name[j]
            if length and ends_here:
                start, end = i - length, i
                while start < end and not written[start].isalnum():
                    start += 1
                while end > start and not written[end - 1].isalnum():
                    end -= 1
                if end > start:
                    found.add((start, end))
        previous = current
    return found
