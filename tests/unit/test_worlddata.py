"""The packaged world data and the embedded demo SQLite DB built from it (real files, processes)."""

import csv
import gzip
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vba_assets.config import DEMO_ALLOWLIST, DEMO_CATALOGS, load_project_config
from vba_assets.domain.catalog.search_key import search_key
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.errors import ConfigError, ErrorCode, InputError
from vba_assets.worlddata import (
    WORLD_TABLE_NAMES,
    WORLD_TABLES,
    build_sqlite,
    demo_database_path,
    ensure_demo_database,
)
from vba_assets.worlddata.build import (
    BUILDER_VERSION,
    SQLITE_APPLICATION_ID,
    search_key_identity,
)
from vba_assets.worlddata.packaged import packaged_data_dir
from vba_assets.worlddata.schema import (
    CREATURE_TABLES,
    REFERENCE_TABLES,
    TRIGRAM_INDEXED_COLUMNS,
    create_table_statements,
    mariadb_dialect,
    sqlite_dialect,
    trigram_index_name,
    trigram_key_columns,
)

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = REPO / "vba_assets" / "worlddata" / "data"
SHARED_DATA = REPO.parent / "shared" / "data"


def packaged_rows(table: str, data_dir: Path = DATA_DIR) -> list[list[str]]:
    """The data rows of a packaged CSV, read independently of the builder."""
    with gzip.open(data_dir / f"{table}.csv.gz", "rt", encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))[1:]


