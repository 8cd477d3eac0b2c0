"""Match tiers and the one deterministic ranking of catalog rows (ARCHITECTURE 6.3 and 11).

Both ``vba lookup`` and the pipeline's candidate index rank rows with :func:`rank_search_results`.
The ranking is a pure function of the query and the rows' content: shuffling the rows of a result,
or the results themselves, never changes the output (only ``source_index`` follows its row).
When nothing matches the whole query, :func:`rank_suggestions` ranks near misses the same way.

Names are compared in the forms of :mod:`.name_tokens` (normalization and tokens: zero-width and
bidi characters are kept, so a term that hides one never matches a clean name by accident); near
misses are scored by :mod:`.suggestions`. Both modules' names are re-exported here.
"""

import json
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from vba_assets.domain.catalog.names import (
    fold_accents,
    normalize_for_match,
    split_tokens,
    token_parts,
    tokenize,
)
from vba_assets.domain.catalog.suggestions import (
    SuggestionScore,
    suggestion_score,
)
from vba_assets.domain.catalog.world import Scalar, SearchResult


class MatchTier(IntEnum):
    """How a name matches a query; a lower value is a better match."""

    EXACT_NAME = 1
    EXACT_LOCALIZED_NAME = 2
    WHOLE_PHRASE = 3
    ALL_TOKENS = 4
    SUBSTRING = 5
    #: A row fetched by identity (an identity-reference capture, protocol v4) whose name does not
    #: match the search term at any other tier: it is there because the report links it.
    LINKED = 6

    @property
    def label(self) -> str:
        """``MatchTier.EXACT_NAME.label == "exact_name"`` (the form shown to people and in JSON)."""
        return self.name.lower()


EXACT_TIERS = frozenset({MatchTier.EXACT_NAME, MatchTier.EXACT_LOCALIZED_NAME})


def _token_universe(tokens: Sequence[str]) -> set[str]:
    universe = set(tokens)
    for token in tokens:
        universe.update(token_parts(token))
    return universe


def _contains_sequence(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    width = len(needle)
    return any(
        list(haystack[start : start + width]) == list(needle)
        for start in range(len(haystack) - width + 1)
    )


def match_tier(query: str, name: str, *, localized: bool) -> MatchTier | None:
    """The tier at which ``name`` matches ``query``, or None when it does not match.

    * exact (``EXACT_NAME``, or ``EXACT_LOCALIZED_NAME`` for a localized catalog): equal after
      :func:`normalize_for_match`;
    * ``WHOLE_PHRASE``: the query's tokens appear consecutively, in order, in the name's tokens;
    * ``ALL_TOKENS``: every query token is a name token or a part of a joined name token
      (``thrall`` is a part of ``thrall's``), in any order; a joined query token also counts when
      all its parts are present;
    * ``SUBSTRING``: the normalized query is a substring of the normalized name, also after
      removing accents (MariaDB's ``utf8mb4_*_ci`` collations match ``emile`` to ``Émile``).
    """
    normalized_query = normalize_for_match(query)
    normalized_name = normalize_for_match(name)
    if not normalized_query or not normalized_name:
        return None
    if normalized_query == normalized_name:
        return MatchTier.EXACT_LOCALIZED_NAME if localized else MatchTier.EXACT_NAME
    query_tokens = split_tokens(normalized_query)
    name_tokens = split_tokens(normalized_name)
    if query_tokens and _contains_sequence(name_tokens, query_tokens):
        return MatchTier.WHOLE_PHRASE
    universe = _token_universe(name_tokens)
    if query_tokens and all(
        token in universe or (token_parts(token) and set(token_parts(token)) <= universe)
        for token in query_tokens
    ):
        return MatchTier.ALL_TOKENS
    if normalized_query in normalized_name:
        return MatchTier.SUBSTRING
    if fold_accents(normalized_query) in fold_accents(normalized_name):
        return MatchTier.SUBSTRING
    return None


def identity_key(identity: int | str) -> tuple[int, int, str]:
    """Integers first, numerically; then strings in code-point order."""
    if isinstance(identity, int) and not isinstance(identity, bool):
        return (0, identity, "")
    return (1, 0, str(identity))


def name_key(name: str) -> tuple[int, str, str]:
    """Shorter normalized name first, then the normalized name, then the raw code points."""
    normalized = normalize_for_match(name)
    return (len(normalized), normalized, name)


def rank_key(tier: MatchTier, name: str, identity: int | str) -> tuple[Any, ...]:
    """The standard order: tier, shorter name, name (normalized, then raw), identity."""
    return (int(tier), *name_key(name), *identity_key(identity))


class RowRef(BaseModel):
    """A pointer to one row of one search result, and how that row matched."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    catalog: str
    term: str = Field(description="The search term of the result that holds the row.")
    source_index: int = Field(ge=0, description="Index into that SearchResult's rows.")
    name: str
    tier: MatchTier


class RankedCandidate(BaseModel):
    """One entity at its representative row (see :func:`rank_search_results`).

    ``catalog``, ``term`` and ``source_index`` point to the capture row it came from;
    ``also_matched`` points to the entity's other matching rows.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    identity: int | str
    name: str
    tier: MatchTier
    entity_type: str
    catalog: str
    catalog_kind: str
    term: str = Field(description="The search term of the result that holds the source row.")
    source_index: int = Field(ge=0, description="Index into that SearchResult's rows.")
    data: dict[str, Scalar] = Field(default_factory=dict)
    also_matched: list[RowRef] = Field(
        default_factory=list, description="Other matching rows of the same entity, ranked."
    )


class _ScoredRow(NamedTuple):
    level: tuple[Any, ...]
    key: tuple[Any, ...]
    result: SearchResult
    row_index: int
    tier: MatchTier | None


def _data_key(data: dict[str, Scalar]) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)


