"""The connection side of the world database: engine, driver-error mapping, reflected schema.

:class:`WorldConnection` is the part of :class:`~resources.world_db.WorldDatabase` that talks to
the backend: it makes the read-only engine lazily (:mod:`resources.world_db.sqlite`,
:mod:`resources.world_db.mysql`), turns driver exceptions into the project's typed errors, and
reflects the allowlisted tables once into a :class:`ReflectedSchema` (bound catalogs, name-column
charsets, trigram indexes, server version and the :class:`SnapshotBinding`). A SQLite file's
reflection is shared by the instances of one process while the file is unchanged.

Failures: an outage (refused connection, timeouts, a lost connection, a missing or locked SQLite
file, a statement over ``statement_timeout_s``) raises
:class:`~vba_assets.errors.ResearchUnavailable`; any write that reaches the driver raises
:class:`~vba_assets.errors.ReadOnlyViolation` (:mod:`resources.world_db.errors`). Neither message
ever contains the password.
"""

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, MetaData, Table, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import ExceptionContext, make_url

from resources.world_db.errors import classify_mysql, classify_sqlite, operation, unavailable
from resources.world_db.mysql import column_charsets, create_mysql_engine
from resources.world_db.schema import BoundCatalog, Charsets, bind_catalogs, schema_fingerprint
from resources.world_db.sqlite import create_sqlite_engine
from resources.world_db.trigram import TrigramIndex, discover, readable_tables, virtual_tables
from vba_assets.config import DatabaseConfig
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.world import SnapshotBinding
from vba_assets.errors import ConfigError, ErrorCode, ReadOnlyViolation, VbaError


@dataclass(frozen=True)
class ReflectedSchema:
    """What reflecting the allowlisted tables found (once per instance, or per unchanged file)."""

    catalogs: dict[str, BoundCatalog]
    charsets: Charsets
    binding: SnapshotBinding
    server_version: str
    #: Usable trigram indexes by catalog name (SQLite files built with them only).
    indexes: dict[str, TrigramIndex]
    #: Every reflected allowlisted table by its allowlist name (the relation queries use them).
    tables: dict[str, Table] = field(default_factory=dict)


#: Reflected schemas of unchanged SQLite files, shared by the instances of one process.
_SQLITE_SCHEMAS: dict[tuple[object, ...], ReflectedSchema] = {}


