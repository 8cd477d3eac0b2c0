"""The deterministic lookup tool behind ``vba lookup`` (ARCHITECTURE 11).

:func:`lookup` resolves a name or short description against the configured catalogs and has
exactly four outcomes (:class:`LookupResult`), as the variable-definition tool of the seed
(``get_variable_definition(query, limit=5)``) does:

* ``success``: one entity at the best match tier, with its data columns;
* ``needs_confirmation``: several entities tie at the best tier, or a search was truncated and the
  best tier is not exact; ranked options;
* ``error`` / ``no_match``: nothing matches the whole query; ranked suggestions from at most
  :data:`~.suggestions.MAX_PROBE_TERMS` word and spelling probes per catalog (:mod:`.suggestions`);
* ``error`` / ``no_word_characters``: the query has no letter or digit; no search is made.

A query that gives an identity (``23487``, ``npc=23487``, a database URL of a creature page) is
fetched by that identity instead of searched (:mod:`.identity_lookup`): ``success`` with tier
``identity``, or ``error`` / ``no_match`` when no catalog in scope holds it.

``limit`` (default :data:`DEFAULT_LIMIT`) is only how many options or suggestions are shown; it is
clamped to :data:`MIN_LIMIT`-:data:`MAX_LIMIT` (a clamped value is noted in the result). It never
changes the outcome: every query search asks for :data:`QUERY_ROW_LIMIT` rows and every probe for
:data:`PROBE_ROW_LIMIT`, whatever the limit. ``source`` names the snapshot the searches read
(backend, snapshot label, schema fingerprint), the same binding a capture records.

Pure: the database is injected as a :class:`~vba_assets.domain.catalog.world.CatalogSearch`. Every search
made is recorded in ``searches`` (catalog, literal term, purpose, rows, truncated), every fetch in
``match.records``. A value the database does not hold (a NULL, a column a row does not carry, a
catalog without the entity) is reported as unavailable, never paraphrased.

The result models and :func:`render_lookup` live in :mod:`.lookup_result`, the probes and scoring
of a miss in :mod:`.suggestions`; their names are re-exported here.
"""

import json
import unicodedata
from collections.abc import Sequence
from typing import cast

from vba_assets.domain.catalog.identity_lookup import identity_query, lookup_identity
from vba_assets.domain.catalog.lookup_result import (
    CatalogRecord,
    EntityRow,
    LookupResult,
    LookupSource,
    MatchedEntity,
    SearchPurpose,
    SearchRecord,
    Status,
    TierLabel,
    field_values,
)
from vba_assets.domain.catalog.matching import (
    EXACT_TIERS,
    MatchTier,
    RankedCandidate,
    name_key,
    rank_search_results,
    rank_suggestions,
)
from vba_assets.domain.catalog.names import (
    NAME_SEPARATOR,
    NAME_SEPARATORS,
    tokenize,
    unify_punctuation,
)
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.suggestions import Probe, probe_plan
from vba_assets.domain.catalog.world import CatalogRow, CatalogSearch, SearchResult
from vba_assets.errors import ConfigError, ErrorCode, InputError

#: Options/suggestions shown: the default and the range a requested limit is clamped to.
DEFAULT_LIMIT = 5
MIN_LIMIT = 1
MAX_LIMIT = 10
#: Longest accepted query, in characters.
MAX_QUERY_CHARS = 200
#: Rows of one query search and of one probe search (independent of the limit shown).
QUERY_ROW_LIMIT = 25
PROBE_ROW_LIMIT = 25


def _label(tier: MatchTier) -> TierLabel:
    return cast(TierLabel, tier.label)