def _row_key(primary: tuple[Any, ...], result: SearchResult, index: int) -> tuple[Any, ...]:
    # ``primary``, then content-only tie-breaks: equal keys mean identical rows of equal searches.
    row = result.rows[index]
    return (*primary, result.entity_type, result.catalog, result.term, _data_key(row.data), index)


def entity_key(entity_type: str, identity: int | str) -> tuple[str, tuple[int, int, str]]:
    """Rows with the same key are the same entity (23487 the creature is not 23487 the quest)."""
    return (entity_type, identity_key(identity))


def _representative_key(item: _ScoredRow) -> tuple[Any, ...]:
    # Within one entity: best level (tier/score), then a primary-name row over a localized one
    # (Goldark is shown as "Goldark Snipehunter", not as its shorter Spanish name), then the key.
    return (item.level, item.result.catalog_kind != "name", item.key)


def _collapse(scored: list[_ScoredRow]) -> list[tuple[_ScoredRow, list[_ScoredRow]]]:
    """Group rows by entity: (representative row, other rows), ranked by the representative."""
    groups: dict[tuple[str, tuple[int, int, str]], list[_ScoredRow]] = {}
    for item in scored:
        identity = item.result.rows[item.row_index].identity
        groups.setdefault(entity_key(item.result.entity_type, identity), []).append(item)
    ranked = [sorted(items, key=_representative_key) for items in groups.values()]
    ranked.sort(key=lambda items: items[0].key)
    return [(items[0], items[1:]) for items in ranked]


def _tier(item: _ScoredRow) -> MatchTier:
    if item.tier is None:  # pragma: no cover - only suggestion rows have no tier
        raise ValueError("a ranked candidate row must have a match tier")
    return item.tier


def _candidate(best: _ScoredRow, others: list[_ScoredRow]) -> RankedCandidate:
    row = best.result.rows[best.row_index]
    return RankedCandidate(
        identity=row.identity,
        name=row.name,
        tier=_tier(best),
        entity_type=best.result.entity_type,
        catalog=best.result.catalog,
        catalog_kind=best.result.catalog_kind,
        term=best.result.term,
        source_index=best.row_index,
        data=dict(row.data),
        also_matched=[
            RowRef(
                catalog=item.result.catalog,
                term=item.result.term,
                source_index=item.row_index,
                name=item.result.rows[item.row_index].name,
                tier=_tier(item),
            )
            for item in others
        ],
    )


