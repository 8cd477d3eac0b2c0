"""Fixtures for the MariaDB integration tests.

* ``world_rows_module``: the unit tests' fixture rows and helpers
  (tests/unit/test_world_db_sqlite.py), so both backends hold exactly the same rows.
* ``throwaway_world``: a throwaway MariaDB server (tests/integration/mariadb_instance.py) loaded
  with those rows in the demo tables, plus a SELECT-only account ``vba_reader``; skipped with a
  clear reason when ``mariadbd`` is not installed.
"""

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

from tests.integration.mariadb_instance import MariaDBInstance, mariadb_instance, missing_programs
from tests.unit import test_world_db_sqlite
from vba_assets.config import DEMO_ALLOWLIST, DatabaseConfig

DATABASE = "vba_world"
READER = "vba_reader"
PASSWORD_ENV = "VBA_TEST_THROWAWAY_DB_PASSWORD"


@pytest.fixture(scope="session")
def world_rows_module() -> ModuleType:
    return test_world_db_sqlite


@dataclass
class ThrowawayWorld:
    """A running throwaway server with the fixture world and a reader account."""

    server: MariaDBInstance
    password: str
    rows: ModuleType

    def database_config(self, **overrides: Any) -> DatabaseConfig:
        values: dict[str, Any] = {
            "url": f"mysql+pymysql://{READER}@127.0.0.1:{self.server.port}/{DATABASE}",
            "password_env": PASSWORD_ENV,
            "allowlist": list(DEMO_ALLOWLIST),
            "snapshot_label": "throwaway-mariadb",
            "connect_timeout_s": 2.0,
            "read_timeout_s": 2.0,
            "statement_timeout_s": 2.0,
        }
        values.update(overrides)
        return DatabaseConfig(**values)

    def checksums(self) -> dict[str, Any]:
        """``CHECKSUM TABLE`` of every world table plus the list of databases (as root)."""
        connection = self.server.admin_connection(DATABASE)
        try:
            with connection.cursor() as cursor:
                cursor.execute("CHECKSUM TABLE " + ", ".join(DEMO_ALLOWLIST))
                sums = {str(name): value for name, value in cursor.fetchall()}
                cursor.execute("SHOW DATABASES")
                databases = sorted(str(row[0]) for row in cursor.fetchall())
        finally:
            connection.close()
        return {"tables": sums, "databases": databases}


def load_throwaway_world(server: MariaDBInstance, rows: ModuleType, password: str) -> None:
    """Create ``vba_world`` with the fixture rows and a reader with SELECT on the allowlist only."""
    admin = server.admin_connection()
    try:
        with admin.cursor() as cursor:
            cursor.execute(
                f"CREATE DATABASE {DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
            )
        rows.load_world(
            f"mysql+pymysql://root@localhost/{DATABASE}?charset=utf8mb4",
            connect_args={"unix_socket": str(server.socket_path)},
        )
        with admin.cursor() as cursor:
            # MariaDB's PUBLIC role may grant everyone rights on test/test_* (ARCHITECTURE 14).
            cursor.execute("SHOW GRANTS FOR PUBLIC")
            for (grant,) in cursor.fetchall():
                if grant.startswith("GRANT ") and " ON " in grant and "USAGE" not in grant:
                    on = grant.split(" ON ", 1)[1].split(" TO ", 1)[0]
                    cursor.execute(f"REVOKE ALL PRIVILEGES ON {on} FROM PUBLIC")
            for host in ("127.0.0.1", "localhost"):
                cursor.execute(f"CREATE USER '{READER}'@'{host}' IDENTIFIED BY %s", (password,))
                for table in DEMO_ALLOWLIST:
                    cursor.execute(f"GRANT SELECT ON {DATABASE}.{table} TO '{READER}'@'{host}'")
    finally:
        admin.close()


def start_throwaway_world(rows: ModuleType) -> Iterator[ThrowawayWorld]:
    missing = missing_programs()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install mariadb-server)")
    password = secrets.token_urlsafe(18)
    with pytest.MonkeyPatch.context() as patch, mariadb_instance() as server:
        patch.setenv(PASSWORD_ENV, password)
        load_throwaway_world(server, rows, password)
        yield ThrowawayWorld(server=server, password=password, rows=rows)


@pytest.fixture(scope="module")
def throwaway_world(world_rows_module: ModuleType) -> Iterator[ThrowawayWorld]:
    """One server for a whole test module (pause/resume tests must resume it)."""
    yield from start_throwaway_world(world_rows_module)


@pytest.fixture
def own_throwaway_world(world_rows_module: ModuleType) -> Iterator[ThrowawayWorld]:
    """A server of its own, for a test that stops it."""
    yield from start_throwaway_world(world_rows_module)
