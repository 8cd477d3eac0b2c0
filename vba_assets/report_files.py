"""Reading a report's files (the IO of :mod:`vba_assets.intake`): names and confined reads.

A report folder's files are read only when they really lie inside the folder (symlinks resolved)
and are regular files within the size budget (:func:`read_confined`). A file name that is not
valid UTF-8 (POSIX hands undecodable bytes over as surrogates) is never written, logged or hashed
as is (:func:`decodable`, :func:`printable`).
"""

import os
from pathlib import Path

from vba_assets.domain.case.text import reject
from vba_assets.errors import ErrorCode
from vba_assets.store.reading import Refusal, UnreadableFile, read_regular_file


def decodable(name: str) -> bool:
    """Whether a file name is valid UTF-8 (POSIX hands undecodable bytes over as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(name: str) -> str:
    """A file name as printable UTF-8: undecodable bytes shown as ``\\xNN``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def read_confined(path: Path, real_folder: Path, field: str, max_bytes: int) -> bytes:
    """Read a regular file that really lies inside ``real_folder``, at most ``max_bytes``
    (opened as :func:`~vba_assets.store.reading.read_regular_file` does: never a FIFO or device,
    never blocking)."""
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(real_folder):
        reject(
            ErrorCode.REPORT_INVALID_FIELD,
            field,
            f"{path.name!r} resolves (through a symlink) to outside the report's folder",
        )
    try:
        return read_regular_file(real, max_bytes)
    except UnreadableFile as refused:
        if refused.kind is Refusal.TOO_LARGE and refused.size is not None:
            reject(
                ErrorCode.REPORT_TOO_LARGE,
                field,
                f"{path.name!r} is {refused.size} bytes; the report may hold {max_bytes} more",
                size=refused.size,
                limit=max_bytes,
            )
        if refused.kind is Refusal.TOO_LARGE:
            reject(ErrorCode.REPORT_TOO_LARGE, field, f"{path.name!r} grew past the size limit")
        reject(ErrorCode.REPORT_UNREADABLE, field, f"{path.name!r} {refused.reason}")
