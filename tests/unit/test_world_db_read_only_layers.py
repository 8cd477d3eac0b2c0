"""Each defence layer of the read-only world database holds ALONE, with the others switched off.

The SQLite engine (resources/world_db/sqlite.py) has three layers, each enough by itself to refuse
a write: the ``mode=ro`` URI, ``PRAGMA query_only`` and the authorizer. Above them, the allowlist
and the identifier checks against the reflected schema (resources/world_db/schema.py,
connection.py) keep every catalog on allowlisted tables and reflected columns. Tested together, a
deleted layer goes unnoticed (the others still refuse), so each test here switches the others off
by monkeypatching (a writable URI, an authorizer that allows everything, a connection that ignores
the ``query_only`` pragma), shows they are off, and then expects the one layer left to refuse.
Deleting any layer from the product code fails its test. The MariaDB session's ``READ ONLY``
layer is tested the same way in tests/integration/test_world_db_mariadb_layers.py.
"""

import hashlib
import re
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from resources.world_db import WorldDatabase
from resources.world_db import sqlite as guarded
from tests.unit.test_world_db_sqlite import build_world_file, catalogs, database_config
from vba_assets.config import DEMO_ALLOWLIST
from vba_assets.errors import (
    ConfigError,
    ErrorCode,
    ReadOnlyViolation,
    ResearchUnavailable,
)

#: Writes to the database file itself (a TEMP table would not touch it).
WRITES = [
    "DELETE FROM creature_template WHERE entry = 69",
    "UPDATE creature_template SET name = 'pwned' WHERE entry = 69",
    "INSERT INTO creature_spawn_markers VALUES (1, 1, 1)",
    "CREATE TABLE pwned (x INTEGER)",
    "DROP TABLE creature_spawn_markers",
    "ALTER TABLE creature_template ADD COLUMN pwned INTEGER",
]
SECRET = "SELECT token FROM account_secret"  # a table the allowlist does not name


def _writable_uri(path: Path) -> str:
    return f"file:{quote(str(path.resolve()))}?mode=rw"


def _allow_everything(readable_tables: Any) -> guarded.Authorizer:
    def authorize(*args: Any) -> int:
        return sqlite3.SQLITE_OK

    return authorize


class _IgnoresQueryOnly(guarded.GuardedConnection):
    """A connection on which setting ``PRAGMA query_only`` does nothing."""

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if re.match(r"\s*PRAGMA\s+query_only\s*=", sql, re.IGNORECASE):
            return self.cursor()
        return super().execute(sql, *args)


SWITCH_OFF: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "mode_ro": lambda patch: patch.setattr(guarded, "read_only_uri", _writable_uri),
    "authorizer": lambda patch: patch.setattr(guarded, "read_only_authorizer", _allow_everything),
    "query_only": lambda patch: patch.setattr(guarded, "GuardedConnection", _IgnoresQueryOnly),
}
SQLITE_LAYERS = sorted(SWITCH_OFF)


def only(layer: str | None, patch: pytest.MonkeyPatch) -> None:
    """Switch off every SQLite layer but ``layer`` (None: all of them)."""
    for name, switch_off in SWITCH_OFF.items():
        if name != layer:
            switch_off(patch)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world_file(tmp_path_factory.mktemp("layers") / "world.sqlite")


@pytest.fixture
def world_file(pristine: Path, tmp_path: Path) -> Path:
    """A copy a missing layer may damage."""
    copy = tmp_path / "world.sqlite"
    shutil.copyfile(pristine, copy)
    return copy


@pytest.fixture
def open_world(world_file: Path) -> Iterator[Callable[[], WorldDatabase]]:
    opened: list[WorldDatabase] = []

    def open_() -> WorldDatabase:
        opened.append(WorldDatabase(database_config(world_file), catalogs()))
        return opened[-1]

    yield open_
    for database in opened:
        database.close()


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(database: WorldDatabase, sql: str, *, commit: bool = False) -> list[Any]:
    """Run ``sql`` in the engine's transaction (rolled back unless ``commit``)."""
    with database._engine().connect() as connection:
        result = connection.exec_driver_sql(sql)
        rows = list(result) if result.returns_rows else []
        if commit:
            connection.commit()
    return rows


def refused(database: WorldDatabase, sql: str) -> str:
    """The reason ``sql`` was refused (fails the test if it ran)."""
    with pytest.raises(ReadOnlyViolation) as caught:
        run(database, sql)
    assert caught.value.code is ErrorCode.READ_ONLY_VIOLATION, sql
    return str(caught.value.detail.get("reason", caught.value))


def query_only_setting(database: WorldDatabase) -> int:
    return int(run(database, "PRAGMA query_only")[0][0])