def select_catalogs(catalogs: Sequence[CatalogConfig], catalog: str | None) -> list[CatalogConfig]:
    """The catalogs a lookup searches: ``catalog`` alone, else every catalog of the first
    catalog's entity type, in configured order."""
    if not catalogs:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            "no catalogs are configured; add [[entity_resolution.catalogs]] to the project config",
            key="entity_resolution.catalogs",
        )
    if catalog is not None:
        chosen = [config for config in catalogs if config.name == catalog]
        if not chosen:
            known = ", ".join(config.name for config in catalogs)
            raise InputError(
                ErrorCode.CATALOG_UNKNOWN,
                f"unknown catalog {catalog!r}; configured catalogs: {known}",
                catalog=catalog,
            )
        return chosen
    entity_type = catalogs[0].entity_type
    return [config for config in catalogs if config.entity_type == entity_type]


def _validate(query: object) -> str:
    if not isinstance(query, str):
        raise InputError(ErrorCode.LOOKUP_INVALID_REQUEST, "the query must be a string")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(
            ErrorCode.LOOKUP_INVALID_REQUEST,
            f"the query is {len(query)} characters long; at most {MAX_QUERY_CHARS} are allowed",
            length=len(query),
        )
    return query


def clamp_limit(limit: object) -> tuple[int, str | None]:
    """``(limit clamped to MIN_LIMIT..MAX_LIMIT, a note if it was clamped)``.

    Raises:
        InputError: ``LOOKUP_INVALID_REQUEST`` for a limit that is not an integer (``True``
            included): a value of the wrong type is a caller's bug, an out-of-range one a choice.
    """
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InputError(
            ErrorCode.LOOKUP_INVALID_REQUEST,
            f"limit must be an integer ({MIN_LIMIT}-{MAX_LIMIT}), got {limit!r}",
            limit=str(limit)[:40],
        )
    clamped = min(max(limit, MIN_LIMIT), MAX_LIMIT)
    if clamped == limit:
        return limit, None
    return clamped, f"limit {limit} was clamped to {clamped} (allowed: {MIN_LIMIT}-{MAX_LIMIT})"


def _ascii_lower(text: str) -> str:
    return "".join(char.lower() if char.isascii() else char for char in text)


def _capitalize_words(text: str) -> str:
    return " ".join(word[:1].upper() + word[1:].lower() for word in text.split(" "))


def query_terms(query: str) -> list[str]:
    """The literal terms searched for ``query``, in order, without duplicates.

    First the query itself (NFC, single spaces, otherwise unchanged: ``%``, ``_``, quotes and
    invisible characters stay). A contains search is literal, so variants follow: with an
    apostrophe, each of ``'`` and ``’`` (frFR names use ``’``); with a name separator, each of
    ``·``, ``‧`` and ``・`` (zhCN and zhTW differ); lower-case and capitalized forms when they
    change a letter outside ASCII (every backend folds ASCII case; beyond it the embedded SQLite
    and ``utf8mb4_unicode_ci`` fold too, but a case-sensitive collation would let ``тралл`` miss
    ``Тралл``). Terms that differ only in ASCII case are searched once.
    """
    literal = " ".join(unicodedata.normalize("NFC", query).split())
    unified = unify_punctuation(literal)
    terms = [literal, unified]
    apostrophes = ["'", "\u2019"] if "'" in unified else [""]
    separators = list(NAME_SEPARATORS) if NAME_SEPARATOR in unified else [""]
    for apostrophe in apostrophes:
        for separator in separators:
            variant = unified.replace("'", apostrophe) if apostrophe else unified
            terms.append(variant.replace(NAME_SEPARATOR, separator) if separator else variant)
    terms += [unified.lower(), _capitalize_words(unified)]
    # Both backends fold ASCII case already: keep one term per ASCII-folded form.
    unique: dict[str, str] = {}
    for term in terms:
        unique.setdefault(_ascii_lower(term), term)
    return list(unique.values())


def _option(candidate: RankedCandidate) -> dict[str, object]:
    fields = ("identity", "name", "entity_type", "catalog", "catalog_kind")
    return {**candidate.model_dump(include=set(fields)), "tier": _label(candidate.tier)}


