"""One writer per (case, revision): a ``flock`` on ``<revision_dir>/.lock`` (ARCHITECTURE 4).

* Acquisition is non-blocking (``LOCK_EX | LOCK_NB``): a second holder fails fast with
  ``REVISION_LOCKED`` naming the case, the revision, and the holder's pid, host and start time,
  which the holder writes into the lock file. A short critical section (an import, under the
  case's own lock) may instead wait up to ``wait_s`` seconds for the holder to finish.
* The kernel drops a ``flock`` when its holder dies, so a lock left by a killed process is
  recovered by the next acquirer with no stale-lock heuristics. The lock file itself is never
  deleted (deleting a flock file lets two processes lock two different inodes); on release its
  content is cleared.
* Not re-entrant: taking a lock this process already holds raises ``REVISION_LOCKED`` at once
  instead of deadlocking.
* The fd is close-on-exec, so subprocesses do not inherit the lock; a child created by a bare
  ``fork()`` shares it with its parent until both have closed it.
* ``flock`` is reliable only on a local filesystem: do not put the workspace on NFS.
* The holder's details need no durability: they are read only while the lock is held, from the
  page cache, and a crash frees the lock whatever the file says (its clearing on release is not
  fsynced either). So they are not fsynced, and a :class:`~vba_assets.store.package.CasePackage`
  makes the lock's new folders durable with the files written under it (``pending_dirs``)
  instead of one fsync per folder at once.
"""

import errno
import fcntl
import json
import os
import socket
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.clock import format_timestamp
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store.atomic import ensure_dir
from vba_assets.store.reading import Refusal, UnreadableFile, not_regular_reason, store_error

LOCK_FILE = ".lock"
#: How often a waiting acquirer retries (``wait_s`` > 0).
_POLL_S = 0.005

_held_guard = threading.Lock()
_held: dict[str, tuple[int, str]] = {}  # realpath of lock file -> (pid, acquired_at)


@dataclass(frozen=True)
class LockHolder:
    """Who holds a revision lock, as written into the lock file."""

    pid: int
    hostname: str
    acquired_at: str


@dataclass
class RevisionLock:
    """A held revision lock; release it by leaving the ``with CasePackage.lock(...)`` block."""

    case_id: str
    revision: str
    path: Path
    holder: LockHolder
    _fd: int | None = field(default=None, repr=False)

    @property
    def held(self) -> bool:
        """Whether this object still holds the lock."""
        return self._fd is not None

    def release(self) -> None:
        """Release the lock (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with _held_guard:
            _held.pop(os.path.realpath(self.path), None)
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)


def acquire_revision_lock(
    path: Path,
    case_id: str,
    revision: str,
    clock: Callable[[], datetime],
    pending_dirs: set[Path] | None = None,
    *,
    wait_s: float = 0.0,
) -> RevisionLock:
    """Take the lock at ``path`` or raise ``REVISION_LOCKED``: at once (the default), or after
    waiting up to ``wait_s`` seconds for another process to release it (a short critical
    section such as an import). Taking a lock this process holds is refused at once.

    Folders created for the lock file are fsynced at once, or added to ``pending_dirs``."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return _acquire_once(path, case_id, revision, clock, pending_dirs)
        except _Busy as busy:
            if time.monotonic() >= deadline:
                raise busy.error from None
            time.sleep(_POLL_S)


class _Busy(Exception):
    """Another process holds the lock (``error`` says who)."""

    def __init__(self, error: StoreError) -> None:
        super().__init__(error.message)
        self.error = error


def _acquire_once(
    path: Path,
    case_id: str,
    revision: str,
    clock: Callable[[], datetime],
    pending_dirs: set[Path] | None,
) -> RevisionLock:
    ensure_dir(path.parent, pending_dirs)
    key = os.path.realpath(path)
    with _held_guard:
        mine = _held.get(key)
        if mine is not None and mine[0] == os.getpid():
            raise StoreError(
                ErrorCode.REVISION_LOCKED,
                f"case {case_id} revision {revision} is already locked by this process "
                f"(pid {mine[0]}) since {mine[1]}; revision locks are not re-entrant",
                case_id=case_id,
                revision=revision,
                holder_pid=mine[0],
                holder_since=mine[1],
            )
        fd = _open_lock_file(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise _Busy(locked_error(case_id, revision, holder)) from None
        except BaseException:
            os.close(fd)
            raise
        holder = LockHolder(os.getpid(), socket.gethostname(), format_timestamp(clock()))
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, canonical_bytes(holder.__dict__), 0)  # not fsynced: see the docstring
        except BaseException:
            os.close(fd)
            raise
        _held[key] = (holder.pid, holder.acquired_at)
    return RevisionLock(case_id, revision, path, holder, fd)


#: A FIFO, device or symlink put where the lock file belongs is refused, never opened for blocking
#: IO or followed (the event log and the package readers do the same).
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK


def _open_lock_file(path: Path) -> int:
    """The lock file's fd, or ``ARTIFACT_UNREADABLE`` when something else stands in its place."""
    what = f"lock file {path}"
    try:
        fd = os.open(path, _LOCK_FLAGS, 0o644)
    except OSError as error:
        if error.errno != errno.ELOOP:
            raise
        refused = UnreadableFile(Refusal.SYMLINK, "is a symlink (not followed)")
        raise store_error(refused, what, where=str(path)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        refused = UnreadableFile(Refusal.NOT_REGULAR, not_regular_reason(mode))
        raise store_error(refused, what, where=str(path))
    return fd


def _read_holder(fd: int) -> LockHolder | None:
    try:
        info = json.loads(os.pread(fd, 4096, 0))
        return LockHolder(int(info["pid"]), str(info["hostname"]), str(info["acquired_at"]))
    except (ValueError, KeyError, TypeError):
        return None  # the holder has locked but not yet written its details


def locked_error(case_id: str, revision: str, holder: LockHolder | None) -> StoreError:
    if holder is None:
        who = "another process (its details are not written yet)"
        detail: dict[str, object] = {}
    else:
        who = f"pid {holder.pid} on host {holder.hostname} since {holder.acquired_at}"
        detail = {
            "holder_pid": holder.pid,
            "holder_hostname": holder.hostname,
            "holder_since": holder.acquired_at,
        }
    return StoreError(
        ErrorCode.REVISION_LOCKED,
        f"case {case_id} revision {revision} is locked by {who}: another run is writing this "
        "revision. Wait for it to finish; a killed holder releases the lock automatically",
        case_id=case_id,
        revision=revision,
        **detail,
    )
