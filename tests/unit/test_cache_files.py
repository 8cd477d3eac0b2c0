"""``vba cache``: which files of the cache directory this code still reads, and pruning the rest.

The current files are written by the real code (a small name index under the packaged data's
index hash, its inflection indexes and scan layout kept through the real ``CacheDirStore``), so the
test fails when the naming of what is written and of what is recognised drift apart.
"""

import json
import os
import shutil
import socket
import time
from pathlib import Path

import pytest

from resources.cache_files import HOSTLESS_TEMP_GRACE_S, CacheFile, prune, scan_cache
from resources.llm import heuristic_index
from vba_assets.cli import main
from vba_assets.domain.stage_context import CatalogView
from vba_assets.heuristic.gazetteer import build_gazetteer
from vba_assets.heuristic.name_index import IndexedName, build_name_index
from vba_assets.heuristic.name_scan import SCAN_LAYOUT_VERSION
from vba_assets.worlddata.build import demo_database_path, temp_file_writer

CATALOGS = (
    CatalogView(name="creature_name", entity_type="creature", kind="name"),
    CatalogView(name="creature_localized_name", entity_type="creature", kind="localized_name"),
)
DEAD_PID = 2**22 + 1  # above Linux's pid_max default: never a live process


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VBA_CACHE_DIR", str(tmp_path))
    return tmp_path


def _write_current_heuristic_files() -> tuple[Path, list[Path]]:
    """What the heuristic keeps for the packaged data, written by its own code (small names):
    the index's file, and the files of the structures derived from it."""
    sha256 = heuristic_index.index_sha256(heuristic_index.index_sources())
    names = [
        IndexedName(23487, "Wild Wolpertinger", ""),
        IndexedName(23487, "Wilder Wolpertinger", "deDE"),
        IndexedName(1, "Грубобрюх", "ruRU"),
    ]
    index = build_name_index(names, [], heuristic_index.index_sources())
    assert index.sha256 == sha256
    index.store = heuristic_index.CacheDirStore(sha256)
    gazetteer = build_gazetteer(CATALOGS, index)
    gazetteer.inflection_index("de")
    gazetteer.inflection_index("ru")
    list(index.matching_keys("wolper"))  # lays out the scan keys, kept beside the index
    heuristic_index._write_cached(index)
    index_path = heuristic_index.cached_index_path(sha256)
    derived = sorted(set(index_path.parent.iterdir()) - {index_path})
    assert [p.name.split("-")[0] for p in derived] == ["inflection", "inflection", "scan"]
    return index_path, derived


def _status(files: list[CacheFile], path: Path) -> str:
    [found] = [f for f in files if f.path == path]
    return str(found.status)


def test_what_this_code_writes_is_current_and_what_older_versions_wrote_is_stale(
    cache: Path,
) -> None:
    index_path, derived = _write_current_heuristic_files()
    current = [index_path, *derived]
    database = demo_database_path(cache)
    database.parent.mkdir(parents=True)
    database.write_bytes(b"db")
    (database.parent / ".build.lock").touch()
    heuristic = index_path.parent
    of_index = derived[0].name.rpartition("-of-")[2]
    inflection = derived[0].name.rpartition("-of-")[0].split("-")  # inflection-de-RULES-CATALOGS
    stale = [
        database.with_name("demo-world-0000000000000000.sqlite"),  # other data
        index_path.with_name(index_path.name.replace(".layout", ".layout9")),  # another layout
        heuristic / "names-1-0000000000000000.layout2.json",  # an index of other data
        heuristic / "scan-layout-1-of-0000000000000000.json",  # derived from another index
        heuristic / f"scan-layout-{SCAN_LAYOUT_VERSION + 1}-of-{of_index}",  # another layout
        heuristic / f"inflection-de-{'0' * len(inflection[2])}-{inflection[3]}-of-{of_index}",
    ]
    unknown = [cache / "notes.txt", heuristic / "readme.md"]
    for path in stale + unknown:
        path.write_bytes(b"old")

    files = scan_cache()
    assert {f.path for f in files} == {
        *current,
        database,
        database.parent / ".build.lock",
        *stale,
        *unknown,
    }
    for path in [*current, database]:
        assert _status(files, path) == "current", path
    for path in stale:
        assert _status(files, path) == "stale", path
    for path in unknown:
        assert _status(files, path) == "unknown", path

    removed = prune(files)
    assert sorted(f.path for f in removed) == sorted(stale)
    assert all(path.exists() for path in [*current, database, *unknown])
    assert not any(path.exists() for path in stale)
    assert {f.status for f in scan_cache()} == {"current", "unknown"}


def test_temp_files_of_live_writers_are_kept_and_those_of_dead_ones_are_stale(
    cache: Path,
) -> None:
    database = demo_database_path(cache)
    database.parent.mkdir(parents=True)
    host = socket.gethostname()
    live = database.parent / f".{database.name}.{host}.{os.getpid()}.abc_12.tmp"
    dead = database.parent / f".{database.name}.{host}.{DEAD_PID}.xyz.tmp"
    elsewhere = database.parent / f".{database.name}.other-host.{DEAD_PID}.xyz.tmp"
    heuristic = cache / "heuristic"
    heuristic.mkdir()
    writing = heuristic / f".names-1-x.layout2.json.tmp-{os.getpid()}-140"
    fresh_orphan = heuristic / f".names-1-x.layout2.json.tmp-{DEAD_PID}-140"
    old_orphan = heuristic / f".scan-layout-1-of-x.json.tmp-{DEAD_PID}-7"
    for path in (live, dead, elsewhere, writing, fresh_orphan, old_orphan):
        path.write_bytes(b"partial")
    an_hour_ago = time.time() - HOSTLESS_TEMP_GRACE_S - 60
    os.utime(old_orphan, (an_hour_ago, an_hour_ago))

    files = scan_cache()
    assert temp_file_writer(live.name) == (database.name, host, os.getpid())
    assert _status(files, live) == "in_progress"
    assert _status(files, elsewhere) == "in_progress"  # another host's processes are not seen
    assert _status(files, dead) == "stale"
    assert _status(files, writing) == "in_progress"
    assert _status(files, fresh_orphan) == "in_progress"  # a temp file names no host: wait
    assert _status(files, old_orphan) == "stale"


def test_vba_cache_lists_and_prunes(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = demo_database_path(cache)
    database.parent.mkdir(parents=True)
    database.write_bytes(b"db")
    old = database.with_name("demo-world-0000000000000000.sqlite")
    old.write_bytes(b"old" * 1000)

    assert main(["cache"]) == 0
    listing = capsys.readouterr().out
    assert "2 files" in listing and "1 stale" in listing and "vba cache --prune" in listing
    assert old.exists()

    assert main(["cache", "--prune", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["removed"] == [str(old)]
    assert {row["path"]: row["status"] for row in report["files"]} == {
        str(database): "current",
        str(old): "stale",
    }
    assert not old.exists() and database.exists()


def test_no_cache_directory_lists_nothing(tmp_path: Path) -> None:
    assert scan_cache(tmp_path / "absent") == []


def test_another_root_is_read_by_the_same_names(
    cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _write_current_heuristic_files()
    database = demo_database_path(cache)
    database.parent.mkdir(parents=True)
    database.write_bytes(b"db")
    elsewhere = tmp_path_factory.mktemp("copied") / "cache"
    shutil.copytree(cache, elsewhere)

    def statuses(root: Path) -> dict[Path, str]:
        return {f.path.relative_to(root): f.status for f in scan_cache(root)}

    assert statuses(elsewhere) == statuses(cache)
    assert set(statuses(elsewhere).values()) == {"current"}
