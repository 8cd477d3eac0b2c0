"""One durability barrier for many writes: Linux ``syncfs(2)`` (issue 14).

``fsync`` makes one file (or one folder's entries) durable; a store write used to cost one per
file and one per folder. ``syncfs`` makes *everything* written to one filesystem durable, so a batch
of files costs one call, and a batch of new names a second one (:mod:`vba_assets.store.batch`).

It is used only where it is sound, else the caller keeps its per-file fsyncs:

* Linux 5.8 or later. Older kernels return 0 from ``syncfs`` even when writeback failed, so a
  lost write would go unnoticed; 5.8+ report a writeback error of the filesystem (``EIO``,
  ``ENOSPC``, ...) that happened after the barrier's folder was opened, which is why a
  :class:`Barrier` is opened *before* the writes it is to cover.
* ``syncfs`` reachable through ``ctypes`` and working: the first call in a process probes it, and
  ``ENOSYS``/``EPERM``/``EINVAL`` (e.g. a seccomp filter) turn batching off for the process.
* Only for files on the barrier's own filesystem (``st_dev``); anything else is fsynced as before.

Any other failure of ``syncfs`` is an error, never swallowed: :class:`~vba_assets.errors.StoreError`
``ARTIFACT_NOT_DURABLE``. It may stem from another file of the same filesystem (the kernel does not
say whose write failed), so it errs on the side of refusing. ``os.sync`` is never used: it is
global and reports no error.
"""

import ctypes
import errno
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from vba_assets.errors import ErrorCode, StoreError

#: errno values meaning "syncfs is not available here": use per-file fsyncs instead.
_UNAVAILABLE = frozenset({errno.ENOSYS, errno.EPERM, errno.EINVAL})
_MIN_KERNEL = (5, 8)


def _kernel_reports_errors(release: str) -> bool:
    """Whether a Linux release string (``os.uname().release``) is 5.8 or later."""
    match = re.match(r"([0-9]+)\.([0-9]+)", release)
    return match is not None and (int(match[1]), int(match[2])) >= _MIN_KERNEL


def _load_syncfs() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux") or not _kernel_reports_errors(os.uname().release):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    syncfs: Callable[[int], int] = function
    return syncfs


class _State:
    """The process's ``syncfs`` (None: unavailable) and whether it was probed yet."""

    syncfs: Callable[[int], int] | None = _load_syncfs()
    probed = False


def syncfs_available() -> bool:
    """Whether :meth:`Barrier.open` can return a barrier in this process (not probed yet)."""
    return _State.syncfs is not None


def _call(fd: int) -> int:
    """``syncfs(fd)``: 0, or the errno it failed with."""
    assert _State.syncfs is not None
    ctypes.set_errno(0)
    if _State.syncfs(fd) == 0:
        return 0
    return ctypes.get_errno() or errno.EIO


class Barrier:
    """An open folder of one filesystem whose :meth:`sync` makes all of it durable at once.

    Open it before the writes it covers and close it after the last :meth:`sync`.
    """

    def __init__(self, fd: int, directory: Path) -> None:
        self._fd: int | None = fd
        self.directory = directory
        #: The filesystem (``st_dev``) it covers.
        self.dev = os.fstat(fd).st_dev

    @classmethod
    def open(cls, directory: Path) -> "Barrier | None":
        """A barrier on ``directory``'s filesystem, or None where ``syncfs`` is unavailable.

        Raises:
            StoreError: ``ARTIFACT_NOT_DURABLE`` if probing ``syncfs`` failed with an I/O error.
        """
        if _State.syncfs is None:
            return None
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        barrier = cls(fd, Path(directory))
        if not _State.probed:
            failure = _call(fd)
            if failure in _UNAVAILABLE:
                _State.syncfs = None
                barrier.close()
                return None
            _State.probed = True
            if failure:
                barrier.close()
                raise _not_durable(failure, directory, "probing syncfs")
        return barrier

    def covers(self, path: Path) -> bool:
        """Whether ``path`` (an existing file or folder) is on this barrier's filesystem."""
        return os.stat(path).st_dev == self.dev

    def sync(self, what: str) -> None:
        """Make everything written to the filesystem so far durable.

        Raises:
            StoreError: ``ARTIFACT_NOT_DURABLE`` naming ``what`` if ``syncfs`` failed.
        """
        if self._fd is None:
            raise ValueError("the barrier is closed")
        failure = _call(self._fd)
        if failure:
            raise _not_durable(failure, self.directory, what)

    def close(self) -> None:
        """Close the folder (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def _not_durable(failure: int, directory: Path, what: str) -> StoreError:
    return StoreError(
        ErrorCode.ARTIFACT_NOT_DURABLE,
        f"syncfs on the filesystem of {directory} failed ({errno.errorcode.get(failure, failure)}: "
        f"{os.strerror(failure)}) while making {what} durable; nothing that refers to them was "
        "written. Check the disk (a write to this filesystem failed), then run again",
        path=str(directory),
        errno=failure,
    )
