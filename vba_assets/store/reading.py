"""Reading a file that must be a regular file of bounded size, without ever blocking on it.

The one way the store (:meth:`~vba_assets.store.package.CasePackage.read_bytes`, ``vba verify``)
and the intake (:func:`vba_assets.report_files.read_confined`) read a file whose kind they do not
control: a case package copied from elsewhere, a report folder. :func:`read_regular_file`

* opens with ``O_NOFOLLOW | O_NONBLOCK``: a symlink (the last part of the path) is refused
  instead of followed, so a loop or a link to ``/dev/zero`` is never opened through it, and a
  FIFO opens at once instead of waiting for a writer;
* ``fstat``\\ s the open descriptor before reading, so what is checked is what is read (no race
  with a rename between a ``stat`` and an ``open``): a FIFO, socket, device or folder is refused
  without a single ``read``;
* refuses a file over ``max_bytes`` by its size, and reads at most ``max_bytes + 1`` bytes, so a
  file that grows while it is read is refused too.

Failures are :class:`UnreadableFile` with a :class:`Refusal` kind; each caller maps the kind to its
own :class:`~vba_assets.errors.ErrorCode` (the store's ``ARTIFACT_*``: :func:`store_error`; the
intake's ``REPORT_*``; ``vba verify``'s ``PACKAGE_FILE_*`` findings).
"""

import errno
import os
import stat
from enum import StrEnum
from pathlib import Path
from typing import Any

from vba_assets.errors import ErrorCode, StoreError

#: The size a file of a case package may have (a dispatch record holds a whole request: the
#: report, at most 8 MiB, and its context): larger is never written by the store.
MAX_ARTIFACT_BYTES = 64 * 1024 * 1024
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CHUNK = 1 << 20


class Refusal(StrEnum):
    """Why a file was not read."""

    MISSING = "missing"  # no such file (or a parent is not a folder)
    SYMLINK = "symlink"  # the last part of the path is a symlink (or a symlink loop)
    FOLDER = "folder"  # a folder, not a file
    NOT_REGULAR = "not_regular"  # a FIFO, socket or device
    TOO_LARGE = "too_large"  # over the size limit, by its size or while being read
    UNREADABLE = "unreadable"  # any other OS error (permissions, I/O)


class UnreadableFile(Exception):
    """A file :func:`read_regular_file` refused; ``reason`` says why in words."""

    def __init__(self, kind: Refusal, reason: str, *, size: int | None = None) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        self.size = size


def not_regular_reason(mode: int) -> str:
    """Why a file of ``mode`` (``st_mode``) is not read, in words: ``"is a FIFO, not a ..."``."""
    if stat.S_ISFIFO(mode):
        what = "a FIFO"
    elif stat.S_ISSOCK(mode):
        what = "a socket"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        what = "a device file"
    else:
        what = "of another kind"
    return f"is {what}, not a regular file"


def read_regular_file(path: Path | str, max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path`` (its last part not a symlink), at most
    ``max_bytes`` of them.

    Raises:
        UnreadableFile: the file is missing, a symlink, not a regular file, larger than
            ``max_bytes`` or cannot be read (see :class:`Refusal`).
    """
    try:
        fd = os.open(path, _FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        raise UnreadableFile(Refusal.MISSING, "does not exist") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnreadableFile(Refusal.SYMLINK, "is a symlink (not followed)") from None
        raise UnreadableFile(Refusal.UNREADABLE, f"cannot be opened: {error.strerror}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableFile(Refusal.FOLDER, "is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(Refusal.NOT_REGULAR, not_regular_reason(info.st_mode))
        if info.st_size > max_bytes:
            raise UnreadableFile(
                Refusal.TOO_LARGE,
                f"is {info.st_size} bytes, over the limit of {max_bytes}",
                size=info.st_size,
            )
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0 and (chunk := os.read(fd, min(_CHUNK, remaining))):
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as error:
        raise UnreadableFile(Refusal.UNREADABLE, f"cannot be read: {error.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise UnreadableFile(
            Refusal.TOO_LARGE, f"grew past the limit of {max_bytes} bytes while being read"
        )
    return data


def read_resolved_file(path: Path | str, max_bytes: int) -> bytes:
    """:func:`read_regular_file` of ``path``, following a symlinked last part once resolved
    (``os.path.realpath``): for callers that confined the path already. A symlink loop stays
    :attr:`Refusal.SYMLINK`."""
    try:
        return read_regular_file(path, max_bytes)
    except UnreadableFile as refused:
        if refused.kind is not Refusal.SYMLINK:
            raise
    return read_regular_file(os.path.realpath(path), max_bytes)


def store_error(refused: UnreadableFile, what: str, **detail: Any) -> StoreError:
    """The store's error for a file it refused to read (``what`` names it):
    ``ARTIFACT_MISSING``, ``ARTIFACT_TOO_LARGE`` or ``ARTIFACT_UNREADABLE``."""
    if refused.kind in (Refusal.MISSING, Refusal.FOLDER):
        code = ErrorCode.ARTIFACT_MISSING
    elif refused.kind is Refusal.TOO_LARGE:
        code = ErrorCode.ARTIFACT_TOO_LARGE
    else:
        code = ErrorCode.ARTIFACT_UNREADABLE
    return StoreError(code, f"{what} {refused.reason}", **detail, refusal=refused.kind.value)
