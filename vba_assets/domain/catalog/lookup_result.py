"""What ``vba lookup`` returns (:class:`LookupResult`) and its terminal rendering (ARCHITECTURE 11).

The models are the JSON contract of ``vba lookup --json``; :func:`render_lookup` is the compact
text shown otherwise. How a lookup reaches its result is :mod:`.lookup`'s business.
"""

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vba_assets.domain.catalog.world import CatalogRow, Scalar
from vba_assets.errors import ErrorCode

Status = Literal["success", "needs_confirmation", "error"]
Reason = Literal["no_match", "no_word_characters"]
SearchPurpose = Literal["query", "query_variant", "word_probe", "spelling_probe"]
#: How the entity was found: a name tier (:class:`~.matching.MatchTier`), or ``identity`` for a
#: query that gives the entity's id (``23487``, ``npc=23487``, a database URL), fetched by it.
TierLabel = Literal[
    "exact_name", "exact_localized_name", "whole_phrase", "all_tokens", "substring", "identity"
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LookupSource(_Model):
    """Which data answered: the snapshot binding every search of the lookup was made against."""

    backend: str = Field(description="'sqlite' or 'mysql' (MariaDB/MySQL).")
    snapshot_label: str = Field(description="The operator's snapshot label.")
    schema_fingerprint: str = Field(
        description="sha256 of the allowlisted tables' reflected columns (ARCHITECTURE 10)."
    )


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
    limit: int = Field(description="The most options/suggestions shown (1-10, after clamping).")
    catalogs: list[str] = Field(description="The catalogs in scope.")
    source: LookupSource | None = Field(
        default=None,
        description="The snapshot the searches read; None only when nothing was searched.",
    )
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


def field_values(row: CatalogRow, columns: Sequence[str]) -> list[FieldValue]:
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
    if result.source is not None:
        source = result.source
        lines.append(
            f"  source: {source.backend} snapshot {source.snapshot_label!r}, "
            f"schema {source.schema_fingerprint[:16]}"
        )
    return "\n".join(lines)
