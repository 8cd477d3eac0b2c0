"""A tracker's sync state in the workspace: ``<workspace>/trackers/<name>/``.

* ``cursor.json``: where the next sync starts. ``since`` is the ``updated_at`` of the newest issue
  whose import is durable, ``seen`` the issue numbers already imported at exactly that time
  (GitHub's ``since`` is inclusive: they come again and are passed over without a comment request),
  ``etag`` the ETag of the list request ``since`` makes, when that request answered everything on
  one page (a 304 to it then proves nothing changed). Replaced atomically (temp file, fsync,
  ``rename``, fsync of the folder) and only after the imports it covers: a kill before the rename
  leaves the previous cursor, whose issues come again and are no-ops by content.
* ``last_sync.json``: what the last sync did and why it stopped (the recorded reason).
* ``.sync.lock``: one sync of a tracker at a time (a ``flock``; the kernel drops it on a kill).

No token is ever written here: these records hold times, numbers, ETags and reasons only.
"""

import contextlib
import fcntl
import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vba_assets.domain.canonical import canonical_bytes
from vba_assets.store import Workspace
from vba_assets.store.atomic import fsync_dir, write_all

TRACKERS_DIR = "trackers"
CURSOR_FILE = "cursor.json"
LAST_SYNC_FILE = "last_sync.json"
LOCK_FILE = ".sync.lock"
CURSOR_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Cursor:
    """Where a tracker's next sync starts (see the module docstring)."""

    since: str | None = None
    seen: tuple[int, ...] = ()
    etag: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": CURSOR_SCHEMA_VERSION,
            "since": self.since,
            "seen": sorted(set(self.seen)),
            "etag": self.etag,
        }


def tracker_dir(workspace: Workspace, name: str) -> Path:
    return workspace.root / TRACKERS_DIR / name


def read_cursor(workspace: Workspace, name: str) -> Cursor:
    """The stored cursor; none (or an unreadable one) starts from the beginning, which re-imports
    nothing (every import is idempotent by content) and misses nothing."""
    path = tracker_dir(workspace, name) / CURSOR_FILE
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return Cursor()
    if not isinstance(data, dict) or data.get("schema_version") != CURSOR_SCHEMA_VERSION:
        return Cursor()
    since, seen, etag = data.get("since"), data.get("seen"), data.get("etag")
    if not isinstance(since, str | None) or not isinstance(etag, str | None):
        return Cursor()
    numbers = tuple(n for n in seen or [] if isinstance(n, int) and not isinstance(n, bool))
    return Cursor(since, numbers, etag)


def write_cursor(workspace: Workspace, name: str, cursor: Cursor) -> None:
    replace_file(tracker_dir(workspace, name) / CURSOR_FILE, canonical_bytes(cursor.to_json()))


def write_last_sync(workspace: Workspace, name: str, record: dict[str, Any]) -> None:
    data = json.dumps(record, ensure_ascii=False, indent=2, sort_keys=True).encode("utf-8")
    replace_file(tracker_dir(workspace, name) / LAST_SYNC_FILE, data + b"\n")


def read_last_sync(workspace: Workspace, name: str) -> dict[str, Any] | None:
    try:
        data = json.loads((tracker_dir(workspace, name) / LAST_SYNC_FILE).read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: readers and a kill see the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(8)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    fsync_dir(path.parent)


@contextlib.contextmanager
def sync_lock(workspace: Workspace, name: str) -> Iterator[bool]:
    """Hold the tracker's sync lock; yields False (and holds nothing) when another sync has it."""
    folder = tracker_dir(workspace, name)
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
