"""Atomic, append-only publication of files (ARCHITECTURE 4).

:func:`publish_bytes` writes ``.<name>.tmp-<pid>-<random>`` in the target directory, fsyncs it, then
hard-links it to the final name with :func:`os.link`, which fails if the name exists: two racing
writers cannot overwrite each other and no reader ever sees a partial file under the final name. The
temp name is unlinked and the directory fsynced, so the new entry survives a power loss.

A writer killed before the link leaves at most its temp file. That is harmless: temp names start
with ``.``, which no artifact path may (see :mod:`vba_assets.store.paths`), so they are invisible to
listings and can never be mistaken for an artifact; ``CasePackage.verify()`` reports them as
``stale_temp`` findings, and :func:`remove_stale_temps` deletes them under the lock that makes
them stale (a revision's by its next stage run, a case's import files by its next import).
Published files are read-only (mode 0444, before the umask). The workspace must live on a local POSIX filesystem that
supports hard links and ``fsync`` on directories.
"""

import contextlib
import hashlib
import os
import re
import secrets
from pathlib import Path

from vba_assets.errors import ErrorCode, StoreError

#: ``.<final name>.tmp-<pid>-<16 hex>``
TEMP_NAME_PATTERN = re.compile(r"^\.(?P<final>.+)\.tmp-(?P<pid>[0-9]+)-(?P<token>[0-9a-f]{16})$")

_CHUNK = 1 << 20


def temp_name(final_name: str) -> str:
    """A fresh temp-file name for ``final_name`` owned by this process."""
    return f".{final_name}.tmp-{os.getpid()}-{secrets.token_hex(8)}"


def publish_bytes(path: Path, data: bytes, pending_dirs: set[Path] | None = None) -> bool:
    """Publish ``data`` under ``path`` atomically and append-only.

    The file's bytes are fsynced before it gets its name (so a name never points to a partial
    file). Its directory is fsynced at once, or, with ``pending_dirs``, added to that set for the
    caller to fsync in one batch before anything refers to the file (see
    :meth:`~vba_assets.store.package.CasePackage.flush`).

    Returns:
        ``True`` if the file was written, ``False`` if an identical file already existed (nothing is
        touched, not even its mtime).

    Raises:
        StoreError: ``ARTIFACT_CONFLICT`` if ``path`` exists with different content (the existing
            file is left intact), ``ARTIFACT_PATH_INVALID`` if a parent is not a directory.
    """
    path, data = Path(path), bytes(data)
    written = write_temp(path, data, pending_dirs)
    if written is None:
        return False
    return link_temp(written[0], path, data, pending_dirs)


def write_temp(
    path: Path, data: bytes, pending_dirs: set[Path] | None = None, *, unsynced_dev: int = -1
) -> tuple[Path, bool] | None:
    """The first half of a publication: ``data`` in a fresh temp file beside ``path``.

    The temp file is fsynced, unless it lies on the filesystem ``unsynced_dev`` (an ``st_dev``),
    whose caller makes it durable with one barrier for many files before linking any of them
    (:mod:`vba_assets.store.batch`).

    Returns:
        ``(temp, synced)``, or None if an identical file already exists at ``path``.

    Raises:
        StoreError: as :func:`publish_bytes`.
    """
    path = Path(path)
    if os.path.lexists(path):
        _require_identical(path, data)
        return None
    ensure_dir(path.parent, pending_dirs)
    temp = path.parent / temp_name(path.name)
    try:
        synced = _write_temp(temp, data, unsynced_dev)
    except BaseException:
        unlink_quietly(temp)
        raise
    return temp, synced


def link_temp(temp: Path, path: Path, data: bytes, pending_dirs: set[Path] | None = None) -> bool:
    """The second half: give the temp file of ``data`` (durable by now) the name ``path``, remove
    the temp name, and fsync the folder at once or add it to ``pending_dirs``.

    Returns:
        ``True`` if linked, ``False`` if another writer published identical bytes first.

    Raises:
        StoreError: ``ARTIFACT_CONFLICT`` if another writer published different bytes first.
    """
    try:
        try:
            os.link(temp, path)
            created = True
        except FileExistsError:
            created = False
    finally:
        unlink_quietly(temp)
    if not created:  # another writer published first
        _require_identical(path, data)
        return False
    if pending_dirs is None:
        fsync_dir(path.parent)
    else:
        pending_dirs.add(path.parent)
    return True