def rank_search_results(query: str, results: Sequence[SearchResult]) -> list[RankedCandidate]:
    """Merge, rank and collapse the rows of several searches (any catalogs) for ``query``.

    Every row is scored with :func:`match_tier` (rows that do not match the query under these
    rules, e.g. a backend collation match that normalization does not confirm, are left out).
    Rows of the same entity collapse to one representative row: the best tier, a primary-name row
    before a localized one at that tier, then :func:`rank_key`; the entity's other rows are kept in
    ``also_matched``. Candidates are ordered by their representative's :func:`rank_key`; remaining
    ties (same tier, name and identity) fall to entity type, catalog, term and the row's data,
    never to row order.
    """
    scored: list[_ScoredRow] = []
    for result in results:
        localized = result.catalog_kind == "localized_name"
        for index, row in enumerate(result.rows):
            tier = match_tier(query, row.name, localized=localized)
            if tier is not None:
                key = _row_key(rank_key(tier, row.name, row.identity), result, index)
                scored.append(_ScoredRow((int(tier),), key, result, index, tier))
    return [_candidate(best, others) for best, others in _collapse(scored)]


def suggestion_key(score: SuggestionScore, name: str, identity: int | str) -> tuple[Any, ...]:
    """More covered words, then fewer extra tokens (how little else the name carries), then a
    higher similarity (exact words before misspelled ones), then the standard tie-break."""
    return (
        -score.covered_words,
        score.extra_tokens,
        -score.similarity,
        *name_key(name),
        *identity_key(identity),
    )


class RankedSuggestion(BaseModel):
    """One entity suggested when nothing matched the whole query, at its best-scoring row."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    identity: int | str
    name: str
    entity_type: str
    catalog: str
    catalog_kind: str
    term: str = Field(description="The search term of the result that holds the source row.")
    source_index: int = Field(ge=0)
    covered_words: int = Field(ge=1, description="Query words this name covers.")
    query_words: int = Field(ge=1, description="Distinct words in the query.")
    similarity: float = Field(description="Sum of the covered words' best token similarity.")
    extra_tokens: int = Field(ge=0, description="Name tokens no query word used.")


def rank_suggestions(query: str, results: Sequence[SearchResult]) -> list[RankedSuggestion]:
    """Rank every row of ``results`` that covers at least one query word (:func:`suggestion_key`).

    Rows of the same entity collapse to the best-scoring one. Deterministic under any permutation
    of rows and results, like :func:`rank_search_results`.
    """
    query_tokens = list(dict.fromkeys(tokenize(query)))
    if not query_tokens:
        return []
    scored: list[_ScoredRow] = []
    scores: dict[tuple[int, int], SuggestionScore] = {}
    for result in results:
        for index, row in enumerate(result.rows):
            score = suggestion_score(query_tokens, row.name)
            if score.covered_words == 0:
                continue
            key = _row_key(suggestion_key(score, row.name, row.identity), result, index)
            level = (-score.covered_words, score.extra_tokens, -score.similarity)
            scored.append(_ScoredRow(level, key, result, index, None))
            scores[(id(result), index)] = score
    suggestions: list[RankedSuggestion] = []
    for best, _others in _collapse(scored):
        row = best.result.rows[best.row_index]
        score = scores[(id(best.result), best.row_index)]
        suggestions.append(
            RankedSuggestion(
                identity=row.identity,
                name=row.name,
                entity_type=best.result.entity_type,
                catalog=best.result.catalog,
                catalog_kind=best.result.catalog_kind,
                term=best.result.term,
                source_index=best.row_index,
                covered_words=score.covered_words,
                query_words=len(query_tokens),
                similarity=score.similarity,
                extra_tokens=score.extra_tokens,
            )
        )
    return suggestions
