"""Read-only SQLite engines for the world database (ARCHITECTURE 10 and 14).

Read-only is enforced by the connection itself, in three layers:

1. the file is opened as ``file:<path>?mode=ro`` (``uri=True``), so SQLite never creates or
   writes it; a missing file fails instead of being created;
2. ``PRAGMA query_only = ON``;
3. an authorizer (``set_authorizer``) that allows only ``SELECT``, reads of the allowlisted tables
   (and of the schema tables reflection needs), SQL functions other than ``load_extension``,
   ``BEGIN``/``ROLLBACK``, and the read-only PRAGMAs SQLAlchemy reflection uses. Everything else is
   denied at prepare time: INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, ``ATTACH`` (``mode=ro``
   alone still lets ``ATTACH`` create and write a NEW file, ARCHITECTURE 14), ``VACUUM INTO``
   (which starts with an ``ATTACH``), PRAGMA writes, savepoints.

FTS5 virtual tables (the demo DB's trigram indexes, :mod:`resources.world_db.trigram`): when a
connection first uses one, FTS5's constructor declares its columns, and SQLite 3.40 reports that
declaration to the authorizer as an UPDATE of ``sqlite_master`` (compiled, never run), which the
authorizer rightly denies. So :func:`open_read_only` connects the named index tables (``SELECT``
through each, reading the index structure) BEFORE it installs the authorizer, and the authorizer
stays strict: no write action is ever allowed. A virtual table stays connected for the life of
the connection; only a schema change (impossible on the read-only, never-rewritten demo file)
would reconnect it, and that would fail loudly under the authorizer, never write.

Every connection defines one SQL function, ``vba_search_key(text)``
(:func:`vba_assets.domain.catalog.search_key.search_key`, deterministic): the contains search
compares names and terms by that key, case and accents aside (:mod:`resources.world_db.query`).

A progress handler enforces the statement time limit: each statement gets a deadline of
``statement_timeout_s`` when SQLAlchemy sends it, and SQLite aborts it ("interrupted") once the
deadline has passed. The busy timeout (waiting on another process's lock) is the same value.
Every read runs inside an explicit ``BEGIN`` that is rolled back when the connection is returned.
"""

import math
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Connection
from sqlalchemy.pool import QueuePool

from vba_assets.domain.catalog.search_key import SEARCH_KEY_FUNCTION, sql_search_key