class WorldConnection:
    """Engine, error mapping and reflected schema of a :class:`~resources.world_db.WorldDatabase`.

    Nothing connects before the first operation needs the engine.
    """

    def __init__(self, database: DatabaseConfig, catalogs: dict[str, CatalogConfig]) -> None:
        self._database = database
        self._catalogs = catalogs
        is_sqlite = database.is_embedded or database.url.startswith("sqlite")
        #: ``"sqlite"`` or ``"mysql"``.
        self._backend = "sqlite" if is_sqlite else "mysql"
        self._lock = threading.RLock()
        self._engine_instance: Engine | None = None
        self._schema_instance: ReflectedSchema | None = None
        #: The SQLite file, known once the engine exists (None on MariaDB/MySQL).
        self._sqlite_path: Path | None = None

    def _sqlite_file(self) -> Path:
        if self._database.is_embedded:
            from vba_assets.worlddata.build import ensure_demo_database

            return Path(ensure_demo_database())
        database = make_url(self._database.url).database
        if not database or database == ":memory:" or database.startswith("file:"):
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                "database.url must name a SQLite file: sqlite:///path/to/world.sqlite",
                key="database.url",
            )
        return Path(database)

    def _engine(self) -> Engine:
        with self._lock:
            if self._engine_instance is None:
                if self._backend == "sqlite":
                    self._sqlite_path = self._sqlite_file()
                    engine = create_sqlite_engine(
                        self._sqlite_path,
                        [*self._database.allowlist, *readable_tables()],
                        self._database.statement_timeout_s,
                        virtual_tables(),
                    )
                else:
                    engine = create_mysql_engine(self._database)
                event.listen(engine, "handle_error", self._map_driver_error)
                self._engine_instance = engine
            return self._engine_instance

    def _classify(self, error: BaseException, *, during_statement: bool) -> VbaError | None:
        if self._backend == "sqlite":
            return classify_sqlite(error, statement_timeout_s=self._database.statement_timeout_s)
        return classify_mysql(
            error, secret=self._database.password(), during_statement=during_statement
        )

    def _map_driver_error(self, context: ExceptionContext) -> BaseException | None:
        """``handle_error`` hook: the driver's exception becomes a typed project error."""
        if context.original_exception is None:
            return None
        return self._classify(
            context.original_exception, during_statement=context.statement is not None
        )

    @contextmanager
    def _guard(self, name: str) -> Iterator[None]:
        with operation(name):
            try:
                yield
            except VbaError:
                raise
            except sa_exc.DBAPIError as exc:
                original: BaseException = exc.orig if exc.orig is not None else exc
                mapped = self._classify(original, during_statement=exc.statement is not None)
                if mapped is None:
                    mapped = unavailable(
                        self._backend,
                        f"{type(original).__name__}: {original}",
                        self._database.password(),
                    )
                raise mapped from None
            except (sa_exc.TimeoutError, sa_exc.DisconnectionError, sqlite3.Error, OSError) as exc:
                raise unavailable(
                    self._backend, f"{type(exc).__name__}: {exc}", self._database.password()
                ) from None

    def _schema(self) -> ReflectedSchema:
        with self._lock:
            if self._schema_instance is None:
                key = self._sqlite_schema_key()
                cached = _SQLITE_SCHEMAS.get(key) if key else None
                self._schema_instance = cached or self._load_schema()
                if key:
                    _SQLITE_SCHEMAS[key] = self._schema_instance
            return self._schema_instance

    def _sqlite_schema_key(self) -> tuple[object, ...] | None:
        """Reflection is reused across instances only for an unchanged SQLite file.

        The key holds the file's identity and modification stamp, so any schema change (which
        rewrites the file) reflects again; a server database is always reflected per instance.
        """
        if self._backend != "sqlite":
            return None
        self._engine()
        if self._sqlite_path is None or not self._sqlite_path.is_file():
            return None  # let the connection report the real error
        stat = self._sqlite_path.stat()
        return (
            str(self._sqlite_path.resolve()),
            stat.st_ino,
            stat.st_size,
            stat.st_mtime_ns,
            self._database.model_dump_json(),
            tuple(c.model_dump_json() for c in self._catalogs.values()),
        )

    def _load_schema(self) -> ReflectedSchema:
        engine = self._engine()
        metadata = MetaData()
        tables: dict[str, Table] = {}
        missing: list[str] = []
        with engine.connect() as connection:
            for name in self._database.allowlist:
                try:
                    tables[name] = Table(
                        name, metadata, autoload_with=connection, resolve_fks=False
                    )
                except sa_exc.NoSuchTableError:
                    missing.append(name)
                except ReadOnlyViolation as denied:
                    raise ConfigError(
                        ErrorCode.CONFIG_INVALID,
                        f"the database account may not read allowlisted table {name!r} "
                        f"({denied.detail.get('reason')}); grant it SELECT",
                        key="database.allowlist",
                        table=name,
                    ) from None
            charsets: Charsets = {}
            if self._backend == "mysql" and not missing:
                charsets = column_charsets(connection, self._database.allowlist)
        if missing:
            raise ConfigError(
                ErrorCode.IDENTIFIER_NOT_IN_SCHEMA,
                f"allowlisted table(s) not found in the database (or not visible to the account): "
                f"{', '.join(missing)}",
                key="database.allowlist",
                tables=missing,
            )
        catalogs = bind_catalogs(list(self._catalogs.values()), tables, charsets)
        indexes: dict[str, TrigramIndex] = {}
        if self._backend == "sqlite":
            with engine.connect() as connection:
                indexes = discover(connection, catalogs)
        binding = SnapshotBinding(
            label=self._database.snapshot_label,
            backend=self._backend,
            schema_fingerprint=schema_fingerprint(tables, engine.dialect),
        )
        version = engine.dialect.server_version_info or ()
        server = ".".join(str(part) for part in version)
        if self._backend == "mysql":
            server = (
                f"{'MariaDB' if getattr(engine.dialect, 'is_mariadb', False) else 'MySQL'} {server}"
            )
        else:
            server = f"SQLite {sqlite3.sqlite_version}"
        return ReflectedSchema(
            catalogs=catalogs,
            charsets=charsets,
            binding=binding,
            server_version=server,
            indexes=indexes,
            tables=tables,
        )