class _Lookup:
    """One lookup: runs and records searches (once per catalog and term), builds the result."""

    def __init__(
        self,
        query: str,
        scope: list[CatalogConfig],
        catalogs: Sequence[CatalogConfig],
        search: CatalogSearch,
        limit: int,
    ) -> None:
        self.query, self.scope, self.catalogs, self.search = query, scope, catalogs, search
        self.limit = limit
        self.records: list[SearchRecord] = []
        self.results: list[SearchResult] = []
        hidden = sorted({f"U+{ord(c):04X}" for c in query if unicodedata.category(c) == "Cf"})
        self.notes: list[str] = []
        if hidden:
            self.notes.append(
                f"the query contains invisible format characters ({', '.join(hidden)}); they are "
                "searched and matched literally, so a clean name does not match them"
            )

    def run(self, term: str, purpose: SearchPurpose, limit: int) -> list[SearchResult]:
        found: list[SearchResult] = []
        for config in self.scope:
            if any(r.catalog == config.name and r.term == term for r in self.records):
                continue
            result = self.search.contains_search(config.name, term, limit)
            self.records.append(
                SearchRecord(
                    catalog=config.name,
                    term=term,
                    purpose=purpose,
                    row_limit=limit,
                    rows=len(result.rows),
                    truncated=result.truncated,
                )
            )
            self.results.append(result)
            found.append(result)
        return found

    def source(self) -> LookupSource | None:
        """The snapshot binding of the searches (all of them, or a note says they differ)."""
        bindings = list(dict.fromkeys(result.snapshot for result in self.results))
        if not bindings:
            return None
        if len(bindings) > 1:
            self.notes.append(
                f"the searches read {len(bindings)} different snapshots; the source shows the first"
            )
        first = bindings[0]
        return LookupSource(
            backend=first.backend,
            snapshot_label=first.label,
            schema_fingerprint=first.schema_fingerprint,
        )

    def result(self, status: Status, message: str, **fields: object) -> LookupResult:
        coverage = dict.fromkeys(note for result in self.results for note in result.coverage_notes)
        source = self.source()
        return LookupResult.model_validate(
            {
                "status": status,
                "message": message,
                "query": self.query,
                "limit": self.limit,
                "catalogs": [config.name for config in self.scope],
                "source": source,
                "searches": self.records,
                "notes": self.notes,
                "coverage_notes": list(coverage),
                **fields,
            }
        )

    def matched(self, ranked: list[RankedCandidate], truncated: bool) -> LookupResult:
        best = ranked[0].tier
        tied = sum(1 for candidate in ranked if candidate.tier == best)
        common = {"best_tier": _label(best), "tied": tied, "truncated": truncated}
        if tied == 1 and (not truncated or best in EXACT_TIERS):
            match = self.entity(ranked[0])
            message = f"{match.name!r} is {match.entity_type} {match.identity} ({match.tier})"
            return self.result(
                "success", message, match=match, other_candidates=len(ranked) - 1, **common
            )
        if truncated:
            self.notes.append(
                f"truncated: a search matched more than {QUERY_ROW_LIMIT} rows, so entities "
                "beyond them are not ranked and a unique match cannot be confirmed; refine the "
                "query"
            )
        reason = (
            f"{'at least ' if truncated else ''}{tied} entities tie at {best.label}"
            if tied > 1
            else f"the search was truncated, so the {best.label} match cannot be confirmed unique"
        )
        options = [_option(candidate) for candidate in ranked[: self.limit]]
        return self.result(
            "needs_confirmation",
            f"{reason}; confirm one of the ranked options",
            options=options,
            **common,
        )

    def entity(self, candidate: RankedCandidate) -> MatchedEntity:
        """The success entity, with its rows in the other catalogs of its type."""
        matched = next((c for c in self.scope if c.name == candidate.catalog), None)
        columns = matched.data_columns if matched else sorted(candidate.data)
        row = CatalogRow(identity=candidate.identity, name=candidate.name, data=candidate.data)
        records: list[CatalogRecord] = []
        for config in self.catalogs:
            if config.entity_type != candidate.entity_type or config.name == candidate.catalog:
                continue
            rows = sorted(
                self.search.fetch_by_identity(config.name, candidate.identity),
                key=lambda item: (name_key(item.name), json.dumps(item.data, sort_keys=True)),
            )
            entity_rows = [
                EntityRow(name=r.name, fields=field_values(r, config.data_columns)) for r in rows
            ]
            note = None if rows else f"{config.name} holds no row with this identity"
            records.append(
                CatalogRecord(
                    catalog=config.name, catalog_kind=config.kind, rows=entity_rows, note=note
                )
            )
        also = (f"{ref.catalog}: {ref.name} ({ref.tier.label})" for ref in candidate.also_matched)
        return MatchedEntity(
            **_option(candidate),
            fields=field_values(row, columns),
            also_matched=list(dict.fromkeys(also)),
            records=records,
        )

    def probe(self, probe: Probe) -> bool:
        """Search one probe on every catalog in scope; True when any row came back."""
        found = self.run(probe.term, probe.purpose, PROBE_ROW_LIMIT)
        return any(result.rows for result in found)

    def no_match(self, truncated: bool) -> LookupResult:
        probe_plan(self.query, [record.term for record in self.records], self.probe)
        ranked = rank_suggestions(self.query, self.results)[: self.limit]
        suggestions = [item.model_dump(exclude={"term", "source_index"}) for item in ranked]
        if truncated:
            self.notes.append("a query search was truncated at its row limit")
        names = ", ".join(config.name for config in self.scope)
        message = f"no name in {names} matches {self.query!r}" + (
            "; ranked suggestions follow" if suggestions else "; no suggestions either"
        )
        return self.result(
            "error",
            message,
            reason="no_match",
            code=ErrorCode.LOOKUP_NO_MATCH,
            truncated=truncated,
            suggestions=suggestions,
        )


