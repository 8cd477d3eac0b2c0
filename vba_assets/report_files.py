"""Reading a report's files (the IO of :mod:`vba_assets.intake`): names and confined reads.

A report folder's files are read only when they really lie inside the folder (symlinks resolved)
and are regular files within the size budget (:func:`read_confined`). A file name that is not
valid UTF-8 (POSIX hands undecodable bytes over as surrogates) is never written, logged or hashed
as is (:func:`decodable`, :func:`printable`).
"""

import os
import stat
from pathlib import Path

from vba_assets.domain.case.text import reject
from vba_assets.errors import ErrorCode


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
    """Read a regular file that really lies inside ``real_folder``, at most ``max_bytes``."""
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(real_folder):
        reject(
            ErrorCode.REPORT_INVALID_FIELD,
            field,
            f"{path.name!r} resolves (through a symlink) to outside the report's folder",
        )
    try:
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode):
            reject(ErrorCode.REPORT_UNREADABLE, field, f"{path.name!r} is not a regular file")
        if info.st_size > max_bytes:
            reject(
                ErrorCode.REPORT_TOO_LARGE,
                field,
                f"{path.name!r} is {info.st_size} bytes; the report may hold {max_bytes} more",
                size=info.st_size,
                limit=max_bytes,
            )
        with open(real, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        reject(ErrorCode.REPORT_UNREADABLE, field, f"{path.name!r} does not exist")
    except OSError as error:
        reject(
            ErrorCode.REPORT_UNREADABLE, field, f"{path.name!r} cannot be read: {error.strerror}"
        )
    if len(data) > max_bytes:
        reject(ErrorCode.REPORT_TOO_LARGE, field, f"{path.name!r} grew past the size limit")
    return data
