"""Corrected search terms: a misspelled name searched by its corrected spelling (pure; protocol
v6, issue 29 item 5).

A search term is literal text of the report it cites (ARCHITECTURE 6.1), so "Onixya", "Grull"
or "zul jin" could only be searched by a literal part the right name shares, or not at all. From
protocol v6 a name search may carry ``corrected_from``: one of its own mentions whose text the
term corrects. The grounding rule is kept, bounded: the term must be a *close* spelling of that
cited text, so it is still "the report's text, corrected", and both texts are recorded (the plan
and the capture's ``search`` hold the term and the cited span).

The measure (:func:`correction_refusal`), on :func:`correction_form` (``normalize_for_match``,
accents folded, only letters and digits kept: case, spaces, apostrophes and hyphens ignored):

* both forms hold at least :data:`MIN_LETTERS` letters;
* the Levenshtein distance is at most :data:`MAX_EDITS` and at most a third of the longer form
  (``3 * distance <= longer``), so a short name cannot become another short name;
* the first letters agree, unless the distance is 1 (a mistyped first letter).

Distance 0 is accepted (the quote differs only in spacing or punctuation: "zul jin" for
"Zul'jin", "Muru" for "M'uru"). Examples in the bound: "Onixya"/"Onyxia" 2 of 6, "Grull"/"Gruul"
1, "Whitename"/"Whitemane" 2, "Gotic"/"Gothik" 2 of 6, "ilidian"/"Illidan" 2 of 7,
"Brtallus"/"Brutallus" 1, "Vaelestrasz"/"Vaelastrasz" 1. Refused: "Hogger" for "Hagar" (3
edits), "Gruul" for "Grol" (first letter kept, but 2 edits of 4 letters). The measure only
bounds how far a term may move from the report's text; the assessment still needs report
context and a candidate one of whose names is exactly the term
(:func:`agrees_with_correction`).

The term holds letters, spaces, apostrophes and hyphens only (:data:`TERM_CHARACTERS`): no SQL
or LIKE wildcard, digit or markup can be introduced by a correction (the capture escapes them
anyway). A quote that already holds the term needs no correction and is refused, so a correction
is never a way around the literal rule. Every pass is over the bounded term and quote
(``MAX_TERM_CHARS``, ``MAX_QUOTE_CHARS``): the distance is computed only when the lengths are
already within the bound.
"""

import unicodedata
from collections.abc import Sequence

from vba_assets.domain.case.text import fold
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.findings import Finding
from vba_assets.domain.resolution.citations import mention_label, rule_issue
from vba_assets.domain.resolution.models import MentionCitation, ProposedSearch
from vba_assets.errors import ErrorCode

#: Most letter edits between the corrected term and the cited text.
MAX_EDITS = 2
#: Fewest letters of either form.
MIN_LETTERS = 4
#: The characters a corrected term may hold besides letters.
TERM_CHARACTERS = frozenset(" '’-")


def correction_form(text: str) -> str:
    """``text`` as the measure compares it: ``normalize_for_match``, accents folded, letters and
    digits only."""
    decomposed = unicodedata.normalize("NFKD", normalize_for_match(text))
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c))


def edit_distance(left: str, right: str, bound: int) -> int:
    """The Levenshtein distance of ``left`` and ``right``, or ``bound + 1`` when it exceeds
    ``bound`` (the lengths are checked first, so the table is only built for close lengths)."""
    if abs(len(left) - len(right)) > bound:
        return bound + 1
    previous = list(range(len(right) + 1))
    for i, a in enumerate(left, start=1):
        current = [i]
        for j, b in enumerate(right, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        if min(current) > bound:
            return bound + 1
        previous = current
    return min(previous[-1], bound + 1)


def correction_refusal(term: str, quote: str) -> str | None:
    """Why ``term`` is not an acceptable correction of ``quote``, or None when it is (see the
    module docstring)."""
    wrong = sorted({c for c in term if not c.isalpha() and c not in TERM_CHARACTERS})
    if wrong:
        return (
            f"the corrected term holds {''.join(wrong)!r}: a correction is letters, spaces, "
            "apostrophes and hyphens only"
        )
    if fold(term) in fold(quote):
        return "the quote already holds the term: search it without corrected_from"
    fixed, written = correction_form(term), correction_form(quote)
    if min(len(fixed), len(written)) < MIN_LETTERS:
        return f"a correction needs at least {MIN_LETTERS} letters in the term and the quote"
    longer = max(len(fixed), len(written))
    distance = edit_distance(fixed, written, MAX_EDITS)
    if distance > MAX_EDITS or 3 * distance > longer:
        return (
            f"the term is too far from the quote (more than {MAX_EDITS} letter edits, or more "
            "than a third of its letters): search a literal part of the quote instead"
        )
    if distance > 1 and fixed[0] != written[0]:
        return "a correction of two letters keeps the first letter"
    return None


def correction_issues(
    search: ProposedSearch, path: str, sid: str
) -> tuple[list[Finding], frozenset[int]]:
    """The findings of a search's ``corrected_from`` and the indexes of its mentions that the
    correction grounds (they need not hold the term literally): the corrected span itself and
    any other mention whose text the term corrects by the same measure. A refused correction
    is reported once, by its own code: its mentions are not reported again as not holding the
    term."""
    source = search.corrected_from
    if source is None:
        return [], frozenset()
    every = frozenset(range(len(search.mentions)))
    label = f"{sid} {mention_label(source)}"
    if search.reference is not None:
        refused = "an identity reference is not corrected"
        return [_refused(f"{path}/corrected_from", refused, label)], every
    if source not in search.mentions:
        return [
            _refused(
                f"{path}/corrected_from",
                "corrected_from must be one of the search's mentions, copied exactly",
                label,
            )
        ], every
    why = correction_refusal(search.term, source.quote)
    if why is not None:
        return [
            _refused(
                f"{path}/term",
                f"term {search.term!r} is not accepted as a correction of {source.quote!r}: {why}",
                label,
            )
        ], every
    grounded = frozenset(
        i for i, mention in enumerate(search.mentions) if _corrects(search.term, mention)
    )
    return [], grounded


def _corrects(term: str, mention: MentionCitation) -> bool:
    return fold(term) not in fold(mention.quote) and correction_refusal(term, mention.quote) is None


def _refused(path: str, message: str, subject: str) -> Finding:
    return rule_issue(ErrorCode.PLAN_CORRECTION_REFUSED, path, message, subject)


def agrees_with_correction(term: str, names: Sequence[str]) -> bool:
    """Whether one of a candidate's ``names`` is the corrected ``term`` (``normalize_for_match``
    equal): the assessment rule of a corrected search."""
    wanted = normalize_for_match(term)
    return any(normalize_for_match(name) == wanted for name in names)
