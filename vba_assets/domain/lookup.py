"""The deterministic lookup tool behind ``vba lookup`` (ARCHITECTURE 11).

:func:`lookup` resolves a name or short description against the configured catalogs and has
exactly four outcomes (:class:`LookupResult`):

* ``success``: one entity at the best match tier, with its data columns;
* ``needs_confirmation``: several entities tie at the best tier, or a search was truncated and the
  best tier is not exact; ranked options;
* ``error`` / ``no_match``: nothing matches the whole query; ranked suggestions from bounded word
  and spelling probes;
* ``error`` / ``no_word_characters``: the query has no letter or digit; no search is made.

Pure: the database is injected as a :class:`~vba_assets.domain.research.CatalogSearch`. Every search
made is recorded in ``searches`` (catalog, literal term, purpose, rows, truncated), every fetch in
``match.records``. A value the database does not hold (a NULL, a column a row does not carry, a
catalog without the entity) is reported as unavailable, never paraphrased.
"""

import json
import unicodedata
from collections.abc import Sequence
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vba_assets.config import CatalogConfig
from vba_assets.domain.matching import (
    EXACT_TIERS,
    NAME_SEPARATOR,
    NAME_SEPARATORS,
    MatchTier,
    RankedCandidate,
    name_key,
    rank_search_results,
    rank_suggestions,
    split_tokens,
    tokenize,
    unify_punctuation,
)
from vba_assets.domain.research import CatalogRow, CatalogSearch, Scalar, SearchResult
from vba_assets.errors import ConfigError, ErrorCode, InputError

#: Bounds of one lookup: options/suggestions shown, query length, probes on a miss.
MAX_LIMIT = 50
MAX_QUERY_CHARS = 200
MAX_WORD_PROBES = 4
MAX_SPELLING_PROBES = 6
SPELLING_NGRAM = 4
PROBE_ROW_LIMIT = 25

Status = Literal["success", "needs_confirmation", "error"]
Reason = Literal["no_match", "no_word_characters"]
SearchPurpose = Literal["query", "query_variant", "word_probe", "spelling_probe"]
TierLabel = Literal["exact_name", "exact_localized_name", "whole_phrase", "all_tokens", "substring"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SearchRecord(_Model):
    """One contains search the lookup made: what was asked and how much came back."""

    catalog: str
    term: str = Field(description="The literal term sent to the database.")
    purpose: SearchPurpose
    row_limit: int
    rows: int
    truncated: bool


class FieldValue(_Model):
    """One configured data column: its value, or an explicit ``unavailable`` marker."""

    column: str
    available: bool
    value: Scalar = None
    note: str | None = Field(default=None, description="Why the value is unavailable.")


class EntityRow(_Model):
    """One row of the entity in one catalog (a localized catalog has one per locale)."""

    name: str
    fields: list[FieldValue]


class CatalogRecord(_Model):
    """A fetch by identity in another catalog of the entity's type, and what it returned."""

    catalog: str
    catalog_kind: str
    rows: list[EntityRow]
    note: str | None = None


class _EntityRef(_Model):
    identity: int | str
    name: str = Field(description="The name that matched, as the catalog holds it.")
    entity_type: str
    catalog: str
    catalog_kind: str


class Option(_EntityRef):
    """One ranked option of ``needs_confirmation`` (also the base of the ``success`` entity)."""

    tier: TierLabel


class MatchedEntity(Option):
    """The one entity of a ``success``: the matched row's data columns and its other catalogs."""

    fields: list[FieldValue] = Field(description="The configured data columns of the matched row.")
    also_matched: list[str] = Field(description="'catalog: name (tier)' of its other rows.")
    records: list[CatalogRecord] = Field(
        description="The entity in the other catalogs of its type."
    )


class Suggestion(_EntityRef):
    """One ranked suggestion of a ``no_match`` error (see ``matching.suggestion_key``)."""

    covered_words: int = Field(description="Query words the name covers (similarity >= 0.75).")
    query_words: int
    similarity: float = Field(description="Sum of the covered words' best token similarity.")
    extra_tokens: int = Field(description="Name tokens no query word used.")


class LookupResult(_Model):
    """The outcome of :func:`lookup`; ``status`` (and ``reason`` for errors) says which one."""

    status: Status
    reason: Reason | None = None
    code: ErrorCode | None = None
    message: str
    query: str
    catalogs: list[str] = Field(description="The catalogs in scope.")
    best_tier: TierLabel | None = None
    tied: int = Field(default=0, description="Entities at the best tier (visible rows only).")
    truncated: bool = Field(default=False, description="A query search hit its row limit.")
    match: MatchedEntity | None = None
    other_candidates: int = Field(default=0, description="Weaker entities beside a success.")
    options: list[Option] = Field(default_factory=list)
    suggestions: list[Suggestion] = Field(default_factory=list)
    searches: list[SearchRecord] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="What this lookup noticed.")
    coverage_notes: list[str] = Field(
        default_factory=list, description="The searches' coverage notes (backend, scope of a miss)."
    )

    @model_validator(mode="after")
    def _one_outcome(self) -> "LookupResult":
        shape_ok = {
            "success": self.match is not None and not self.options and self.reason is None,
            "needs_confirmation": self.match is None and bool(self.options) and not self.reason,
            "error": self.match is None and not self.options and self.reason is not None,
        }[self.status]
        if not shape_ok:
            raise ValueError(f"inconsistent {self.status!r} lookup result")
        return self


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