def lookup(
    query: str,
    catalogs: Sequence[CatalogConfig],
    search: CatalogSearch,
    *,
    limit: int = DEFAULT_LIMIT,
    catalog: str | None = None,
) -> LookupResult:
    """Resolve ``query`` against ``catalogs`` (or only ``catalog``) through ``search``.

    Args:
        query: a name or short description, passed to the database literally (``%``, ``_`` and
            quotes are plain characters there).
        catalogs: the configured catalogs; by default every catalog of the first one's entity type
            is searched.
        search: the read-only world database (or any honest :class:`CatalogSearch`).
        limit: the most options/suggestions shown; clamped to 1-10 (default 5). It does not change
            the outcome (see the module docstring).
        catalog: search only this configured catalog.

    Raises:
        InputError: an unknown ``catalog`` (``CATALOG_UNKNOWN``), a ``limit`` that is not an
            integer or an over-long query (``LOOKUP_INVALID_REQUEST``).
        ConfigError: no catalogs are configured.
        ResearchUnavailable: from ``search``, when the database cannot answer.
    """
    query = _validate(query)
    shown, clamped = clamp_limit(limit)
    state = _Lookup(query, select_catalogs(catalogs, catalog), catalogs, search, shown)
    if clamped:
        state.notes.append(clamped)
    identity = identity_query(query)
    if identity is not None:  # `23487`, `npc=23487`, a database URL (.identity_lookup)
        return lookup_identity(
            query, identity, state.scope, catalogs, search, limit=shown, notes=state.notes
        )
    if not tokenize(query):
        return state.result(
            "error",
            "the query has no letters or digits, so nothing was searched",
            reason="no_word_characters",
            code=ErrorCode.LOOKUP_NO_WORD_CHARACTERS,
        )
    primary: list[SearchResult] = []
    for index, term in enumerate(query_terms(query)):
        primary += state.run(term, "query" if index == 0 else "query_variant", QUERY_ROW_LIMIT)
    ranked = rank_search_results(query, primary)
    truncated = any(result.truncated for result in primary)
    return state.matched(ranked, truncated) if ranked else state.no_match(truncated)
