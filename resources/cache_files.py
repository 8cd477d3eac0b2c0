"""What the cache directory holds, and which of it no process of this code reads again (IO).

The cache directory (``$VBA_CACHE_DIR``, else ``~/.cache/vba-assets``) keeps what is built on
first use: the demo world DB (``worlddata/``, named by the packaged data's fingerprint) and the
heuristic's name index with the structures derived from it (``heuristic/``, named by the index's
hash and their format, layout or rules version). A new version of the data or of the code builds
new files beside the old ones and never reads the old ones again; nothing deletes them, so the
directory only grows (about 30-60 MB per version). ``vba cache`` lists every file with its status,
and ``vba cache --prune`` deletes the stale ones:

* ``current``: read by this code with the packaged data (or the demo DB's build lock);
* ``stale``: built from other data or by another version, or a temp file its dead writer left;
* ``in_progress``: a temp file a live process is writing;
* ``unknown``: a file this code does not name (listed, never deleted).

Deleting is safe while other processes run: a process that has a file open keeps reading it, and
one of an older version that looks for it again builds it again.
"""

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from resources.llm.heuristic_index import is_current_cache_file, temp_writer_pid
from vba_assets.worlddata.build import (
    cache_dir,
    demo_database_path,
    pid_alive,
    temp_file_writer,
    temp_writer_alive,
)

CacheStatus = Literal["current", "stale", "in_progress", "unknown"]

#: A heuristic temp file names no host, so one whose writer is not alive here may be another
#: host's (a shared cache directory): it counts as stale only after this long without a change.
HOSTLESS_TEMP_GRACE_S = 3600.0


@dataclass(frozen=True)
class CacheFile:
    """One file of the cache directory: its path, size in bytes, status and why."""

    path: Path
    size: int
    status: CacheStatus
    why: str


def scan_cache(root: Path | None = None) -> list[CacheFile]:
    """Every file under ``root`` (default: the cache directory), sorted by path, with its
    status (empty when the directory does not exist)."""
    root = root if root is not None else cache_dir()
    found: list[CacheFile] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []:
        try:
            stat = path.stat()
        except FileNotFoundError:  # a writer renamed or removed it meanwhile
            continue
        status, why = _classify(root, path, stat.st_mtime)
        found.append(CacheFile(path, stat.st_size, status, why))
    return found


def prune(files: list[CacheFile]) -> list[CacheFile]:
    """Delete the stale ``files``; return those deleted (one already gone is skipped)."""
    removed = []
    for file in files:
        if file.status == "stale":
            with contextlib.suppress(FileNotFoundError):
                file.path.unlink()
                removed.append(file)
    return removed


def _classify(root: Path, path: Path, mtime: float) -> tuple[CacheStatus, str]:
    relative = path.relative_to(root)
    if relative.parts[:-1] == ("worlddata",):
        return _world_data_file(root, path)
    if relative.parts[:-1] == ("heuristic",):
        return _heuristic_file(path, mtime)
    return "unknown", "not a file this code writes"


def _world_data_file(root: Path, path: Path) -> tuple[CacheStatus, str]:
    if path.name == ".build.lock":
        return "current", "the demo DB's build lock"
    writer = temp_file_writer(path.name)
    if writer is not None:
        final, host, pid = writer
        if temp_writer_alive(host, pid):
            return "in_progress", f"the demo DB {final} being built by pid {pid} on {host}"
        return "stale", f"left by the dead builder pid {pid} of {final}"
    if path == demo_database_path(root):
        return "current", "the demo world DB of the packaged data"
    if path.name.startswith("demo-world-") and path.suffix == ".sqlite":
        return "stale", "a demo world DB of other packaged data or another builder version"
    return "unknown", "not a file this code writes"


def _heuristic_file(path: Path, mtime: float) -> tuple[CacheStatus, str]:
    pid = temp_writer_pid(path.name)
    if pid is not None:
        if pid_alive(pid):
            return "in_progress", f"being written by pid {pid}"
        if time.time() - mtime < HOSTLESS_TEMP_GRACE_S:
            return "in_progress", f"written by pid {pid} (not alive here) less than an hour ago"
        return "stale", f"left by the writer pid {pid}, not alive here"
    index = path.name.startswith("names-")
    if is_current_cache_file(path):
        if index:
            return "current", "the heuristic's name index of the packaged data"
        return "current", "derived from that name index, under this code's rules and layouts"
    if path.suffix == ".json" and index:
        return "stale", "a name index of other packaged data, or of another format or layout"
    if path.suffix == ".json" and "-of-" in path.name:
        return "stale", "derived from another name index, or under other rules or layouts"
    return "unknown", "not a file this code writes"
