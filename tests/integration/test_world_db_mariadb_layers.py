"""The MariaDB session's ``SET SESSION TRANSACTION READ ONLY`` holds ALONE (resources/world_db/mysql.py).

The operator's SELECT-only account is the real guarantee, so with it in place a session that
forgot ``READ ONLY`` goes unnoticed (tests/integration/test_world_db_mariadb.py writes as the
reader). Here that layer is off: the account holds ALL PRIVILEGES on the world database, and no
allowlist or file-load guard is involved in a plain INSERT. The control shows the same engine and
account do write once the session is switched to READ WRITE (rolled back); the test shows the
session as the engine opens it refuses every write (1792) and the tables are unchanged. The SQLite
layers are tested alone in tests/unit/test_world_db_read_only_layers.py.
"""

import secrets
from collections.abc import Iterator

import pytest

from resources.world_db import WorldDatabase
from tests.integration.conftest import DATABASE, ThrowawayWorld
from vba_assets.errors import ErrorCode, ReadOnlyViolation

pytestmark = pytest.mark.mariadb

WRITER = "vba_writer"
WRITER_PASSWORD_ENV = "VBA_TEST_THROWAWAY_WRITER_PASSWORD"
#: Writes the control may run and roll back.
WRITES = [
    "INSERT INTO creature_spawn_markers (entry, zone_id, marker_count) VALUES (4000000000, 1, 1)",
    "UPDATE creature_template SET name = 'pwned' WHERE entry = 69",
    "DELETE FROM creature_template WHERE entry = 69",
    "REPLACE INTO creature_spawn_markers (entry, zone_id, marker_count) VALUES (23486, 1, 9)",
]
#: Schema changes commit at once, so only the refusal runs them (measured on MariaDB 10.11: 1792).
DDL = [
    "CREATE TABLE vba_pwned (x INT)",
    "CREATE TEMPORARY TABLE vba_pwned_tmp (x INT)",
    "ALTER TABLE creature_spawn_markers ADD COLUMN pwned INT",
    "TRUNCATE TABLE creature_spawn_markers",
    "DROP TABLE creature_spawn_markers",
]


@pytest.fixture(scope="module")
def writer(throwaway_world: ThrowawayWorld) -> Iterator[str]:
    """An account that may write the world database: the grants are no defence here."""
    password = secrets.token_urlsafe(18)
    admin = throwaway_world.server.admin_connection()
    try:
        with admin.cursor() as cursor:
            for host in ("127.0.0.1", "localhost"):
                cursor.execute(f"CREATE USER '{WRITER}'@'{host}' IDENTIFIED BY %s", (password,))
                cursor.execute(f"GRANT ALL PRIVILEGES ON {DATABASE}.* TO '{WRITER}'@'{host}'")
    finally:
        admin.close()
    yield password
    admin = throwaway_world.server.admin_connection()
    try:
        with admin.cursor() as cursor:
            for host in ("127.0.0.1", "localhost"):
                cursor.execute(f"DROP USER '{WRITER}'@'{host}'")
    finally:
        admin.close()


@pytest.fixture
def as_writer(
    throwaway_world: ThrowawayWorld, writer: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[WorldDatabase]:
    monkeypatch.setenv(WRITER_PASSWORD_ENV, writer)
    url = f"mysql+pymysql://{WRITER}@127.0.0.1:{throwaway_world.server.port}/{DATABASE}"
    config = throwaway_world.database_config(url=url, password_env=WRITER_PASSWORD_ENV)
    database = WorldDatabase(config, throwaway_world.rows.catalogs())
    yield database
    database.close()


def test_without_the_read_only_session_the_writer_writes(as_writer: WorldDatabase) -> None:
    """The control: the same engine and account, the session switched to READ WRITE."""
    engine = as_writer._engine()
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SET SESSION TRANSACTION READ WRITE")
            connection.commit()
            changed = [connection.exec_driver_sql(sql).rowcount for sql in WRITES]
            connection.rollback()
        assert all(count >= 1 for count in changed), changed
    finally:
        engine.dispose()  # never reuse a session that was switched to READ WRITE


def test_the_read_only_session_alone_refuses_every_write(
    as_writer: WorldDatabase, throwaway_world: ThrowawayWorld
) -> None:
    before = throwaway_world.checksums()
    with as_writer._engine().connect() as connection:
        assert connection.exec_driver_sql("SELECT @@tx_read_only").scalar() == 1
        grants = " ".join(str(row[0]) for row in connection.exec_driver_sql("SHOW GRANTS"))
    assert f"GRANT ALL PRIVILEGES ON `{DATABASE}`.*" in grants  # the account is no defence
    for sql in [*WRITES, *DDL]:
        with (
            as_writer._engine().connect() as connection,
            pytest.raises(ReadOnlyViolation) as caught,
        ):
            connection.exec_driver_sql(sql)
            connection.commit()
        assert caught.value.code is ErrorCode.READ_ONLY_VIOLATION, sql
        assert "1792" in caught.value.detail["reason"], sql  # READ ONLY transaction
    rows = as_writer.contains_search("creature_name", "Diseased", 8).rows
    assert [row.identity for row in rows] == [69]
    assert throwaway_world.checksums() == before