def test_with_every_layer_off_a_write_goes_through(
    open_world: Callable[[], WorldDatabase], world_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The switches work: without the three layers the same engine writes the file."""
    only(None, monkeypatch)
    before = sha256_of(world_file)
    database = open_world()
    assert query_only_setting(database) == 0
    assert run(database, SECRET) == [("do-not-read",)]
    run(database, WRITES[0], commit=True)
    database.close()
    assert sha256_of(world_file) != before


@pytest.mark.parametrize("layer", SQLITE_LAYERS)
def test_each_layer_alone_refuses_every_write(
    layer: str,
    open_world: Callable[[], WorldDatabase],
    world_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    only(layer, monkeypatch)
    before = sha256_of(world_file)
    database = open_world()
    if layer != "query_only":
        assert query_only_setting(database) == 0
    if layer != "authorizer":
        assert run(database, SECRET) == [("do-not-read",)]
    reasons = {sql: refused(database, sql) for sql in WRITES}
    expected = "read-only authorizer" if layer == "authorizer" else "readonly database"
    assert all(expected in reason for reason in reasons.values()), reasons
    kept = run(database, "SELECT name FROM creature_template WHERE entry = 69")
    assert kept == [("Diseased Timber Wolf",)]
    database.close()
    assert sha256_of(world_file) == before


def test_mode_ro_alone_never_creates_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only("mode_ro", monkeypatch)
    missing = tmp_path / "world.sqlite"  # its folder exists: only the URI mode keeps it away
    database = WorldDatabase(database_config(missing), catalogs())
    with pytest.raises(ResearchUnavailable):
        database.snapshot_binding()
    database.close()
    assert not missing.exists()


def test_query_only_alone_is_set_on_every_connection(
    open_world: Callable[[], WorldDatabase], monkeypatch: pytest.MonkeyPatch
) -> None:
    only("query_only", monkeypatch)
    database = open_world()
    assert run(database, SECRET) == [("do-not-read",)]  # the authorizer is off
    assert query_only_setting(database) == 1
    run(database, "PRAGMA query_only = OFF")  # nothing else stops this here...
    assert query_only_setting(database) == 0  # ...which is why the authorizer refuses it


def test_the_authorizer_alone_refuses_other_tables_attach_and_pragma_writes(
    open_world: Callable[[], WorldDatabase], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only("authorizer", monkeypatch)
    database = open_world()
    assert query_only_setting(database) == 0  # query_only is off
    attached = tmp_path / "attached.sqlite"
    for sql in [
        SECRET,
        f"ATTACH DATABASE '{attached}' AS pwned",
        "PRAGMA query_only = ON",
        "PRAGMA journal_mode = WAL",
        "SELECT load_extension('/nonexistent')",
    ]:
        assert "read-only authorizer" in refused(database, sql), sql
    assert not attached.exists()
    assert len(run(database, "SELECT entry FROM creature_template")) > 0  # reads still work


# --- the allowlist and the reflected schema --------------------------------------------------------


def test_the_allowlist_alone_keeps_catalogs_off_other_tables(
    world_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only(None, monkeypatch)
    open_ = WorldDatabase(database_config(world_file), catalogs())
    assert run(open_, SECRET) == [("do-not-read",)]  # no SQLite layer stops this read
    open_.close()
    secret_catalog = catalogs(
        creature_name={"table": "account_secret", "identity_column": "id", "name_column": "token"}
    )
    with pytest.raises(ConfigError) as caught:
        WorldDatabase(database_config(world_file), secret_catalog)
    assert caught.value.code is ErrorCode.TABLE_NOT_ALLOWLISTED
    assert caught.value.detail["table"] == "account_secret"


def test_the_reflected_schema_alone_refuses_unknown_tables_and_columns(
    world_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only(None, monkeypatch)
    config = database_config(world_file, allowlist=[*DEMO_ALLOWLIST, "no_such_table"])
    database = WorldDatabase(config, catalogs())
    with pytest.raises(ConfigError) as table:
        database.contains_search("creature_name", "wolf", 8)
    assert table.value.code is ErrorCode.IDENTIFIER_NOT_IN_SCHEMA
    assert table.value.detail["tables"] == ["no_such_table"]
    database.close()
    unknown = catalogs(creature_name={"name_column": "token", "data_columns": ["subname", "pwd"]})
    database = WorldDatabase(database_config(world_file), unknown)
    with pytest.raises(ConfigError) as column:
        database.contains_search("creature_name", "wolf", 8)
    assert column.value.code is ErrorCode.IDENTIFIER_NOT_IN_SCHEMA
    assert column.value.detail["columns"] == ["creature_template.token", "creature_template.pwd"]
    database.close()


def test_statements_name_only_reflected_identifiers(
    world_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A catalog column spelled in another case is bound to the reflected column: the SQL names
    the schema's identifier, never the configured text."""
    only(None, monkeypatch)
    shouted = catalogs(creature_name={"name_column": "NAME", "identity_column": "ENTRY"})
    database = WorldDatabase(database_config(world_file), shouted)
    result = database.contains_search("creature_name", "Wolpertinger", 8)
    assert [row.identity for row in result.rows] == [22943, 23487]
    assert "NAME" not in result.sql and "ENTRY" not in result.sql
    assert "creature_template.name" in result.sql and "creature_template.entry" in result.sql
    database.close()
