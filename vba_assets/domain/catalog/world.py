"""What the read-only world database returns: rows, snapshot bindings and search results.

These models are the contract between the database resource (``resources/world_db/database.py``, IO) and the
pure logic that ranks, captures and assesses (``vba_assets/domain``). A :class:`SearchResult` is
exactly what a capture artifact records (ARCHITECTURE 6.2).
"""

from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import Field

from vba_assets.domain.base import StrictModel

#: A JSON-safe scalar as stored in a data column.
Scalar = str | int | float | bool | None


class SnapshotBinding(StrictModel):
    """Which world data a result came from: the operator's label plus a schema fingerprint."""

    label: str
    backend: str = Field(description="'sqlite' or 'mysql' (MariaDB/MySQL).")
    schema_fingerprint: str = Field(
        description="sha256 of the canonical JSON of the allowlisted tables' reflected columns."
    )


class CatalogRow(StrictModel):
    """One row of a catalog: its identity, its name and the configured data columns."""

    identity: int | str
    name: str
    data: dict[str, Scalar] = Field(default_factory=dict)


class SearchResult(StrictModel):
    """One literal contains search on one catalog, exactly as executed."""

    catalog: str
    entity_type: str
    catalog_kind: str = Field(description="'name' or 'localized_name'.")
    term: str = Field(description="The literal search term, unchanged.")
    sql: str = Field(description="The exact SQL text sent, with bind placeholders.")
    parameters: dict[str, Scalar] = Field(description="The bound parameters, in full.")
    snapshot: SnapshotBinding
    row_limit: int = Field(description="max_candidates; the query asked for row_limit + 1 rows.")
    truncated: bool = Field(description="True when more than row_limit rows matched.")
    rows: list[CatalogRow] = Field(description="At most row_limit rows, in database order.")
    elapsed_ms: float | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Query time. Only in protocol v1/v2 captures; later ones keep it in the "
        "'captured' event, so a capture's bytes depend on content alone.",
    )
    coverage_notes: list[str] = Field(
        description="Collation/case behaviour of the backend and the scope of a miss."
    )
    identity: int | str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Set for a fetch by identity (an identity-reference search, protocol v4): "
        "every row of the catalog with this identity, instead of a contains search on ``term``.",
    )


class QuestRelationRow(StrictModel):
    """One title of one quest that a creature entry starts or ends (protocol v6)."""

    identity: int | str = Field(description="The creature entry.")
    relation: Literal["starts", "ends"] = Field(
        description="'starts' (creature_queststarter) or 'ends' (creature_questender)."
    )
    quest: int = Field(description="The quest id.")
    locale: str | None = Field(
        description="The title's locale; None for the quest table's own (English) title."
    )
    title: str = Field(description="The quest title, exactly as stored.")


class RelationResult(StrictModel):
    """The quests a set of creature entries start or end, with every title of each quest,
    exactly as queried (a grounded tie-break fact, protocol v6)."""

    identities: list[int | str] = Field(description="The creature entries asked about, sorted.")
    sql: str = Field(description="The exact SQL text sent, with bind placeholders.")
    parameters: dict[str, Scalar] = Field(description="The bound parameters, in full.")
    snapshot: SnapshotBinding
    row_limit: int = Field(description="Rows kept; the query asked for row_limit + 1.")
    truncated: bool = Field(description="True when more than row_limit rows matched.")
    rows: list[QuestRelationRow] = Field(
        description="Ordered by identity, relation, quest, locale (the quest table's title "
        "first), title."
    )
    coverage_notes: list[str]


class QuestRelationSearch(Protocol):
    """The quests that given creature entries start or end (grounded tie-breaks, protocol v6)."""

    def quest_relations(self, identities: Sequence[int], limit: int) -> RelationResult | None:
        """Every (entry, starts/ends, quest, title) of ``identities`` from the allowlisted
        ``creature_queststarter``, ``creature_questender``, ``quest_template`` and
        ``quest_template_locale`` tables (one literal parameterized query), asking for
        ``limit + 1`` rows; None when those tables are not all allowlisted (the fact is then not
        available and no tie is broken by a quest)."""
        ...


