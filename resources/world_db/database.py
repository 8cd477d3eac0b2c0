"""The read-only world database (ARCHITECTURE 6.2 and 10): SQLite or MariaDB/MySQL via PyMySQL.

:class:`WorldDatabase` offers exactly two queries, "contains search on catalog X" and "fetch
entity by identity from catalog X" (the :class:`~vba_assets.domain.catalog.world.CatalogSearch`
protocol), plus the snapshot binding and a description. There is no raw-SQL method. Tables come
from ``database.allowlist``, identifiers are checked against the reflected schema
(:mod:`resources.world_db.schema`), values are bound parameters, and read-only is enforced by the
connection itself (:mod:`resources.world_db.sqlite`, :mod:`resources.world_db.mysql`).

The contains search runs, for a term ``t`` and a limit ``n``::

    SELECT identity, name, <data columns> FROM <table>
    WHERE name IS NOT NULL AND <compared name> LIKE :pattern ESCAPE '\\'   -- pattern = %<t escaped>%
    ORDER BY CASE WHEN <name equals t> THEN 0 ELSE 1 END,
             <character length of name>, name <code-point order>, identity, <other key columns>
    LIMIT :row_limit                                                -- n + 1: truncation check

On MariaDB/MySQL the compared name is ``name`` under its column collation and "equals" is
``lower(name) = lower(:term)``; on SQLite both sides are search keys (``vba_search_key(name)``, a
pattern made of ``search_key(t)``, and ``vba_search_key(name) = vba_search_key(:term)``: case and
accents aside, as AzerothCore's ``utf8mb4_unicode_ci`` compares them,
:mod:`vba_assets.domain.catalog.search_key`).

On the embedded SQLite demo DB (and any SQLite file its builder made) a catalog whose name column
has an FTS5 trigram index is searched with the same statement plus one pre-filter conjunct,
``AND <primary key> IN (SELECT <primary key> FROM vba_trigram__<table>__<column> WHERE
<column> LIKE :index_pattern)``, whenever the term's key has a run of 3+ characters between
``%``/``_`` (:mod:`resources.world_db.trigram` proves the rows, order and truncation are those of the
plain statement; ``tests/unit/test_world_db_trigram.py`` checks it on many terms). The capture
records the statement that ran and its ``index_pattern``; the coverage notes are the same either
way. ``WorldDatabase(..., use_index=False)`` switches the index off, the oracle of its tests (a
scan then calls ``vba_search_key`` once per name: about 0.5 s on the 238k localized names).
An operator's MariaDB is never altered and is always searched with the plain statement.

Backend differences (what a capture's coverage notes record; pinned by
tests/unit/test_world_db_sqlite.py and tests/integration/test_world_db_mariadb.py):

* **Both** fold case and accents in every script of the catalogs: ``etalon`` and ``ÉTALON`` match
  ``Étalon blanc``, ``jager`` matches ``Goldark Spatzenjäger`` and ``Glodrak Jägerspatz``,
  ``ДИКИЙ`` matches ``Дикий зайцелоп``, ``елка`` matches ``Ёлка``; ``й`` and ``и`` stay different
  letters; ``ß`` is not expanded (``strasse`` does not match ``Straßenräuber``; ``straße`` does).
  Every term of the tests without a zero-width or bidi character gives the same rows in the same
  order on both backends.
* **SQLite** (search keys): length is ``length()`` (code points); name order is ``COLLATE BINARY``
  (UTF-8 bytes, i.e. code-point order). Zero-width and bidi characters (U+200B, U+202E) are
  ordinary characters: a term holding one matches only names holding it.
* **MariaDB** (measured on 10.11.19; the demo tables use AzerothCore's ``utf8mb4_unicode_ci``):
  U+200B and U+202E have no weight of their own: a term of either one matches names holding
  EITHER one (SQLite: only that one); a name holding one is still not found by the term without
  it. ``LOWER(name) = LOWER(:term)`` uses the column collation, so the "exact" flag also ignores
  trailing spaces (PAD SPACE), folds ligatures and skips ignorable characters. Length is
  ``char_length()``; name order is ``COLLATE utf8mb4_bin`` (the column's ``<charset>_bin``: code
  points). Each name column's actual collation is read from ``information_schema.COLUMNS``.
  Letters newer than its Unicode data (UCA 4.0.0) get no case folding, and it folds a few variant
  forms (``ς``, ``ſ``) that the key does not (:mod:`vba_assets.evaluation.search_key_parity`
  measures it on any server). A CHAR column drops trailing spaces from the stored names, which
  SQLite keeps.

The engine, the mapping of driver errors (an outage raises
:class:`~vba_assets.errors.ResearchUnavailable`, a write :class:`~vba_assets.errors.ReadOnlyViolation`)
and the reflected schema behind the snapshot binding are :class:`WorldDatabase`'s base,
:class:`~resources.world_db.connection.WorldConnection`.
"""