def _validate(query: object, limit: object) -> str:
    if not isinstance(query, str):
        raise InputError(ErrorCode.LOOKUP_INVALID_REQUEST, "the query must be a string")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(
            ErrorCode.LOOKUP_INVALID_REQUEST,
            f"the query is {len(query)} characters long; at most {MAX_QUERY_CHARS} are allowed",
            length=len(query),
        )
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InputError(
            ErrorCode.LOOKUP_INVALID_REQUEST,
            f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}",
            limit=str(limit),
        )
    return query


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
    change a letter outside ASCII (SQLite's ``LIKE`` folds ASCII case only, so ``тралл`` would
    miss ``Тралл``). Terms that differ only in ASCII case are searched once.
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


def _fields(row: CatalogRow, columns: Sequence[str]) -> list[FieldValue]:
    """Each configured column's value, or why it is unavailable (never a guess)."""
    values: list[FieldValue] = []
    for column in columns:
        if column not in row.data:
            note = "not returned by the catalog"
        elif row.data[column] is None:
            note = "NULL: the database holds no value"
        else:
            values.append(FieldValue(column=column, available=True, value=row.data[column]))
            continue
        values.append(FieldValue(column=column, available=False, note=note))
    return values


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
        self.notes = (
            [
                f"the query contains invisible format characters ({', '.join(hidden)}); they are "
                "searched and matched literally, so a clean name does not match them"
            ]
            if hidden
            else []
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

    def result(self, status: Status, message: str, **fields: object) -> LookupResult:
        coverage = dict.fromkeys(note for result in self.results for note in result.coverage_notes)
        return LookupResult.model_validate(
            {
                "status": status,
                "message": message,
                "query": self.query,
                "catalogs": [config.name for config in self.scope],
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
                f"truncated: a search returned more than {self.limit} rows, so entities beyond "
                "the limit are not shown and a unique match cannot be confirmed; refine the "
                "query or raise the limit"
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
                EntityRow(name=r.name, fields=_fields(r, config.data_columns)) for r in rows
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
            fields=_fields(row, columns),
            also_matched=list(dict.fromkeys(also)),
            records=records,
        )

    def no_match(self, truncated: bool) -> LookupResult:
        word_probes, spelling_probes = probe_terms(self.query)
        probe_limit = max(self.limit, PROBE_ROW_LIMIT)
        for term in word_probes:
            self.run(term, "word_probe", probe_limit)
        for term in spelling_probes:
            self.run(term, "spelling_probe", probe_limit)
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
    limit: int = 10,
    catalog: str | None = None,
) -> LookupResult:
    """Resolve ``query`` against ``catalogs`` (or only ``catalog``) through ``search``.

    Args:
        query: a name or short description, passed to the database literally (``%``, ``_`` and
            quotes are plain characters there).
        catalogs: the configured catalogs; by default every catalog of the first one's entity type
            is searched.
        search: the read-only world database (or any honest :class:`CatalogSearch`).
        limit: row limit of each query search and the most options/suggestions shown (1-50).
        catalog: search only this configured catalog.

    Raises:
        InputError: an unknown ``catalog`` (``CATALOG_UNKNOWN``), a bad ``limit`` or an over-long
            query (``LOOKUP_INVALID_REQUEST``).
        ConfigError: no catalogs are configured.
        ResearchUnavailable: from ``search``, when the database cannot answer.
    """
    query = _validate(query, limit)
    state = _Lookup(query, select_catalogs(catalogs, catalog), catalogs, search, limit)
    if not tokenize(query):
        return state.result(
            "error",
            "the query has no letters or digits, so nothing was searched",
            reason="no_word_characters",
            code=ErrorCode.LOOKUP_NO_WORD_CHARACTERS,
        )
    primary: list[SearchResult] = []
    for index, term in enumerate(query_terms(query)):
        primary += state.run(term, "query" if index == 0 else "query_variant", limit)
    ranked = rank_search_results(query, primary)
    truncated = any(result.truncated for result in primary)
    return state.matched(ranked, truncated) if ranked else state.no_match(truncated)


def _value(field: FieldValue, *, why: bool = True) -> str:
    if not field.available:
        return f"unavailable ({field.note})" if why else "unavailable"
    return repr(field.value) if field.value == "" else str(field.value)


def render_lookup(result: LookupResult) -> str:
    """A compact, readable terminal rendering of ``result``."""
    lines: list[str] = []
    if result.status == "success" and result.match is not None:
        match = result.match
        lines.append(
            f"success: {match.entity_type} {match.identity} {match.name!r} "
            f"[{match.tier} in {match.catalog}]"
        )
        lines += [f"  {field.column}: {_value(field)}" for field in match.fields]
        lines += [f"  also matched: {text}" for text in match.also_matched]
        for record in match.records:
            if not record.rows:
                lines.append(f"  {record.catalog}: unavailable ({record.note})")
            for row in record.rows:
                fields = ", ".join(f"{f.column}={_value(f, why=False)}" for f in row.fields)
                lines.append(
                    f"  {record.catalog}: {row.name!r}" + (f" ({fields})" if fields else "")
                )
        if result.other_candidates:
            lines.append(f"  ({result.other_candidates} weaker match(es) not shown)")
    elif result.status == "needs_confirmation":
        lines.append(f"needs confirmation: {result.message}")
        for rank, option in enumerate(result.options, 1):
            lines.append(
                f"  {rank:>2}. {option.entity_type} {option.identity} {option.name!r} "
                f"[{option.tier} in {option.catalog}]"
            )
    else:
        lines.append(f"error ({result.reason}): {result.message}")
        for rank, item in enumerate(result.suggestions, 1):
            lines.append(
                f"  {rank:>2}. {item.entity_type} {item.identity} {item.name!r} "
                f"[covers {item.covered_words}/{item.query_words} words, +{item.extra_tokens} "
                f"other, in {item.catalog}]"
            )
    lines += [f"  note: {note}" for note in result.notes]
    if result.status == "error":  # the scope of a miss matters here; elsewhere see --json
        lines += [f"  coverage: {note}" for note in result.coverage_notes]
    searches = "; ".join(
        f"{record.catalog} {record.term!r} -> {record.rows}{'+' if record.truncated else ''}"
        for record in result.searches
    )
    lines.append(f"  searched: {searches}" if searches else "  searched: nothing")
    return "\n".join(lines)
