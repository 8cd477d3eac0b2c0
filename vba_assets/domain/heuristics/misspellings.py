"""Misspelled names: a grounded sub-span term that still finds the creature (pure logic).

A reporter writes "Ancient Core Hount", "Corporate Keeshan", "Ice Touched Earthragers",
"Hellen Puentecanto". No catalog name equals or contains what they wrote, so a literal contains
search for the mention finds nothing, and the plan may not correct the spelling (a term must be a
literal part of the cited text). :func:`misspelled_term` asks the name index for the closest
names (RapidFuzz Indel ratio at least :data:`MIN_SCORE`, any locale) and searches the longest
stretch of the mention, as written, that the closest name also holds: "Ancient Core Houn",
"Keeshan", "Touched Earthrager", "ellen Puentecanto". The mentions stay whole, so the assessment
can compare what the reporter wrote with each candidate's name.

A sub-span is used only when it is at least :data:`MIN_PART` letters long, covers at least
:data:`MIN_COVER` of the mention, and the names of at most :data:`MAX_ENTITIES` entities contain
it (a contains search for it then captures every candidate); the closest name must beat the
next different entity's by :data:`MIN_MARGIN` points.

What it cannot do: a misspelling that changes most letters, or a name the index does not hold, is
not found; a transposed first letter leaves only the rest of the name to search; accents are
not folded ("Sköll" for "Skoll" is not searchable literally on a backend that does not fold them).
"""

from difflib import SequenceMatcher

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.heuristics.name_index import NameIndex
from vba_assets.domain.heuristics.terms import Misspelling, Term

#: Lowest Indel ratio (0-100) of a misspelled mention and the name it stands for.
MIN_SCORE = 84.0
#: The best name must beat the next different entity's by this many points.
MIN_MARGIN = 3.0
#: Shortest searched part, in letters.
MIN_PART = 5
#: Smallest share of the mention's letters the searched part must cover.
MIN_COVER = 0.4
#: Most entities whose names may contain the searched part.
MAX_ENTITIES = 8


def _letters(text: str) -> int:
    return sum(1 for char in text if char.isalnum())


def _lower(text: str) -> str:
    """``text`` lower-cased character by character (the same length, so offsets carry over)."""
    return "".join(low if len(low := char.lower()) == 1 else char for char in text)


def misspelled_term(term: Term, index: NameIndex) -> Term | None:
    """The sub-span term of a misspelled mention, or None (see the module docstring)."""
    written = term.text
    if _letters(written) < MIN_PART + 1 or term.exact:
        return None
    found = index.closest(written, MIN_SCORE, limit=6)
    if not found:
        return None
    best_name, best_score = found[0]
    entries = index.by_name[best_name]
    identities = {entry.identity for entry in entries}
    rival = next((score for name, score in found[1:] if _others(index, name, identities)), None)
    if rival is not None and best_score - rival < MIN_MARGIN:
        return None
    lowered = _lower(written)
    match = SequenceMatcher(None, lowered, best_name, autojunk=False).find_longest_match()
    start, end = match.a, match.a + match.size
    while start < end and not written[start].isalnum():
        start += 1
    while end > start and not written[end - 1].isalnum():
        end -= 1
    part = written[start:end]
    if _letters(part) < MIN_PART or _letters(part) < MIN_COVER * _letters(written):
        return None
    if normalize_for_match(part) in (normalize_for_match(written), best_name):
        return None  # the whole mention, or a whole name inside a longer phrase: no misspelling
    if not 0 < index.containing_count(part, MAX_ENTITIES) <= MAX_ENTITIES:
        return None
    primary = next((e for e in entries if e.primary), None)
    chosen = primary or entries[0]
    spans = [s for s in term.spans if _lower(part) in _lower(s.text)]
    if not spans:
        return None
    return Term(
        key=part.casefold(),
        spans=spans,
        cues=term.cues,
        narrow=part,
        misspelling=Misspelling(
            name=chosen.name,
            identity=chosen.identity,
            score=best_score,
            catalog_kind="name" if chosen.primary else "localized_name",
        ),
    )


def _others(index: NameIndex, name: str, identities: set[int]) -> bool:
    return any(entry.identity not in identities for entry in index.by_name[name])
