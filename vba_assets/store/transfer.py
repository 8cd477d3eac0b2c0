"""Copy case packages between a bucket and a local folder (``vba export``, ``vba import-package``).

Both directions copy bytes as they are and leave the proof to ``vba verify`` on arrival (the CLI
runs it): a download writes every object of the case as a file, and the event line objects of a
revision, in ``seq`` order, as its ``events.jsonl`` (nothing is parsed on the way, so a damaged
or missing line is a verify finding, not a crash); an upload creates every file of a package
create-only (identical objects already there are a no-op, different ones ``ARTIFACT_CONFLICT``)
and each committed line of an ``events.jsonl`` as its line object. A downloaded package needs
neither the bucket nor the database to be verified.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from vba_assets.domain.case.ids import validate_case_id
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.objectstore import ObjectStore
from vba_assets.store.atomic import ensure_dir, fsync_dir, publish_bytes, write_all
from vba_assets.store.layout import EVENTS_FILE
from vba_assets.store.paths import validate_relpath
from vba_assets.store.reading import MAX_ARTIFACT_BYTES, UnreadableFile, read_regular_file
from vba_assets.store.remote import CASES, EVENTS_DIR, RemoteCase, event_key


@dataclass
class Transfer:
    """What a copy did: files written (or objects created) and those already identical."""

    case_id: str
    copied: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    def line(self) -> str:
        return f"{self.case_id}: {len(self.copied)} copied, {len(self.unchanged)} already there"


def download_case(store: ObjectStore, case_id: str, case_dir: Path) -> Transfer:
    """Write the bucket's package of ``case_id`` into ``case_dir`` (which must not exist yet).

    Raises:
        StoreError: ``ARTIFACT_MISSING`` if the bucket has no such case, ``ARTIFACT_CONFLICT`` if
            ``case_dir`` exists, ``ARTIFACT_PATH_INVALID`` for a key that is no valid relpath.
    """
    validate_case_id(case_id)
    if os.path.lexists(case_dir):
        raise StoreError(
            ErrorCode.ARTIFACT_CONFLICT,
            f"{case_dir} exists: export into a folder that does not hold case {case_id} yet",
            case_id=case_id,
            path=str(case_dir),
        )
    base = f"{CASES}/{case_id}/"
    listing = store.list(base)
    if not listing:
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{store.url} has no case {case_id}",
            case_id=case_id,
        )
    transfer = Transfer(case_id)
    logs: dict[str, list[str]] = {}
    for info in listing:
        parts = info.name.split("/")
        if EVENTS_DIR in parts:
            index = parts.index(EVENTS_DIR)
            logs.setdefault("/".join(parts[:index]), []).append(info.name)
            continue
        if any(part.startswith(".") for part in parts):
            continue  # leases
        validate_relpath(info.name)
        publish_bytes(case_dir / info.name, _get(store, base + info.name))
        transfer.copied.append(info.name)
    for folder, names in sorted(logs.items()):
        lines = [_get(store, base + name) for name in sorted(names)]
        relpath = f"{folder}/{EVENTS_FILE}"
        validate_relpath(relpath)
        _write_log(case_dir / relpath, b"".join(lines))
        transfer.copied.append(relpath)
    return transfer


def upload_case(store: ObjectStore, case_dir: Path, case_id: str) -> Transfer:
    """Create the package at ``case_dir`` in the bucket as ``case_id``, object by object.

    Raises:
        StoreError: ``ARTIFACT_CONFLICT`` if the bucket holds other bytes under a name (the
            objects created before it stay: each is a valid, verifiable part of the package).
    """
    validate_case_id(case_id)
    remote = RemoteCase(store, case_id)
    transfer = Transfer(case_id)
    for path in sorted(_files(case_dir)):
        relpath = path.relative_to(case_dir).as_posix()
        validate_relpath(relpath)
        data = _read(path, relpath)
        if path.name == EVENTS_FILE:
            folder = relpath.rpartition("/")[0]
            committed = data[: data.rfind(b"\n") + 1]
            for seq, line in enumerate(committed.splitlines(keepends=True), start=1):
                _create(remote, transfer, event_key(folder, seq), line)
            continue
        _create(remote, transfer, relpath, data)
    return transfer


def _create(remote: RemoteCase, transfer: Transfer, relpath: str, data: bytes) -> None:
    (transfer.copied if remote.put(relpath, data) else transfer.unchanged).append(relpath)


def _files(root: Path) -> list[Path]:
    """The package's files: hidden entries (locks, temp files) and symlinks are never sent."""
    found = []
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if not name.startswith(".")]
        for name in filenames:
            path = Path(folder) / name
            if not name.startswith(".") and not path.is_symlink():
                found.append(path)
    return found


def _read(path: Path, relpath: str) -> bytes:
    try:
        return read_regular_file(path, MAX_ARTIFACT_BYTES)
    except UnreadableFile as refused:
        raise StoreError(
            ErrorCode.ARTIFACT_UNREADABLE,
            f"{relpath}: {refused.reason}; fix the package (vba verify) before importing it",
            relpath=relpath,
        ) from None


def _get(store: ObjectStore, key: str) -> bytes:
    fetched = store.get(key)
    if fetched is None:
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING, f"{store.url}: {key} was listed but is gone", key=key
        )
    return fetched.data


def _write_log(path: Path, data: bytes) -> None:
    """An event log as the store keeps one: a plain file (appendable), fsynced."""
    ensure_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(path.parent)