class ZoneMarkerRow(StrictModel):
    """One zone a creature entry has spawn markers in, with one name of that zone (protocol v6)."""

    identity: int | str = Field(description="The creature entry.")
    zone_id: int = Field(description="The zone id (creature_spawn_markers.zone_id).")
    markers: int = Field(description="creature_spawn_markers.marker_count.")
    locale: str | None = Field(description="The name's locale ('enUS', ...); None: no name.")
    name: str | None = Field(description="The zone name, exactly as stored; None: no name row.")


class ZoneResult(StrictModel):
    """The zones a set of creature entries have spawn markers in, with every name of each zone,
    exactly as queried (a grounded tie-break fact, protocol v6)."""

    identities: list[int | str] = Field(description="The creature entries asked about, sorted.")
    sql: str = Field(description="The exact SQL text sent, with bind placeholders.")
    parameters: dict[str, Scalar] = Field(description="The bound parameters, in full.")
    snapshot: SnapshotBinding
    row_limit: int = Field(description="Rows kept; the query asked for row_limit + 1.")
    truncated: bool = Field(description="True when more than row_limit rows matched.")
    rows: list[ZoneMarkerRow] = Field(description="Ordered by identity, zone id, locale.")
    coverage_notes: list[str]


class ZoneMarkerSearch(Protocol):
    """The zones given creature entries have spawn markers in (zone tie-breaks, protocol v6)."""

    def zone_markers(self, identities: Sequence[int], limit: int) -> ZoneResult | None:
        """Every (entry, zone, markers, zone name) of ``identities`` from the allowlisted
        ``creature_spawn_markers`` and ``zone_names`` tables (one literal parameterized query,
        zones without a name row kept with a null name), asking for ``limit + 1`` rows; None
        when those tables are not both allowlisted (no zone then breaks a tie)."""
        ...


class IdentitySearch(Protocol):
    """A fetch by identity recorded like a contains search (an identity-reference capture)."""

    def identity_search(
        self, catalog: str, identity: int | str, term: str, limit: int
    ) -> SearchResult:
        """Every row of ``catalog`` with ``identity`` (one per locale in a localized catalog), as
        a :class:`SearchResult` with its SQL, parameters, snapshot and coverage notes; ``term``
        is recorded as the search's term (the report's words for the entity) and ``limit`` as its
        ``row_limit`` (the policy's ``max_candidates``). The rows are bounded by the identity
        itself, never cut: ``truncated`` is always false."""
        ...


class ExactNameSearch(Protocol):
    """The exact-name query that completes a truncated contains search (protocol v6)."""

    def exact_name_search(self, catalog: str, term: str, limit: int) -> SearchResult:
        """Literal, parameterized exact-name query on ``catalog``'s name column: the rows whose
        name equals ``term`` under the backend's comparison (the one the contains search's
        "exact match first" order uses: search keys on SQLite, the column collation on
        MariaDB), in the contains search's order; asks for ``limit + 1`` rows so ``truncated``
        says whether every equal row was captured. Coverage notes as for a contains search."""
        ...


class CatalogSearch(Protocol):
    """The only two operations the world database offers (no raw SQL anywhere)."""

    def contains_search(self, catalog: str, term: str, limit: int) -> SearchResult:
        """Literal, parameterized contains search; asks for ``limit + 1`` rows."""
        ...

    def fetch_by_identity(self, catalog: str, identity: int | str) -> list[CatalogRow]:
        """All rows of ``catalog`` with this identity (a localized catalog has one per locale)."""
        ...


class ReadOnlyWorldDatabase(
    CatalogSearch, IdentitySearch, QuestRelationSearch, ZoneMarkerSearch, ExactNameSearch, Protocol
):
    """Everything the stages, the lookup tool and the heuristic provider ask of the world DB.

    The one seam between the pipeline and the database: implemented by
    :class:`resources.world_db.WorldDatabase` (SQLite or MariaDB) and by the tests' doubles, and
    what the Dagster resource ``world_db`` yields (:mod:`vba_assets.defs.resources`). mypy checks
    every implementation against it (``tests/unit/test_world_db_protocol.py``), so a method the
    stages call cannot be missing from the object a Dagster step receives.
    """

    def snapshot_binding(self) -> SnapshotBinding:
        """The operator's label and the fingerprint of the allowlisted tables' schema."""
        ...

    def close(self) -> None:
        """Release connections; a later call reconnects."""
        ...
