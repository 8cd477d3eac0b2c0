"""How a candidate's names compare with what the report wrote (the assessment's name tests).

:mod:`.assessment` decides a verdict from these tests in its rule order; they are separate because
each is a question about names alone, asked the same way by every rule that needs it:

* :func:`is_exact`: a name of the candidate equals the search term (after
  :func:`~vba_assets.domain.catalog.names.normalize_for_match`), or it was found in an exact tier;
* :func:`is_helper`: a name matches a ``helper_name_patterns`` regex of its catalog or of a
  primary ``name`` catalog of the same entity type (:func:`helper_patterns`), a technical entry
  such as a trigger or kill credit;
* :func:`closest_spelling`: the one candidate whose name is a near spelling of a misspelled
  mention (:func:`spelling_similarity`, at least :data:`MIN_SPELLING` and :data:`SPELLING_MARGIN`
  ahead of every other entity).
"""

import re
from collections.abc import Sequence

from rapidfuzz.distance import Indel, Levenshtein

from vba_assets.domain.catalog.matching import EXACT_TIERS
from vba_assets.domain.catalog.names import fold_accents, normalize_for_match, tokenize
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.stage_context import CandidateView, SearchView


def helper_patterns(catalogs: Sequence[CatalogConfig]) -> dict[str, list[re.Pattern[str]]]:
    """``catalog name -> compiled helper patterns`` (its own plus its primary name catalogs').

    A localized catalog inherits the patterns of every ``name`` catalog of its entity type, so a
    candidate found through a translation is still recognized as a trigger or kill credit.
    """
    compiled = {
        c.name: [re.compile(p, re.IGNORECASE) for p in c.helper_name_patterns] for c in catalogs
    }
    patterns: dict[str, list[re.Pattern[str]]] = {}
    for catalog in catalogs:
        inherited = [
            pattern
            for primary in catalogs
            if primary.kind == "name" and primary.entity_type == catalog.entity_type
            for pattern in compiled[primary.name]
        ]
        own = compiled[catalog.name]
        patterns[catalog.name] = own + [p for p in inherited if p not in own]
    return patterns


def candidate_names(candidate: CandidateView) -> list[str]:
    """The candidate's name and its other matched names."""
    return [candidate.name, *candidate.other_names]


def is_exact(candidate: CandidateView, term: str) -> bool:
    """True when the candidate's name or one of its other matched names equals ``term``."""
    wanted = normalize_for_match(term)
    return candidate.tier in EXACT_TIERS or any(
        normalize_for_match(name) == wanted for name in candidate_names(candidate)
    )


def is_helper(candidate: CandidateView, patterns: dict[str, list[re.Pattern[str]]]) -> bool:
    """True when any name of the candidate matches a helper pattern of its catalog."""
    fallback = [p for group in patterns.values() for p in group]
    found = patterns.get(candidate.catalog, fallback)
    return any(pattern.search(name) for pattern in found for name in candidate_names(candidate))


#: Lowest similarity (0-1, letters and digits only) of a written mention and a candidate name
#: for a misspelled mention to select it.
MIN_SPELLING = 0.85
#: How far the best entity must be ahead of the next one.
SPELLING_MARGIN = 0.06


def _compact(text: str) -> str:
    return "".join(c for c in fold_accents(normalize_for_match(text)) if c.isalnum())


#: Most edits (Levenshtein, letters and digits only) between a misspelled mention and a name.
MAX_SPELLING_EDITS = 2


def spelling_similarity(written: str, name: str) -> float:
    """Indel similarity of two spellings (letters and digits only, accents folded), 0 when
    they differ by more than :data:`MAX_SPELLING_EDITS` edits and the written one is not a
    whole-word beginning of the name; a written plural ("...s") is also compared without it."""
    said, named = _compact(written), _compact(name)
    if not said or not named:
        return 0.0
    forms = [said, said[:-1]] if said.endswith("s") and len(said) > 4 else [said]
    best = 0.0
    for form in forms:
        prefix = _word_prefix(written, name)
        if prefix or Levenshtein.distance(form, named) <= MAX_SPELLING_EDITS:
            best = max(best, Indel.normalized_similarity(form, named))
    return best


def _word_prefix(written: str, name: str) -> bool:
    """Whether the written words are the first whole words of the name ("Doctor Vomisa" of
    "Doctor Vomisa, Ph.T."), at least two of them."""
    said, named = tokenize(written), tokenize(name)
    return len(said) >= 2 and len(said) < len(named) and named[: len(said)] == said


def closest_spelling(
    search: SearchView, candidates: Sequence[CandidateView]
) -> CandidateView | None:
    """The one candidate whose name is a near spelling of what the report wrote (the search's
    mention quotes), clearly ahead of every other entity; None otherwise."""
    scored: dict[str, tuple[float, CandidateView]] = {}
    for candidate in candidates:
        score = max(
            (
                spelling_similarity(mention.quote, name)
                for mention in search.mentions
                for name in candidate_names(candidate)
            ),
            default=0.0,
        )
        key = f"{candidate.identity!r}"
        if key not in scored or score > scored[key][0]:
            scored[key] = (score, candidate)
    ranked = sorted(scored.values(), key=lambda item: -item[0])
    if not ranked or ranked[0][0] < MIN_SPELLING:
        return None
    if len(ranked) > 1 and ranked[0][0] - ranked[1][0] < SPELLING_MARGIN:
        return None
    return ranked[0][1]
