"""Load the packaged world data into a MariaDB server and create the read-only account (CI).

``python -m vba_assets.worlddata.mariadb_load --socket /run/mysqld/mysqld.sock --database vba_world
--reader-user vba_reader --reader-password-env VBA_WORLD_DB_PASSWORD``

Connects as an administrator (default ``root``, unix-socket authentication) through the socket,
then:

1. drops and re-creates the database (utf8mb4 / utf8mb4_unicode_ci) and the tables of
   :mod:`vba_assets.worlddata.schema`, bulk-loads the packaged CSVs and checks the row counts;
2. re-creates the reader account at ``127.0.0.1`` and ``localhost`` with ``SELECT`` on exactly the
   world tables and nothing else;
3. revokes every grant of MariaDB's ``PUBLIC`` role (which, when present, gives every account write
   access to ``test``/``test_*`` databases: ARCHITECTURE 14). This is server-wide;
4. verifies the reader's grants and prints a summary. The password is never printed or logged.

Re-running it gives the same result (drop and reload). The database name may not be ``test`` or
``test_*`` nor a system schema.
"""

import argparse
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pymysql

from vba_assets.errors import ConfigError, ErrorCode, InputError, ResearchUnavailable, VbaError
from vba_assets.worlddata.packaged import iter_table_rows, load_manifest
from vba_assets.worlddata.schema import (
    WORLD_TABLE_NAMES,
    WORLD_TABLES,
    create_index_statements,
    create_table_statements,
    insert_statement,
    mariadb_dialect,
)

DEFAULT_SOCKET = "/run/mysqld/mysqld.sock"
DEFAULT_READER_HOSTS = ("127.0.0.1", "localhost")
_BATCH_ROWS = 5_000
_DATABASE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_USER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")
_RESERVED_DATABASES = {"mysql", "information_schema", "performance_schema", "sys"}
_RESERVED_USERS = {"root", "mysql", "mariadb.sys", "public"}
_HOST = re.compile(r"^[A-Za-z0-9.:_-]{1,255}$")


@dataclass
class LoadReport:
    """What one load did (no secrets)."""

    database: str
    row_counts: dict[str, int] = field(default_factory=dict)
    reader_accounts: list[str] = field(default_factory=list)
    public_grants_revoked: list[str] = field(default_factory=list)
    anonymous_accounts: list[str] = field(default_factory=list)


def validate_database_name(name: str) -> str:
    """Refuse names MariaDB's PUBLIC role or system schemas make unsafe."""
    if not _DATABASE_NAME.match(name):
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"database name {name!r} must match {_DATABASE_NAME.pattern}",
            key="database",
        )
    lowered = name.lower()
    if lowered == "test" or lowered.startswith("test_") or lowered in _RESERVED_DATABASES:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"database name {name!r} is not allowed: 'test'/'test_*' are writable by every account "
            "through the PUBLIC role, and system schemas are off limits",
            key="database",
        )
    return name


def validate_reader_user(name: str) -> str:
    """A plain account name that is not an administrative account."""
    if not _USER_NAME.match(name) or name.lower() in _RESERVED_USERS:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"reader user {name!r} must match {_USER_NAME.pattern} and not be an admin account",
            key="reader_user",
        )
    return name


def _quote(identifier: str) -> str:
    """Backtick-quote an identifier that already passed validation."""
    return "`" + identifier.replace("`", "``") + "`"


