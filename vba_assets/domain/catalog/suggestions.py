"""Near misses: what to search and how to score names when nothing matched (ARCHITECTURE 11).

When no catalog name matches a whole query, the lookup tool makes bounded probe searches
(:func:`probe_terms`: the query's longest words, and the leading and trailing n-grams of its long
words, which survive a typo elsewhere in the word). Every row they return is scored by how many of
the query's words it covers (:func:`suggestion_score`); :func:`.matching.rank_suggestions` ranks
the scored rows with the same entity grouping as the match ranking.
"""

import difflib
from collections.abc import Sequence
from typing import NamedTuple

from vba_assets.domain.catalog.names import split_tokens, token_parts, tokenize, unify_punctuation

#: Bounds of the probes on a miss: word probes, spelling probes, and the n-gram length of one.
MAX_WORD_PROBES = 4
MAX_SPELLING_PROBES = 6
SPELLING_NGRAM = 4


def probe_terms(query: str) -> tuple[list[str], list[str]]:
    """Word probes and spelling probes for a query that matched nothing.

    Word probes: the longest distinct words (at least 3 characters, or 2 outside ASCII), as typed
    (case kept: SQLite folds only ASCII case). Spelling probes: the leading and trailing
    :data:`SPELLING_NGRAM`-grams of the longest words of at least 5 characters. Both bounded.
    """
    words = list(dict.fromkeys(split_tokens(unify_punctuation(query))))
    useful = [w for w in words if len(w) >= 3 or (len(w) >= 2 and not w.isascii())]
    by_length = sorted(useful, key=lambda word: -len(word))
    word_probes = by_length[:MAX_WORD_PROBES]
    spelling: list[str] = []
    for word in (w for w in by_length if len(w) > SPELLING_NGRAM):
        for gram in (word[:SPELLING_NGRAM], word[-SPELLING_NGRAM:]):
            if gram not in spelling and len(spelling) < MAX_SPELLING_PROBES:
                spelling.append(gram)
    return word_probes, spelling


#: A query word counts as covered by a name word at least this similar (difflib ratio).
FUZZY_MIN_RATIO = 0.75


class SuggestionScore(NamedTuple):
    """How well a name covers the query's words (see :func:`suggestion_score`)."""

    covered_words: int
    similarity: float
    extra_tokens: int


def token_similarity(left: str, right: str) -> float:
    """1.0 for equal tokens, else difflib's ratio (deterministic, no junk heuristic)."""
    if left == right:
        return 1.0
    return difflib.SequenceMatcher(None, left, right, autojunk=False).ratio()


def suggestion_score(query_tokens: Sequence[str], name: str) -> SuggestionScore:
    """Score ``name`` against normalized query tokens, for no-match suggestions.

    A query word is *covered* when some name token (or part of a joined token) has a
    :func:`token_similarity` of at least :data:`FUZZY_MIN_RATIO`; ``similarity`` sums the best
    ratios of the covered words (rounded to 6 places); ``extra_tokens`` counts the name tokens no
    query word used: how much else the name carries.
    """
    name_tokens = tokenize(name)
    covered = 0
    similarity = 0.0
    used: set[int] = set()
    for query_token in dict.fromkeys(query_tokens):
        best_ratio = 0.0
        best_index = -1
        for index, name_token in enumerate(name_tokens):
            for form in (name_token, *token_parts(name_token)):
                ratio = token_similarity(query_token, form)
                if ratio > best_ratio:
                    best_ratio, best_index = ratio, index
        if best_ratio >= FUZZY_MIN_RATIO:
            covered += 1
            similarity += best_ratio
            used.add(best_index)
    return SuggestionScore(covered, round(similarity, 6), len(name_tokens) - len(used))
