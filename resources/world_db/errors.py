"""Maps world-database driver errors to the project's typed errors (ARCHITECTURE 9, 10).

* a write, ``ATTACH``, DDL or other non-read operation refused by the connection ->
  :class:`~vba_assets.errors.ReadOnlyViolation` (``READ_ONLY_VIOLATION``);
* connection refused, timeouts, lost connections, a missing or locked SQLite file, a statement
  over its time limit -> :class:`~vba_assets.errors.ResearchUnavailable` (``RESEARCH_UNAVAILABLE``).

Every reason text passes through :func:`redact`, so the database password never reaches an
exception, a log line or an artifact. The public operation that was running
(``contains_search``, ``fetch_by_identity``...) is tracked in a context variable so the
engine-level error hook can name it.
"""

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from vba_assets.errors import (
    ErrorCode,
    ReadOnlyViolation,
    ResearchUnavailable,
    VbaError,
)

_operation: ContextVar[str] = ContextVar("world_db_operation", default="engine")

#: SQLite primary result codes (https://sqlite.org/rescode.html).
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_NOMEM = 3, 5, 6, 7
_SQLITE_READONLY, _SQLITE_INTERRUPT, _SQLITE_IOERR, _SQLITE_CORRUPT = 8, 9, 10, 11
_SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_AUTH, _SQLITE_NOTADB = 13, 14, 23, 26
_SQLITE_OUTAGE = {
    _SQLITE_PERM: "permission denied on the database file",
    _SQLITE_BUSY: "the database file is locked by another process (busy timeout expired)",
    _SQLITE_LOCKED: "the database is locked",
    _SQLITE_NOMEM: "out of memory",
    _SQLITE_IOERR: "disk I/O error",
    _SQLITE_CORRUPT: "the database file is corrupt",
    _SQLITE_FULL: "the disk is full",
    _SQLITE_CANTOPEN: "cannot open the database file (missing or unreadable)",
    _SQLITE_NOTADB: "the file is not a SQLite database",
}

#: MySQL/MariaDB server errors raised when a session tries to change something.
_MYSQL_WRITE_DENIED = {
    1044,  # ER_DBACCESS_DENIED_ERROR (e.g. CREATE DATABASE)
    1045,  # ER_ACCESS_DENIED_ERROR: a GRANT without privilege (at login it is an outage)
    1142,  # ER_TABLEACCESS_DENIED_ERROR (INSERT/UPDATE/DELETE/CREATE/DROP command denied)
    1143,  # ER_COLUMNACCESS_DENIED_ERROR
    1211,  # ER_NO_PERMISSION_TO_CREATE_USER
    1227,  # ER_SPECIFIC_ACCESS_DENIED_ERROR (needs SUPER, ...)
    1290,  # ER_OPTION_PREVENTS_STATEMENT (--read-only)
    1370,  # ER_PROCACCESS_DENIED_ERROR
    1792,  # ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
}
#: Server-side statement limits: MariaDB max_statement_time, MySQL max_execution_time, kills.
_MYSQL_STATEMENT_LIMIT = {1969, 3024, 1317, 1927}


@contextmanager
def operation(name: str) -> Iterator[None]:
    """Name the public operation running in this context (used in error details)."""
    token = _operation.set(name)
    try:
        yield
    finally:
        _operation.reset(token)


def current_operation() -> str:
    """The public operation running in this context, ``engine`` outside any."""
    return _operation.get()


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``."""
    return text.replace(secret, "***") if secret else text


def unavailable(backend: str, reason: str, secret: str | None = None) -> ResearchUnavailable:
    """A :class:`ResearchUnavailable` naming the backend, the operation and the reason."""
    reason = redact(reason, secret)
    operation_name = current_operation()
    return ResearchUnavailable(
        ErrorCode.RESEARCH_UNAVAILABLE,
        f"world database ({backend}) unavailable during {operation_name}: {reason}",
        backend=backend,
        operation=operation_name,
        reason=reason,
    )


def read_only_violation(backend: str, reason: str, secret: str | None = None) -> ReadOnlyViolation:
    """A :class:`ReadOnlyViolation` naming the backend, the operation and the reason."""
    reason = redact(reason, secret)
    operation_name = current_operation()
    return ReadOnlyViolation(
        ErrorCode.READ_ONLY_VIOLATION,
        f"the world database ({backend}) is read-only; refused: {reason}",
        backend=backend,
        operation=operation_name,
        reason=reason,
    )


def classify_sqlite(error: BaseException, *, statement_timeout_s: float) -> VbaError | None:
    """The typed error for a ``sqlite3`` exception, or None when it is not an outage or a write."""
    if not isinstance(error, sqlite3.Error):
        return None
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(error)
    if primary == _SQLITE_AUTH or text.startswith(("not authorized", "authorization denied")):
        return read_only_violation("sqlite", f"denied by the read-only authorizer ({text})")
    if primary == _SQLITE_READONLY or "readonly database" in text:
        return read_only_violation("sqlite", text)
    if primary == _SQLITE_INTERRUPT or text == "interrupted":
        return unavailable(
            "sqlite", f"statement time limit of {statement_timeout_s:g} s exceeded (interrupted)"
        )
    if primary in _SQLITE_OUTAGE:
        return unavailable("sqlite", f"{_SQLITE_OUTAGE[primary]} ({text})")
    if isinstance(error, sqlite3.OperationalError) and "locked" in text:
        return unavailable("sqlite", text)
    return None


def classify_mysql(
    error: BaseException, *, secret: str | None, during_statement: bool
) -> VbaError | None:
    """The typed error for a PyMySQL exception, or None when it is not an outage or a write."""
    try:
        import pymysql
    except ImportError:  # pragma: no cover - PyMySQL is a declared dependency
        return None
    if not isinstance(error, pymysql.err.MySQLError):
        return None
    args = error.args
    errno = args[0] if args and isinstance(args[0], int) else None
    message = str(args[1]) if len(args) > 1 else str(error)
    text = redact(f"({errno}) {message}" if errno is not None else message, secret)
    if errno in _MYSQL_WRITE_DENIED and during_statement:
        return read_only_violation("mysql", text)
    if errno in _MYSQL_STATEMENT_LIMIT:
        return unavailable("mysql", f"statement time limit exceeded or statement killed: {text}")
    if isinstance(error, pymysql.err.OperationalError | pymysql.err.InterfaceError):
        return unavailable("mysql", text)
    if errno in _MYSQL_WRITE_DENIED:
        return unavailable("mysql", text)
    return None