def _load_tables(cursor: Any, connection: Any, database: str) -> dict[str, int]:
    dialect = mariadb_dialect()
    manifest = load_manifest()
    cursor.execute(f"DROP DATABASE IF EXISTS {_quote(database)}")
    cursor.execute(
        f"CREATE DATABASE {_quote(database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
    )
    cursor.execute(f"USE {_quote(database)}")
    for statement in create_table_statements(dialect):
        cursor.execute(statement)
    counts: dict[str, int] = {}
    for table in WORLD_TABLES:
        expected = int(manifest["tables"][table.name]["rows"])
        sql = insert_statement(table, dialect)
        batch: list[tuple[Any, ...]] = []
        for row in iter_table_rows(table, expected_rows=expected):
            batch.append(row)
            if len(batch) >= _BATCH_ROWS:
                cursor.executemany(sql, batch)
                batch.clear()
        if batch:
            cursor.executemany(sql, batch)
        connection.commit()
        cursor.execute(f"SELECT COUNT(*) FROM {_quote(table.name)}")
        counts[table.name] = int(cursor.fetchone()[0])
        if counts[table.name] != expected:
            raise InputError(
                ErrorCode.WORLD_DATA_INVALID,
                f"{table.name}: {counts[table.name]} rows loaded, expected {expected}",
                table=table.name,
            )
    for statement in create_index_statements(dialect):
        cursor.execute(statement)
    return counts


def _revoke_public(cursor: Any) -> list[str]:
    """Revoke every PUBLIC grant; return the grants that were removed."""
    try:
        cursor.execute("SHOW GRANTS FOR PUBLIC")
    except pymysql.err.MySQLError:
        return []  # a server without the PUBLIC role (before MariaDB 10.11) grants nothing here
    grants = [str(row[0]) for row in cursor.fetchall()]
    effective = [grant for grant in grants if not grant.startswith("GRANT USAGE ON *.*")]
    if effective:
        cursor.execute("REVOKE ALL PRIVILEGES, GRANT OPTION FROM PUBLIC")
        cursor.execute("SHOW GRANTS FOR PUBLIC")
        left = [str(row[0]) for row in cursor.fetchall()]
        if any(not grant.startswith("GRANT USAGE ON *.*") for grant in left):
            raise ConfigError(
                ErrorCode.CONFIG_INVALID, "PUBLIC still holds grants after REVOKE", key="PUBLIC"
            )
    return effective


def _create_reader(
    cursor: Any, database: str, user: str, password: str, hosts: Sequence[str]
) -> list[str]:
    accounts = []
    for host in hosts:
        cursor.execute("DROP USER IF EXISTS %s@%s", (user, host))
        cursor.execute("CREATE USER %s@%s IDENTIFIED BY %s", (user, host, password))
        for table in WORLD_TABLE_NAMES:
            cursor.execute(
                f"GRANT SELECT ON {_quote(database)}.{_quote(table)} TO %s@%s", (user, host)
            )
        accounts.append(f"'{user}'@'{host}'")
    return accounts


def verify_reader_grants(cursor: Any, database: str, user: str, host: str) -> None:
    """Fail unless the account holds USAGE plus SELECT on exactly the world tables.

    ``SHOW GRANTS`` lines contain the password hash, so they never appear in the error.
    """
    cursor.execute("SHOW GRANTS FOR %s@%s", (user, host))
    grants = [str(row[0]) for row in cursor.fetchall()]
    expected_prefix = f"GRANT SELECT ON {_quote(database)}."
    tables: set[str] = set()
    for grant in grants:
        if grant.startswith("GRANT USAGE ON *.* TO "):
            if "WITH GRANT OPTION" in grant:
                raise ConfigError(
                    ErrorCode.CONFIG_INVALID, f"{user}@{host} has GRANT OPTION", key="reader_user"
                )
            continue
        match = re.match(r"^GRANT SELECT ON `[^`]+`\.`([^`]+)` TO `[^`]+`@`[^`]+`$", grant)
        if not grant.startswith(expected_prefix) or not match:
            privilege = grant.split(" TO ", 1)[0]
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                f"{user}@{host} holds an unexpected grant: {privilege}",
                key="reader_user",
            )
        tables.add(match.group(1))
    if tables != set(WORLD_TABLE_NAMES):
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{user}@{host} can read {sorted(tables)}, expected {sorted(WORLD_TABLE_NAMES)}",
            key="reader_user",
        )


