"""Read-only MariaDB/MySQL engines (PyMySQL) for the world database (ARCHITECTURE 10 and 14).

* The password comes from ``database.password()`` (an environment variable) and is passed in
  ``connect_args``: never in the URL string, so it never appears in a logged or printed URL.
* ``connect_timeout`` bounds only the TCP connect; ``read_timeout`` and ``write_timeout`` bound
  every socket read and write afterwards (handshake included): a frozen server cannot hang a run.
* Each new connection runs ``SET SESSION TRANSACTION READ ONLY`` and a statement time limit:
  ``SET SESSION max_statement_time = <s>`` on MariaDB (``max_execution_time`` in ms on MySQL).
* The operator's account should hold SELECT on the allowlisted tables only (the real guarantee).
* ``local_infile`` is off: the client never offers the server a local file, and a ``LOAD DATA`` /
  ``LOAD XML`` statement is refused before it is sent, as ``READ_ONLY_VIOLATION`` (not as an
  outage: MariaDB answers a disabled local infile with an error the driver calls operational).
"""

import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Engine, column, create_engine, event, func, select, table
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.pool import ConnectionPoolEntry

from resources.world_db.errors import read_only_violation
from vba_assets.config import DatabaseConfig
from vba_assets.errors import ConfigError, ErrorCode

_CHARSET = re.compile(r"^[a-z0-9_]{1,64}$")


def mysql_url(database: DatabaseConfig) -> URL:
    """The configured URL, checked to carry no password."""
    url = make_url(database.url)
    if url.password is not None:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            "database.url must not contain a password; set database.password_env instead",
            key="database.url",
        )
    return url


def connect_arguments(database: DatabaseConfig) -> dict[str, Any]:
    """PyMySQL connect arguments: timeouts, utf8mb4 and the password from the environment."""
    arguments: dict[str, Any] = {
        "connect_timeout": database.connect_timeout_s,
        "read_timeout": database.read_timeout_s,
        "write_timeout": database.read_timeout_s,
        "charset": "utf8mb4",
        "local_infile": False,  # never hand the server a local file
    }
    if database.password_env:
        password = database.password()
        if password is None:
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                f"environment variable {database.password_env} (database.password_env) is not set",
                key="database.password_env",
            )
        arguments["password"] = password
    return arguments


def create_mysql_engine(database: DatabaseConfig) -> Engine:
    """A SQLAlchemy engine whose sessions are read-only and time-limited."""
    statement_timeout_s = database.statement_timeout_s
    engine = create_engine(
        mysql_url(database),
        connect_args=connect_arguments(database),
        pool_size=2,
        max_overflow=2,
        pool_recycle=1800,
        pool_timeout=database.read_timeout_s,
    )

    @event.listens_for(engine, "connect")
    def _read_only_session(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        server = str(dbapi_connection.get_server_info())
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SET SESSION TRANSACTION READ ONLY")
            # The LIKE escape clause is written as '\\': a server default of
            # NO_BACKSLASH_ESCAPES would change its meaning, so this session never uses it.
            cursor.execute("SET SESSION sql_mode = REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')")
            if "mariadb" in server.lower():
                cursor.execute("SET SESSION max_statement_time = %s", (statement_timeout_s,))
            else:
                milliseconds = max(1, round(statement_timeout_s * 1000))
                cursor.execute("SET SESSION max_execution_time = %s", (milliseconds,))
        finally:
            cursor.close()

    @event.listens_for(engine, "before_cursor_execute")
    def _refuse_file_loads(
        connection: Connection,
        cursor: Any,
        statement: str,
        parameters: Any,
        context: Any,
        executemany: bool,
    ) -> None:
        if _FILE_LOAD.match(statement):
            raise read_only_violation(
                "mysql", "LOAD DATA/LOAD XML would read a file into the database; refused"
            )

    return engine


#: A statement that loads a file, after any leading whitespace and comments.
_FILE_LOAD = re.compile(r"^(?:\s+|/\*.*?\*/|(?:--|#)[^\n]*\n)*LOAD\s", re.IGNORECASE | re.DOTALL)


def column_charsets(
    connection: Connection, tables: Iterable[str]
) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """``{(table, column): (character set, collation)}`` from ``information_schema.COLUMNS``."""
    columns = table(
        "COLUMNS",
        column("TABLE_SCHEMA"),
        column("TABLE_NAME"),
        column("COLUMN_NAME"),
        column("CHARACTER_SET_NAME"),
        column("COLLATION_NAME"),
        schema="information_schema",
    )
    statement = select(
        columns.c.TABLE_NAME,
        columns.c.COLUMN_NAME,
        columns.c.CHARACTER_SET_NAME,
        columns.c.COLLATION_NAME,
    ).where(func.database() == columns.c.TABLE_SCHEMA, columns.c.TABLE_NAME.in_(list(tables)))
    result: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for table_name, column_name, charset, collation in connection.execute(statement):
        result[(str(table_name).lower(), str(column_name).lower())] = (charset, collation)
    return result


def binary_collation(charset: str | None) -> str | None:
    """The binary (code-point order) collation of ``charset``, e.g. ``utf8mb4_bin``."""
    if charset is None or not _CHARSET.match(charset):
        return None
    return f"{charset}_bin"


def describe_collation(collation: str | None) -> str:
    """How a MariaDB/MySQL collation treats case and accents in ``=`` and ``LIKE``."""
    if collation is None:
        return "no collation reported (not a character column): values compare exactly"
    name = collation.lower()
    if name.endswith("_bin") or name == "binary":
        return f"collation {collation}: binary, case-sensitive and accent-sensitive"
    if "_ai_ci" in name:
        return f"collation {collation}: case-insensitive and accent-insensitive"
    if "_as_ci" in name:
        return f"collation {collation}: case-insensitive, accent-sensitive"
    if "_as_cs" in name or name.endswith("_cs"):
        return f"collation {collation}: case-sensitive"
    if name.endswith("_ci"):
        if "general" in name:
            detail = "in LIKE 'ß' also matches 's'"
        else:  # UCA-based (unicode_ci, unicode_520_ci...): measured on MariaDB 10.11
            detail = (
                "in LIKE 'ß' matches only 'ß' (not 'ss'), and zero-width/bidi controls such as "
                "U+200B and U+202E match one another"
            )
        return (
            f"collation {collation}: case-insensitive and accent-insensitive (e.g. 'emile' "
            f"matches 'Émile', 'ДИКИЙ' matches 'Дикий'); {detail}"
        )
    return f"collation {collation}: case and accent behaviour not classified by this project"