import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Literal

from sqlalchemy import Select
from sqlalchemy.engine import make_url

from resources.world_db.connection import WorldConnection
from resources.world_db.query import (
    case_note,
    coerce_identity,
    coverage_notes,
    exact_coverage_notes,
    exact_statement,
    fetch_statement,
    identity_coverage_notes,
    indexed_exact_statement,
    indexed_search_statement,
    scalar,
    search_pattern,
    search_statement,
    to_row,
    validate_limit,
    validate_term,
)
from resources.world_db.relations import (
    relation_coverage_notes,
    relation_statement,
    to_relation_row,
)
from resources.world_db.schema import check_allowlisted
from resources.world_db.trigram import describe as describe_index
from resources.world_db.trigram import index_pattern
from resources.world_db.zones import to_zone_row, zone_coverage_notes, zone_statement
from vba_assets.config import DatabaseConfig, ProjectConfig
from vba_assets.domain.catalog.search_key import search_key
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.world import (
    CatalogRow,
    RelationResult,
    SearchResult,
    SnapshotBinding,
    ZoneResult,
)
from vba_assets.errors import ConfigError, ErrorCode, InputError


class WorldDatabase(WorldConnection):
    """The read-only world database resource. Connects lazily; thread-safe.

    ``use_index``: use the SQLite trigram indexes when the file has them (default on; off, every
    contains search scans: the oracle the index's tests compare with). It never changes a
    result, only how fast it comes.
    """

    def __init__(
        self,
        database: DatabaseConfig,
        catalogs: list[CatalogConfig],
        *,
        use_index: bool = True,
    ) -> None:
        check_allowlisted(database, catalogs)
        names = [catalog.name for catalog in catalogs]
        if len(set(names)) != len(names):
            raise ConfigError(ErrorCode.CONFIG_INVALID, "duplicate catalog name", key="catalogs")
        super().__init__(database, {catalog.name: catalog for catalog in catalogs})
        self._use_index = use_index
        #: Built statements by (kind, catalog, indexed): SQLAlchemy then reuses their cache keys.
        self._statements: dict[tuple[str, str, bool], Select[Any]] = {}

    @classmethod
    def from_config(cls, config: ProjectConfig, *, use_index: bool = True) -> "WorldDatabase":
        """The world database of a project configuration."""
        return cls(config.database, config.catalogs, use_index=use_index)

    def __enter__(self) -> "WorldDatabase":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # --- public API -------------------------------------------------------------------------

    def snapshot_binding(self) -> SnapshotBinding:
        """Operator label + fingerprint of every allowlisted table (computed once, cached)."""
        with self._guard("snapshot_binding"):
            return self._schema().binding

    def contains_search(self, catalog: str, term: str, limit: int) -> SearchResult:
        """Literal contains search on ``catalog``'s name column; asks for ``limit + 1`` rows."""
        return self._name_query("contains", catalog, term, limit)

    def exact_name_search(self, catalog: str, term: str, limit: int) -> SearchResult:
        """Literal exact-name query on ``catalog``'s name column (protocol v6: it completes a
        truncated contains search); asks for ``limit + 1`` rows. Same comparison, order (less
        the exact-first key), trigram pre-filter and read-only connection as
        :meth:`contains_search`."""
        return self._name_query("exact", catalog, term, limit)

    def _name_query(
        self, kind: Literal["contains", "exact"], catalog: str, term: str, limit: int
    ) -> SearchResult:
        """One literal, parameterized name query of ``kind`` on ``catalog``: the contains
        search (``LIKE`` with ``%``/``_`` escaped) or the exact-name query, through the trigram
        index when the catalog has one and the term is long enough."""
        config = self._catalog_config(catalog)
        validate_term(term)
        validate_limit(limit)
        exact = kind == "exact"
        with self._guard("exact_name_search" if exact else "contains_search"):
            schema = self._schema()
            bound = schema.catalogs[catalog]
            parameters: dict[str, Any] = {"term": term, "row_limit": limit + 1}
            if not exact:
                parameters["pattern"] = search_pattern(term, self._backend)
            index = schema.indexes.get(catalog) if self._use_index else None
            prefilter = index_pattern(search_key(term)) if index is not None else None
            if prefilter is not None:
                parameters["index_pattern"] = prefilter
            key = (kind, catalog, prefilter is not None)
            statement = self._statements.get(key)
            if statement is None:
                if index is not None and prefilter is not None:
                    build_indexed = indexed_exact_statement if exact else indexed_search_statement
                    statement = build_indexed(bound, index, schema.charsets)
                else:
                    build_plain = exact_statement if exact else search_statement
                    statement = build_plain(bound, self._backend, schema.charsets)
                self._statements[key] = statement
            records, sql_text, sent, elapsed_ms = self._execute_recorded(statement, parameters)
        truncated = len(records) > limit
        notes = exact_coverage_notes if exact else coverage_notes
        return SearchResult(
            catalog=catalog,
            entity_type=config.entity_type,
            catalog_kind=config.kind,
            term=term,
            sql=sql_text,
            parameters=sent,
            snapshot=schema.binding,
            row_limit=limit,
            truncated=truncated,
            rows=[to_row(bound, record) for record in records[:limit]],
            elapsed_ms=elapsed_ms,
            coverage_notes=notes(bound, self._backend, schema.binding, limit, truncated),
        )

    def _execute_recorded(
        self, statement: Any, parameters: dict[str, Any]
    ) -> tuple[Sequence[Any], str, dict[str, Any], float]:
        """Run a catalog statement; its rows, the exact SQL and parameters sent (as JSON
        scalars, for the capture) and the elapsed milliseconds."""
        started = time.perf_counter()
        with self._engine().connect() as connection:
            result = connection.execute(statement, parameters)
            records = result.all()
            sql_text = str(result.context.statement)
            sent = dict(result.context.compiled_parameters[0])
        elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
        return records, sql_text, {key: scalar(v) for key, v in sent.items()}, elapsed_ms

    def fetch_by_identity(self, catalog: str, identity: int | str) -> list[CatalogRow]:
        """Every row of ``catalog`` with this identity and a non-NULL name, in key order."""
        self._catalog_config(catalog)
        with self._guard("fetch_by_identity"):
            schema = self._schema()
            bound = schema.catalogs[catalog]
            value = coerce_identity(bound, identity)
            statement = fetch_statement(bound, self._backend, schema.charsets)
            with self._engine().connect() as connection:
                records = connection.execute(statement, {"identity": value}).all()
        return [to_row(bound, record) for record in records]

    def identity_search(
        self, catalog: str, identity: int | str, term: str, limit: int
    ) -> SearchResult:
        """Fetch by identity, recorded like a contains search (an identity-reference capture).

        Every row of ``catalog`` with ``identity`` and a non-NULL name, in key order (one per
        locale in a localized catalog): the rows are bounded by the identity, never cut, so
        ``truncated`` is false. ``term`` is recorded as the search's term and ``limit`` as its
        ``row_limit`` (the policy's ``max_candidates``, for provenance checks).
        """
        config = self._catalog_config(catalog)
        validate_term(term)
        validate_limit(limit)
        with self._guard("identity_search"):
            schema = self._schema()
            bound = schema.catalogs[catalog]
            value = coerce_identity(bound, identity)
            statement = fetch_statement(bound, self._backend, schema.charsets)
            records, sql_text, sent, elapsed_ms = self._execute_recorded(
                statement, {"identity": value}
            )
        return SearchResult(
            catalog=catalog,
            entity_type=config.entity_type,
            catalog_kind=config.kind,
            term=term,
            sql=sql_text,
            parameters=sent,
            snapshot=schema.binding,
            row_limit=limit,
            truncated=False,
            rows=[to_row(bound, record) for record in records],
            elapsed_ms=elapsed_ms,
            coverage_notes=identity_coverage_notes(bound, self._backend, schema.binding, value),
            identity=value,
        )

    def quest_relations(self, identities: Sequence[int], limit: int) -> RelationResult | None:
        """The quests ``identities`` start or end, with every title (grounded tie-breaks,
        protocol v6; :mod:`resources.world_db.relations`); None when the relation and quest
        tables are not all allowlisted."""
        found = self._identity_facts("quest_relations", relation_statement, identities, limit)
        if found is None:
            return None
        records, sql_text, sent, binding, truncated = found
        return RelationResult(
            identities=sorted({int(identity) for identity in identities}),
            sql=sql_text,
            parameters=sent,
            snapshot=binding,
            row_limit=limit,
            truncated=truncated,
            rows=[to_relation_row(record) for record in records[:limit]],
            coverage_notes=relation_coverage_notes(binding, limit, truncated),
        )

    def zone_markers(self, identities: Sequence[int], limit: int) -> ZoneResult | None:
        """The zones ``identities`` have spawn markers in, with every zone name (grounded zone
        tie-breaks, protocol v6; :mod:`resources.world_db.zones`); None when the marker and zone
        name tables are not both allowlisted."""
        found = self._identity_facts("zone_markers", zone_statement, identities, limit)
        if found is None:
            return None
        records, sql_text, sent, binding, truncated = found
        return ZoneResult(
            identities=sorted({int(identity) for identity in identities}),
            sql=sql_text,
            parameters=sent,
            snapshot=binding,
            row_limit=limit,
            truncated=truncated,
            rows=[to_zone_row(record) for record in records[:limit]],
            coverage_notes=zone_coverage_notes(binding, limit, truncated),
        )

    def _identity_facts(
        self,
        operation: str,
        statement_for: Callable[[Any], Any],
        identities: Sequence[int],
        limit: int,
    ) -> tuple[Sequence[Any], str, dict[str, Any], Any, bool] | None:
        """One literal, parameterized query keyed by ``identities`` (at most ``limit`` rows, one
        more fetched to tell truncation): its records, SQL text, parameters as sent, snapshot
        binding and whether it was truncated; None without identities or when ``statement_for``
        finds its tables not allowlisted."""
        validate_limit(limit)
        wanted = sorted({int(identity) for identity in identities})
        if not wanted:
            return None
        with self._guard(operation):
            schema = self._schema()
            statement = statement_for(schema.tables)
            if statement is None:
                return None
            records, sql_text, sent, _ = self._execute_recorded(
                statement, {"identities": wanted, "row_limit": limit + 1}
            )
        return records, sql_text, sent, schema.binding, len(records) > limit

    def describe(self) -> dict[str, Any]:
        """Backend, database, server version, each catalog's name-column collation; no secrets."""
        with self._guard("describe"):
            schema = self._schema()
        url = make_url(self._database.url) if not self._database.is_embedded else None
        database_name = (
            str(self._sqlite_path)
            if self._backend == "sqlite"
            else str(url.database if url else "")
        )
        return {
            "backend": self._backend,
            "embedded_demo": self._database.is_embedded,
            "database": database_name,
            "host": url.host if url is not None and self._backend == "mysql" else None,
            "server_version": schema.server_version,
            "snapshot_label": schema.binding.label,
            "schema_fingerprint": schema.binding.schema_fingerprint,
            "allowlist": list(self._database.allowlist),
            "timeouts_s": {
                "connect": self._database.connect_timeout_s,
                "read": self._database.read_timeout_s,
                "statement": self._database.statement_timeout_s,
            },
            "catalogs": [
                {
                    "name": name,
                    "entity_type": bound.config.entity_type,
                    "kind": bound.config.kind,
                    "table": bound.table.name,
                    "identity_column": bound.identity.name,
                    "name_column": bound.name.name,
                    "data_columns": [key for key, _ in bound.data],
                    "collation": bound.name_collation
                    if self._backend == "mysql"
                    else "BINARY (ordering); names compared by vba_search_key()",
                    "case_and_accent": case_note(bound, self._backend),
                    "search_index": describe_index(schema.indexes.get(name), self._use_index),
                }
                for name, bound in schema.catalogs.items()
            ],
        }

    def close(self) -> None:
        """Release every pooled connection (a later call reconnects)."""
        with self._lock:
            if self._engine_instance is not None:
                self._engine_instance.dispose()
                self._engine_instance = None

    # --- plumbing -----------------------------------------------------------------------------

    def _catalog_config(self, catalog: object) -> CatalogConfig:
        config = self._catalogs.get(catalog) if isinstance(catalog, str) else None
        if config is None:
            shown = repr(catalog)[:80]
            raise InputError(
                ErrorCode.CATALOG_UNKNOWN,
                f"unknown catalog {shown}; configured catalogs: "
                f"{', '.join(sorted(self._catalogs))}",
                catalog=shown,
                known=sorted(self._catalogs),
            )
        return config