def load_world_database(
    connection: Any,
    *,
    database: str,
    reader_user: str,
    reader_password: str,
    reader_hosts: Sequence[str] = DEFAULT_READER_HOSTS,
) -> LoadReport:
    """Load the world tables and set up the reader through an administrative connection."""
    validate_database_name(database)
    validate_reader_user(reader_user)
    if not reader_password:
        raise ConfigError(ErrorCode.CONFIG_INVALID, "the reader password is empty", key="password")
    for host in reader_hosts:
        if not _HOST.match(host) or "%" in host:
            raise ConfigError(ErrorCode.CONFIG_INVALID, f"bad reader host {host!r}", key="host")
    report = LoadReport(database=database)
    with connection.cursor() as cursor:
        cursor.execute("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci")
        cursor.execute("SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'")
        report.row_counts = _load_tables(cursor, connection, database)
        report.public_grants_revoked = _revoke_public(cursor)
        report.reader_accounts = _create_reader(
            cursor, database, reader_user, reader_password, reader_hosts
        )
        connection.commit()
        for host in reader_hosts:
            verify_reader_grants(cursor, database, reader_user, host)
        cursor.execute("SELECT User, Host FROM mysql.user WHERE User = ''")
        report.anonymous_accounts = [f"''@'{row[1]}'" for row in cursor.fetchall()]
    return report


def connect_admin(socket_path: str, user: str, password: str | None) -> Any:
    """An administrative PyMySQL connection through the unix socket."""
    try:
        return pymysql.connect(
            unix_socket=socket_path,
            user=user,
            password=password or "",
            charset="utf8mb4",
            autocommit=False,
            connect_timeout=10,
            read_timeout=600,
            write_timeout=600,
        )
    except pymysql.err.MySQLError as exc:
        raise ResearchUnavailable(
            ErrorCode.RESEARCH_UNAVAILABLE,
            f"cannot connect as {user!r} through {socket_path}: {exc.args[-1]}",
            socket=socket_path,
        ) from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--socket", default=DEFAULT_SOCKET)
    parser.add_argument("--database", default="vba_world")
    parser.add_argument("--reader-user", default="vba_reader")
    parser.add_argument(
        "--reader-password-env",
        default="VBA_WORLD_DB_PASSWORD",
        help="environment variable that holds the reader's password",
    )
    parser.add_argument("--reader-host", action="append", dest="reader_hosts")
    parser.add_argument("--admin-user", default="root")
    parser.add_argument(
        "--admin-password-env", default=None, help="variable with the admin password, if any"
    )
    args = parser.parse_args(argv)
    password = os.environ.get(args.reader_password_env, "")
    if not password:
        print(
            f"mariadb_load: set ${args.reader_password_env} to the reader password", file=sys.stderr
        )
        return 2
    admin_password = os.environ.get(args.admin_password_env) if args.admin_password_env else None
    try:
        validate_database_name(args.database)
        validate_reader_user(args.reader_user)
        connection = connect_admin(args.socket, args.admin_user, admin_password)
        try:
            report = load_world_database(
                connection,
                database=args.database,
                reader_user=args.reader_user,
                reader_password=password,
                reader_hosts=tuple(args.reader_hosts or DEFAULT_READER_HOSTS),
            )
        finally:
            connection.close()
    except VbaError as exc:
        print(f"mariadb_load: {exc}", file=sys.stderr)
        return 1
    except pymysql.err.MySQLError as exc:
        print(f"mariadb_load: MariaDB error {exc.args[0]}: {exc.args[-1]}", file=sys.stderr)
        return 1
    for table, rows in report.row_counts.items():
        print(f"loaded {report.database}.{table}: {rows} rows")
    print(
        f"reader accounts (SELECT on {len(WORLD_TABLE_NAMES)} tables only): "
        + ", ".join(report.reader_accounts)
    )
    if report.public_grants_revoked:
        print(f"revoked {len(report.public_grants_revoked)} PUBLIC grant(s) (server-wide):")
        for grant in report.public_grants_revoked:
            print(f"  {grant}")
    for account in report.anonymous_accounts:
        print(f"warning: anonymous account {account} exists", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