def ensure_dir(directory: Path, pending_dirs: set[Path] | None = None) -> None:
    """Create ``directory`` and missing parents, fsyncing each new entry's parent directory (at
    once, or by adding it to ``pending_dirs``)."""
    missing: list[Path] = []
    current = Path(directory)
    while not current.is_dir():
        if os.path.lexists(current) and not os.path.isdir(current):
            raise StoreError(
                ErrorCode.ARTIFACT_PATH_INVALID,
                f"{current} exists and is not a directory",
                path=str(current),
            )
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for new_dir in reversed(missing):
        try:
            os.mkdir(new_dir)
        except FileExistsError:
            if not new_dir.is_dir():
                raise StoreError(
                    ErrorCode.ARTIFACT_PATH_INVALID,
                    f"{new_dir} exists and is not a directory",
                    path=str(new_dir),
                ) from None
            continue
        if pending_dirs is None:
            fsync_dir(new_dir.parent)
        else:
            pending_dirs.add(new_dir.parent)


def fsync_dir(directory: Path) -> None:
    """fsync a directory so entries created or removed in it are durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def _write_temp(temp: Path, data: bytes, unsynced_dev: int) -> bool:
    """Write ``temp``; fsync it unless it is on ``unsynced_dev``. Returns whether it was fsynced."""
    # Read-only from birth (the creating fd may still write): a published artifact is never edited.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
    try:
        write_all(fd, data)
        if unsynced_dev >= 0 and os.fstat(fd).st_dev == unsynced_dev:
            return False
        os.fsync(fd)
        return True
    finally:
        os.close(fd)


def unlink_quietly(path: Path) -> None:
    """Remove ``path`` if it exists."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _require_identical(path: Path, data: bytes) -> None:
    if os.path.isdir(path):
        raise StoreError(
            ErrorCode.ARTIFACT_CONFLICT,
            f"{path} already exists as a directory; artifacts are append-only",
            path=str(path),
        )
    existing = hashlib.sha256()
    same = os.path.getsize(path) == len(data)
    offset = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            existing.update(chunk)
            if same and chunk != data[offset : offset + len(chunk)]:
                same = False
            offset += len(chunk)
    if same and offset == len(data):
        return
    raise conflict_error(path, existing.hexdigest(), data)


def conflict_error(path: Path, existing_sha256: str, data: bytes) -> StoreError:
    """``ARTIFACT_CONFLICT``: ``path`` holds (or is queued with) other bytes than ``data``."""
    new_sha = hashlib.sha256(data).hexdigest()
    return StoreError(
        ErrorCode.ARTIFACT_CONFLICT,
        f"{path} already exists with different content (existing sha256 {existing_sha256}, "
        f"new sha256 {new_sha}); artifacts are append-only and never overwritten",
        path=str(path),
        existing_sha256=existing_sha256,
        new_sha256=new_sha,
    )


def remove_stale_temps(root: Path, below: tuple[str, ...] | None = None) -> list[str]:
    """Delete the store temp files under ``root`` (recursively, or only directly in the folders
    ``below``, relative to ``root``; ``""`` is ``root`` itself). The caller holds the lock that
    makes them stale: no writer of these folders can still own one. Returns their relpaths."""
    removed: list[str] = []
    if below is None:
        folders = [Path(folder) for folder, _, _ in os.walk(root)] if root.is_dir() else []
    else:
        folders = [root / part if part else root for part in below]
    for folder in folders:
        if not folder.is_dir():
            continue
        stale = [entry for entry in os.listdir(folder) if TEMP_NAME_PATTERN.match(entry)]
        for name in stale:
            unlink_quietly(folder / name)
            removed.append((folder / name).relative_to(root).as_posix())
        if stale:
            fsync_dir(folder)
    return sorted(removed)