def query(db: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def temp_files(directory: Path) -> list[Path]:
    return sorted(directory.glob(".*.tmp"))


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("vba-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VBA_CACHE_DIR", str(root))
        yield root


@pytest.fixture(scope="module")
def demo_db(cache_root: Path) -> Path:
    return ensure_demo_database()


def test_builds_into_the_cache_dir_named_by_the_data_fingerprint(
    demo_db: Path, cache_root: Path
) -> None:
    assert demo_db.parent.parent == cache_root
    assert demo_db == demo_database_path()
    assert demo_db.is_file()
    assert not temp_files(demo_db.parent)
    assert query(demo_db, "PRAGMA integrity_check") == [("ok",)]


def test_row_counts_equal_the_packaged_csvs(demo_db: Path) -> None:
    manifest = json.loads((DATA_DIR / "manifest.json").read_text(encoding="utf-8"))
    for table in WORLD_TABLE_NAMES:
        expected = len(packaged_rows(table))
        assert manifest["tables"][table]["rows"] == expected
        assert query(demo_db, f"SELECT COUNT(*) FROM {table}") == [(expected,)], table
    assert query(demo_db, "SELECT COUNT(*) FROM creature_template") == [(29_601,)]
    locales = query(demo_db, "SELECT DISTINCT locale FROM creature_template_locale ORDER BY 1")
    assert [row[0] for row in locales] == [
        "deDE",
        "esES",
        "esMX",
        "frFR",
        "koKR",
        "ptBR",
        "ruRU",
        "zhCN",
        "zhTW",
    ]


def test_spot_rows(demo_db: Path) -> None:
    names = query(
        demo_db, "SELECT entry, name FROM creature_template WHERE entry IN (23486, 23487)"
    )
    assert dict(names) == {23486: "Goldark Snipehunter", 23487: "Wild Wolpertinger"}
    assert query(
        demo_db,
        "SELECT name, subname, minlevel, maxlevel, rank, faction, npcflag "
        "FROM creature_template WHERE entry = 24657",
    ) == [("Glodrak Huntsniper", None, 65, 65, 0, 775, 3)]
    assert query(
        demo_db,
        "SELECT Name, Title FROM creature_template_locale WHERE entry = 23487 AND locale = 'deDE'",
    ) == [("Wilder Wolpertinger", None)]
    assert query(
        demo_db, "SELECT Name FROM creature_template_locale WHERE entry = 23486 AND locale = 'ptBR'"
    ) == [("Ourarca Caça-atirador",)]
    starters = query(
        demo_db, "SELECT id, quest FROM creature_queststarter WHERE id IN (?, ?)", 23486, 24657
    )
    assert (23486, 11117) in starters
    assert (24657, 11431) in starters
    assert query(
        demo_db, "SELECT quest FROM creature_questender WHERE id = 24657 ORDER BY quest"
    ) == [(11120,), (11431,)]
    assert query(
        demo_db, "SELECT zone_id, marker_count FROM creature_spawn_markers WHERE entry = 23487"
    ) == [(1, 16), (14, 15)]


def test_empty_fields_follow_the_documented_choices(demo_db: Path) -> None:
    template = packaged_rows("creature_template")
    empty_subnames = sum(1 for row in template if row[2] == "")
    assert query(demo_db, "SELECT COUNT(*) FROM creature_template WHERE subname IS NULL") == [
        (empty_subnames,)
    ]
    assert query(demo_db, "SELECT COUNT(*) FROM creature_template WHERE subname = ''") == [(0,)]
    empty_faction = sorted(int(row[0]) for row in template if row[6] == "")
    assert len(empty_faction) == 9
    zero_faction = query(demo_db, "SELECT entry FROM creature_template WHERE faction = 0")
    assert [row[0] for row in zero_faction] == empty_faction
    assert query(demo_db, "SELECT name FROM creature_template WHERE entry = 17165") == [("",)]
    empty_titles = sum(1 for row in packaged_rows("creature_template_locale") if row[3] == "")
    assert query(demo_db, "SELECT COUNT(*) FROM creature_template_locale WHERE Title IS NULL") == [
        (empty_titles,)
    ]


def test_second_call_reuses_the_file(demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = demo_db.stat()

    def must_not_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("rebuilt although the file exists")

    monkeypatch.setattr("vba_assets.worlddata.build.build_sqlite", must_not_build)
    assert ensure_demo_database() == demo_db
    after = demo_db.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert after.st_mode & 0o222 == 0  # published read-only


def test_module_entry_point_prints_the_path(demo_db: Path, cache_root: Path) -> None:
    env = {**os.environ, "VBA_CACHE_DIR": str(cache_root)}
    result = subprocess.run(
        [sys.executable, "-m", "vba_assets.worlddata"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert result.stdout.strip() == str(demo_db)


_STALL_BUILDER = """
import sys, time
from pathlib import Path
from vba_assets.worlddata import build

marker = Path(sys.argv[1])
original = build.iter_table_rows

def stalling_rows(table, *args, **kwargs):
    for index, row in enumerate(original(table, *args, **kwargs)):
        if table.name == "creature_template_locale" and index == 1000:
            marker.write_text("mid-build")
            time.sleep(600)
        yield row

build.iter_table_rows = stalling_rows
build.ensure_demo_database()
"""


def test_killed_builder_leaves_no_file_under_the_final_name(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    marker = tmp_path / "marker"
    final = demo_database_path(cache)
    env = {**os.environ, "VBA_CACHE_DIR": str(cache)}
    builder = subprocess.Popen(
        [sys.executable, "-c", _STALL_BUILDER, str(marker)], env=env, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            if builder.poll() is not None:
                stderr = builder.stderr.read() if builder.stderr else b""
                pytest.fail(f"builder exited early: {stderr!r}")
            assert time.monotonic() < deadline, "builder never reached the middle of the build"
            time.sleep(0.05)
        assert temp_files(final.parent), "the builder should be writing a temp file"
        assert not final.exists()
    finally:
        builder.send_signal(signal.SIGKILL)
        builder.wait(timeout=30)
    assert builder.returncode == -signal.SIGKILL
    assert not final.exists()
    left = temp_files(final.parent)
    assert left and all(f".{builder.pid}." in path.name for path in left)

    assert ensure_demo_database(cache_root=cache) == final
    assert query(final, "SELECT COUNT(*) FROM creature_template") == [(29_601,)]
    assert not temp_files(final.parent), "the dead builder's temp file should be swept"


_ENSURE = "from vba_assets.worlddata import ensure_demo_database; print(ensure_demo_database())"


def test_two_concurrent_builders_are_harmless(tmp_path: Path) -> None:
    env = {**os.environ, "VBA_CACHE_DIR": str(tmp_path)}
    builders = [
        subprocess.Popen(
            [sys.executable, "-c", _ENSURE], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [builder.communicate(timeout=120)[0].strip() for builder in builders]
    assert [builder.returncode for builder in builders] == [0, 0]
    final = demo_database_path(tmp_path)
    assert outputs == [str(final), str(final)]
    assert query(final, "PRAGMA integrity_check") == [("ok",)]
    assert query(final, "SELECT COUNT(*) FROM creature_template_locale") == [(238_050,)]
    assert not temp_files(final.parent)


def copy_data(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def rewrite_table(data_dir: Path, table: str, text: str, *, update_manifest: bool = True) -> None:
    payload = gzip.compress(text.encode("utf-8"), mtime=0)
    (data_dir / f"{table}.csv.gz").write_bytes(payload)
    if update_manifest:
        manifest_path = data_dir / "manifest.json"
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        manifest["tables"][table]["sha256"] = hashlib.sha256(payload).hexdigest()
        manifest_path.write_text(json.dumps(manifest), encoding="utf-8")


def packaged_text(table: str) -> str:
    with gzip.open(DATA_DIR / f"{table}.csv.gz", "rt", encoding="utf-8", newline="") as handle:
        return handle.read()


def test_changed_data_gets_a_new_file_name(tmp_path: Path) -> None:
    data = copy_data(tmp_path)
    assert demo_database_path(tmp_path, data) == demo_database_path(tmp_path)
    text = packaged_text("creature_template").replace("Wild Wolpertinger", "Wild Wolpertinger II")
    rewrite_table(data, "creature_template", text)
    changed = demo_database_path(tmp_path, data)
    assert changed != demo_database_path(tmp_path)
    assert changed.parent == demo_database_path(tmp_path).parent
    build_sqlite(changed, data_dir=data)
    assert query(changed, "SELECT name FROM creature_template WHERE entry = 23487") == [
        ("Wild Wolpertinger II",)
    ]


def test_bad_value_raises_and_publishes_nothing(tmp_path: Path) -> None:
    data = copy_data(tmp_path)
    text = packaged_text("creature_template")
    header, first, rest = text.split("\n", 2)
    bad_first = "12x" + first[first.index(",") :]
    rewrite_table(data, "creature_template", f"{header}\n{bad_first}\n{rest}")
    target = tmp_path / "out" / "world.sqlite"
    with pytest.raises(InputError) as raised:
        build_sqlite(target, data_dir=data)
    assert raised.value.code is ErrorCode.WORLD_DATA_INVALID
    assert raised.value.detail["line"] == 2
    assert raised.value.detail["column"] == "entry"
    assert not target.exists()
    assert not temp_files(target.parent)


def test_tampered_file_is_refused(tmp_path: Path) -> None:
    data = copy_data(tmp_path)
    text = packaged_text("creature_template").replace("Wild Wolpertinger", "Tame Wolpertinger")
    rewrite_table(data, "creature_template", text, update_manifest=False)
    target = tmp_path / "world.sqlite"
    with pytest.raises(InputError, match="sha256") as raised:
        build_sqlite(target, data_dir=data)
    assert raised.value.code is ErrorCode.WORLD_DATA_INVALID
    assert not target.exists()


def test_truncated_gzip_is_refused(tmp_path: Path) -> None:
    data = copy_data(tmp_path)
    path = data / "creature_template.csv.gz"
    payload = path.read_bytes()[:-100]
    path.write_bytes(payload)
    manifest = json.loads((data / "manifest.json").read_text(encoding="utf-8"))
    manifest["tables"]["creature_template"]["sha256"] = hashlib.sha256(payload).hexdigest()
    (data / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    target = tmp_path / "world.sqlite"
    with pytest.raises(
        InputError, match=re.escape("creature_template.csv.gz: unreadable")
    ) as raised:
        build_sqlite(target, data_dir=data)
    assert raised.value.code is ErrorCode.WORLD_DATA_INVALID
    assert not target.exists()
    assert not temp_files(tmp_path)


def test_unusable_cache_dir_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("file")
    with pytest.raises(ConfigError) as raised:
        ensure_demo_database(cache_root=blocker)
    assert raised.value.detail["key"] == "VBA_CACHE_DIR"


def test_one_schema_for_sqlite_and_mariadb() -> None:
    mariadb = create_table_statements(mariadb_dialect())
    assert len(mariadb) == len(WORLD_TABLES)
    for statement in mariadb:
        assert "ENGINE=InnoDB" in statement
        assert "CHARSET=utf8mb4" in statement
        assert "COLLATE utf8mb4_unicode_ci" in statement
        assert "AUTO_INCREMENT" not in statement
    assert "entry INTEGER UNSIGNED NOT NULL" in mariadb[0]
    assert re.search(r"\n\s*`?rank`? TINYINT UNSIGNED NOT NULL,", mariadb[0])
    assert "name CHAR(100) NOT NULL" in mariadb[0]
    assert "subname CHAR(100)," in mariadb[0]
    assert "`Name` TEXT" in mariadb[1]
    sqlite_ddl = create_table_statements(sqlite_dialect())
    # A single integer key is the rowid; a composite key makes the table WITHOUT ROWID.
    for table, statement in zip(WORLD_TABLES, sqlite_ddl, strict=True):
        composite = len(table.primary_key.columns) > 1
        assert ("WITHOUT ROWID" in statement) == composite, table.name


def test_mariadb_ci_config_matches_the_demo_catalogs() -> None:
    config = load_project_config(REPO / "config" / "project.mariadb-ci.toml")
    assert config.database.url == "mysql+pymysql://vba_reader@127.0.0.1:3306/vba_world"
    assert config.database.password_env == "VBA_WORLD_DB_PASSWORD"
    # The quest tables joined the allowlist for grounded tie-breaks (protocol v6: a capture records
    # the quests that same-name creatures start or end, with their titles); the item and object
    # tables are loaded but read by nothing, so they stay out of the snapshot binding.
    # zone_names joined for grounded zone tie-breaks (the zone names of the markers' zone ids).
    quests = ["quest_template", "quest_template_locale", "zone_names"]
    assert config.database.allowlist == DEMO_ALLOWLIST
    assert [t.name for t in CREATURE_TABLES] + quests == DEMO_ALLOWLIST
    assert set(WORLD_TABLE_NAMES) - set(DEMO_ALLOWLIST) == {
        t.name for t in REFERENCE_TABLES if t.name not in quests
    }
    assert config.catalogs == [CatalogConfig.model_validate(item) for item in DEMO_CATALOGS]
    assert config.workspace == (REPO / "vba-workspace-mariadb").resolve()
    tables = {table.name: set(table.columns.keys()) for table in WORLD_TABLES}
    for catalog in config.catalogs:
        used = {catalog.identity_column, catalog.name_column, *catalog.data_columns}
        assert used <= tables[catalog.table], catalog.name


def test_packaged_data_is_found_through_the_package() -> None:
    assert (packaged_data_dir() / "manifest.json").is_file()
    assert str(packaged_data_dir()).endswith(os.path.join("worlddata", "data"))


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="needs ../shared/data (not in a fresh clone)")
def test_derivation_is_deterministic_and_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "derive_world_data.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "up to date" in result.stdout


def test_packaged_gzip_headers_are_deterministic() -> None:
    for table in WORLD_TABLE_NAMES:
        header = (DATA_DIR / f"{table}.csv.gz").read_bytes()[:10]
        assert header[4:8] == b"\x00\x00\x00\x00", f"{table}: gzip mtime must be 0"
        assert header[3] & 0x08 == 0, f"{table}: no file name stored"


def test_the_name_catalogs_have_complete_trigram_indexes(demo_db: Path) -> None:
    """Every non-NULL name's search key is in its FTS5 trigram index with the row's key; the
    marks say who built it."""
    assert query(demo_db, "PRAGMA user_version") == [(BUILDER_VERSION,)]
    assert query(demo_db, "PRAGMA application_id") == [(SQLITE_APPLICATION_ID,)]
    info = query(demo_db, "SELECT key, value FROM vba_build_info")
    assert info == [("search_key", search_key_identity())]
    assert info[0][1].startswith(f"{unicodedata.unidata_version}:")
    for table, column in TRIGRAM_INDEXED_COLUMNS:
        index = trigram_index_name(table, column)
        keys = ", ".join(trigram_key_columns(table))
        indexed = query(demo_db, f'SELECT "{column}", {keys} FROM {index} ORDER BY {keys}')
        stored = query(
            demo_db,
            f'SELECT "{column}", {keys} FROM {table} WHERE "{column}" IS NOT NULL ORDER BY {keys}',
        )
        expected = [(search_key(name), *rest) for name, *rest in stored]
        assert indexed == expected and len(stored) > 20_000, table
        found = query(demo_db, f'SELECT count(*) FROM {index} WHERE "{column}" LIKE ?', "%wolpert%")
        assert found[0][0] >= 2