#: PRAGMAs whose argument is a table or index name; they only read the schema.
READ_PRAGMAS_WITH_ARGUMENT = frozenset(
    {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"}
)
#: PRAGMAs allowed only as a read (no ``= value``).
#: (``application_id`` and ``user_version`` tell whether the demo DB builder made the file;
#: FTS5 reads ``data_version``.)
READ_PRAGMAS_WITHOUT_ARGUMENT = frozenset(
    {"query_only", "read_uncommitted", "encoding", "application_id", "user_version", "data_version"}
)
#: Schema tables that reflection reads.
SCHEMA_TABLES = frozenset(
    {"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"}
)
#: SQLite virtual-machine instructions between two deadline checks.
PROGRESS_INTERVAL = 1000

Authorizer = Callable[[int, str | None, str | None, str | None, str | None], int]


class _Deadline:
    """The current statement's deadline (``time.monotonic()`` seconds); infinite when idle."""

    def __init__(self) -> None:
        self.at = math.inf

    def passed(self) -> int:
        """Progress-handler callback: nonzero aborts the running statement."""
        return 1 if time.monotonic() > self.at else 0


class GuardedConnection(sqlite3.Connection):
    """A ``sqlite3`` connection that carries its statement deadline."""

    statement_deadline: _Deadline


def read_only_authorizer(readable_tables: Iterable[str]) -> Authorizer:
    """An authorizer that allows only reads of ``readable_tables`` (case-insensitive)."""
    readable = frozenset(name.lower() for name in readable_tables) | SCHEMA_TABLES

    def authorize(
        action: int, arg1: str | None, arg2: str | None, db_name: str | None, source: str | None
    ) -> int:
        del db_name, source
        if action == sqlite3.SQLITE_SELECT:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:
            return sqlite3.SQLITE_OK if (arg1 or "").lower() in readable else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION:
            denied = (arg2 or "").lower() == "load_extension"
            return sqlite3.SQLITE_DENY if denied else sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA:
            pragma = (arg1 or "").lower()
            if pragma in READ_PRAGMAS_WITH_ARGUMENT:
                return sqlite3.SQLITE_OK
            if pragma in READ_PRAGMAS_WITHOUT_ARGUMENT and arg2 is None:
                return sqlite3.SQLITE_OK
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_TRANSACTION and arg1 in ("BEGIN", "ROLLBACK"):
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    return authorize


def read_only_uri(path: Path) -> str:
    """The ``file:`` URI that opens ``path`` read-only (never creates it)."""
    return f"file:{quote(str(path.resolve()))}?mode=ro"


def _connect_virtual_tables(connection: sqlite3.Connection, tables: Iterable[str]) -> None:
    """Connect each FTS5 table (and read its structure) before the authorizer exists.

    A table the file does not have, or an SQLite without FTS5, is skipped: the world DB then finds
    no usable index (``trigram.discover``) and scans.
    """
    for name in tables:
        quoted = '"' + name.replace('"', '""') + '"'
        try:
            connection.execute(
                f"SELECT rowid FROM {quoted} WHERE {quoted} MATCH ? LIMIT 1", ("vba",)
            )
        except sqlite3.Error:
            continue


def open_read_only(
    path: Path,
    readable_tables: Iterable[str],
    statement_timeout_s: float,
    virtual_tables: Iterable[str] = (),
) -> GuardedConnection:
    """Open one guarded, read-only ``sqlite3`` connection (the engine's ``creator``).

    ``virtual_tables``: FTS5 tables to connect before the authorizer is installed (see above).
    """
    connection = sqlite3.connect(
        read_only_uri(path),
        uri=True,
        timeout=statement_timeout_s,
        isolation_level=None,
        check_same_thread=False,
        factory=GuardedConnection,
    )
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.create_function(SEARCH_KEY_FUNCTION, 1, sql_search_key, deterministic=True)
        _connect_virtual_tables(connection, virtual_tables)
        connection.set_authorizer(read_only_authorizer(readable_tables))
        deadline = _Deadline()
        connection.statement_deadline = deadline
        connection.set_progress_handler(deadline.passed, PROGRESS_INTERVAL)
    except BaseException:
        connection.close()
        raise
    return connection


def _deadline_of(connection: Connection) -> _Deadline | None:
    dbapi_connection = connection.connection.dbapi_connection
    return getattr(dbapi_connection, "statement_deadline", None)


def create_sqlite_engine(
    path: Path,
    readable_tables: Iterable[str],
    statement_timeout_s: float,
    virtual_tables: Iterable[str] = (),
) -> Engine:
    """A SQLAlchemy engine whose every connection is opened by :func:`open_read_only`."""
    tables = tuple(readable_tables)
    connect_first = tuple(virtual_tables)

    def creator() -> GuardedConnection:
        return open_read_only(path, tables, statement_timeout_s, connect_first)

    engine = create_engine(
        "sqlite+pysqlite://", creator=creator, poolclass=QueuePool, pool_size=2, max_overflow=2
    )

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        # pysqlite in isolation_level=None mode never begins on its own: reads get one snapshot.
        connection.exec_driver_sql("BEGIN")

    @event.listens_for(engine, "before_cursor_execute")
    def _arm_deadline(connection: Connection, *args: Any) -> None:
        deadline = _deadline_of(connection)
        if deadline is not None:
            deadline.at = time.monotonic() + statement_timeout_s

    @event.listens_for(engine, "rollback")
    def _disarm_deadline(connection: Connection) -> None:
        if not connection.invalidated:
            deadline = _deadline_of(connection)
            if deadline is not None:
                deadline.at = math.inf

    return engine
