"""Artifact paths inside a case package: validation and confinement.

A relpath is POSIX and relative to the package root (``analysis/interpretations/0001/input.json``).
Refused with :class:`~vba_assets.errors.StoreError` ``ARTIFACT_PATH_INVALID``: non-strings, the
empty string, NUL, backslashes, absolute paths, empty parts (``a//b``, a trailing ``/``), ``.`` and
``..`` parts, parts starting with ``.`` (that namespace is reserved for the store's temp and lock
files, so no artifact can collide with them), and paths that resolve through a symlink to outside
the package.
"""

import os
import stat
from pathlib import Path

from vba_assets.errors import ErrorCode, StoreError


def relpath_problem(relpath: object) -> str | None:
    """Why ``relpath`` is not a valid artifact path, or ``None`` if it is."""
    if not isinstance(relpath, str):
        return f"must be a string, not {type(relpath).__name__}"
    if relpath == "":
        return "is empty"
    if "\x00" in relpath:
        return "contains a NUL character"
    if "\\" in relpath:
        return "contains a backslash; use '/' as the separator"
    if relpath.startswith("/"):
        return "is absolute; use a path relative to the case package"
    for part in relpath.split("/"):
        if part == "":
            return "has an empty part (a leading, trailing or doubled '/')"
        if part in {".", ".."}:
            return f"contains a {part!r} part; paths must stay inside the case package"
        if part.startswith("."):
            return f"has a hidden part {part!r}; names starting with '.' are reserved for the store"
    return None


def validate_relpath(relpath: object) -> str:
    """Return ``relpath`` unchanged or raise ``ARTIFACT_PATH_INVALID`` naming the problem."""
    problem = relpath_problem(relpath)
    if problem is not None:
        raise StoreError(
            ErrorCode.ARTIFACT_PATH_INVALID,
            f"invalid artifact path {relpath!r}: {problem}",
            relpath=str(relpath),
        )
    assert isinstance(relpath, str)
    return relpath


def confine(root: Path, relpath: str) -> Path:
    """The absolute path of a validated ``relpath`` under ``root``, refusing symlink escapes.

    Symlinks that stay inside the package are followed; one that leads outside it (for an existing
    path or any existing parent of a path about to be created) is refused.
    """
    validate_relpath(relpath)
    full = root.joinpath(*relpath.split("/"))
    if not _symlink_below(root, relpath):
        return full  # no '..' (validated) and no link below the root: it stays inside
    real_root = os.path.realpath(root)
    real_full = os.path.realpath(full)
    if real_full != real_root and not real_full.startswith(real_root.rstrip(os.sep) + os.sep):
        raise StoreError(
            ErrorCode.ARTIFACT_PATH_INVALID,
            f"invalid artifact path {relpath!r}: it resolves through a symlink to outside the "
            "case package",
            relpath=relpath,
        )
    return full


def _symlink_below(root: Path, relpath: str) -> bool:
    """Whether any existing component of ``relpath`` below ``root`` is a symlink (one ``lstat``
    per component, stopping at the first that does not exist)."""
    current = str(root)
    for part in relpath.split("/"):
        current = os.path.join(current, part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return True
        except (FileNotFoundError, NotADirectoryError):
            return False
    return False
