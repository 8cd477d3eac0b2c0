"""A case package (ARCHITECTURE 4); its workspace is :mod:`vba_assets.store.workspace`.

```
<workspace>/cases/<CASE-ID>/...                      one self-contained, portable folder per case
<workspace>/cases/<CASE-ID>/analysis/interpretations/<NNNN>/
    events.jsonl   .lock                             per revision
```

Every write is append-only and atomic (:mod:`vba_assets.store.atomic`); JSON is RFC 8785 canonical
(:mod:`vba_assets.domain.canonical`), so the sha256 of the bytes on disk is the artifact's identity
and its Dagster ``DataVersion``. Nothing here imports Dagster.
"""

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from vba_assets.domain.canonical import parse_canonical, sha256_hex, stored_canonical_bytes
from vba_assets.domain.case.ids import (
    format_revision,
    validate_case_id,
    validate_revision,
)
from vba_assets.domain.clock import utc_now
from vba_assets.domain.findings import Finding
from vba_assets.errors import ErrorCode, InputError, StoreError
from vba_assets.store import events as event_log
from vba_assets.store import versions
from vba_assets.store.atomic import remove_stale_temps
from vba_assets.store.batch import PublicationBatch
from vba_assets.store.layout import (
    EVENTS_FILE,
    FIRST_REPORT_VERSION,
    INTERPRETATIONS_DIR,
    REPORT_DIR,
    RevisionLayout,
)
from vba_assets.store.lease import Lease
from vba_assets.store.lock import LOCK_FILE, RevisionLock, acquire_revision_lock
from vba_assets.store.paths import confine, validate_relpath
from vba_assets.store.reading import (
    MAX_ARTIFACT_BYTES,
    Refusal,
    UnreadableFile,
    read_resolved_file,
    store_error,
)
from vba_assets.store.remote import IMPORT_LEASES, RemoteCase
from vba_assets.store.verify import verify_package

Clock = Callable[[], datetime]
#: Where the import locks of a workspace's cases live (hidden: never a case folder).
IMPORT_LOCKS_DIR = ".import-locks"


@dataclass(frozen=True)
class ArtifactRef:
    """A published artifact: where it is and the sha256 and size of the exact bytes on disk.

    ``created`` is ``False`` when identical bytes were already there (the write was a no-op).
    """

    relpath: str
    sha256: str
    size: int
    created: bool


class CasePackage:
    """One case folder. All paths are package-relative POSIX relpaths (see :mod:`.paths`)."""

    def __init__(
        self,
        root: Path | str,
        case_id: str,
        *,
        clock: Clock = utc_now,
        remote: RemoteCase | None = None,
    ) -> None:
        self.root = Path(root)
        self.case_id = validate_case_id(case_id)
        self.clock = clock
        #: The bucket this package is written through to (None: the local store alone).
        self.remote = remote
        #: Publications and folder entries not durable yet (see :meth:`flush`).
        self._batch = PublicationBatch()
        #: Folders already resolved inside the package: relpath -> absolute path.
        self._inside: dict[str, Path] = {}
        #: Valid relpaths in such a folder: relpath -> absolute path (its last part is checked
        #: for a symlink at each use, as before).
        self._paths: dict[str, Path] = {}

    def __repr__(self) -> str:
        return f"CasePackage(case_id={self.case_id!r}, root={str(self.root)!r})"

    # -- paths ---------------------------------------------------------------------------------

    def path(self, relpath: str) -> Path:
        """The absolute path of ``relpath`` (validated; symlink escapes refused).

        A folder once resolved inside the package is remembered, so a later path in it costs one
        ``lstat`` of its last part instead of resolving every part again, and so is each valid
        relpath in it, which is then neither validated nor joined again. Publications queued by this package are linked first
        (:mod:`vba_assets.store.batch`): the caller may look at the file system itself.
        """
        self._batch.settle()
        return self._resolve(relpath)

    def _resolve(self, relpath: str) -> Path:
        full = self._paths.get(relpath) if type(relpath) is str else None
        if full is not None and not os.path.islink(full):
            return full  # validated before, in a folder known to resolve inside the package
        validate_relpath(relpath)
        folder, _, name = relpath.rpartition("/")
        known = self._inside.get(folder)
        if known is not None:
            full = known / name
            if not os.path.islink(full):  # a symlinked last part is resolved in full below
                self._paths[relpath] = full
                return full
        full = confine(self.root, relpath)
        parent = full.parent
        if parent.is_dir() and not parent.is_symlink():
            self._inside[folder] = parent  # confine proved it resolves inside the package
        return full

    def exists(self, relpath: str) -> bool:
        """Whether an artifact file exists at ``relpath`` (or is queued to).

        For a remembered relpath (see :meth:`path`) one ``lstat`` both rules out a symlink and
        answers; a symlink, or any error but a missing file, takes the full path.
        """
        full = self._paths.get(relpath) if type(relpath) is str else None
        if full is not None:
            try:
                mode: int | None = os.lstat(full).st_mode
            except (FileNotFoundError, NotADirectoryError):
                mode = None
            except OSError:
                mode = stat.S_IFLNK  # let the full path decide, as before
            if mode is None or not stat.S_ISLNK(mode):
                return stat.S_ISREG(mode or 0) or self._batch.queued(full) is not None
        target = self._resolve(relpath)
        return self._batch.queued(target) is not None or target.is_file()

    # -- writes --------------------------------------------------------------------------------

    def write_bytes(self, relpath: str, data: bytes) -> ArtifactRef:
        """Publish ``data`` at ``relpath``: atomic, append-only, a no-op if identical.

        Raises:
            StoreError: ``ARTIFACT_CONFLICT`` if different bytes already exist there,
                ``ARTIFACT_PATH_INVALID`` for an invalid relpath.
        """
        target = self._resolve(relpath)
        data = bytes(data)
        try:
            if self.remote is not None:  # the system of record first (an object, then the file)
                self.remote.put(relpath, data)
            created = self._batch.publish(target, data)
        except StoreError as exc:
            if exc.code is not ErrorCode.ARTIFACT_CONFLICT:
                raise
            detail = {**exc.detail, "case_id": self.case_id, "relpath": relpath}
            existing = exc.detail.get("existing_sha256")
            what = f"existing sha256 {existing}" if existing else "a folder of that name exists"
            raise StoreError(
                ErrorCode.ARTIFACT_CONFLICT,
                f"case {self.case_id}: artifact {relpath} already exists with different content "
                f"({what}, new sha256 {sha256_hex(data)}); accepted artifacts are never modified, "
                "so re-analysis needs a new revision",
                **detail,
            ) from exc
        return ArtifactRef(relpath, sha256_hex(data), len(data), created)

    def write_json(self, relpath: str, obj: object) -> ArtifactRef:
        """Publish the canonical JSON of ``obj`` (models are dumped with ``mode="json"``)."""
        return self.write_bytes(relpath, stored_canonical_bytes(obj))

    def write_object(self, reldir: str, obj: object) -> ArtifactRef:
        """Publish ``obj`` content-addressed as ``reldir/<sha256 of its canonical JSON>.json``."""
        validate_relpath(reldir)
        data = stored_canonical_bytes(obj)
        return self.write_bytes(f"{reldir}/{sha256_hex(data)}.json", data)

    # -- reads ---------------------------------------------------------------------------------

    def read_bytes(self, relpath: str) -> bytes:
        """The bytes at ``relpath``: ``ARTIFACT_MISSING`` if there is no such file (or a folder),
        ``ARTIFACT_UNREADABLE`` if it is no regular file (a FIFO or device is never read from:
        :mod:`vba_assets.store.reading`) or cannot be read, ``ARTIFACT_TOO_LARGE`` past
        :data:`~vba_assets.store.reading.MAX_ARTIFACT_BYTES`."""
        target = self._resolve(relpath)
        queued = self._batch.queued(target)
        if queued is not None:
            return queued
        try:
            return read_resolved_file(target, MAX_ARTIFACT_BYTES)
        except UnreadableFile as refused:
            raise self._unreadable(refused, relpath) from None

    def _unreadable(self, refused: UnreadableFile, relpath: str) -> StoreError:
        if refused.kind in (Refusal.MISSING, Refusal.FOLDER):
            return StoreError(
                ErrorCode.ARTIFACT_MISSING,
                f"case {self.case_id} has no artifact {relpath}",
                case_id=self.case_id,
                relpath=relpath,
            )
        where = f"case {self.case_id}: {relpath}"
        return store_error(refused, where, case_id=self.case_id, relpath=relpath)

    def read_json(self, relpath: str) -> Any:
        """Parse a JSON artifact, refusing (``ARTIFACT_CORRUPT``) anything not canonical."""
        return parse_canonical(self.read_bytes(relpath), f"case {self.case_id}: {relpath}")

    def read_object(self, reldir: str, digest: str) -> Any:
        """Read ``reldir/<digest>.json``, checking that its bytes still hash to ``digest``."""
        relpath = f"{reldir}/{digest}.json"
        data = self.read_bytes(relpath)
        if sha256_hex(data) != digest:
            raise StoreError(
                ErrorCode.ARTIFACT_CORRUPT,
                f"case {self.case_id}: {relpath} has sha256 {sha256_hex(data)}, not its name",
                case_id=self.case_id,
                relpath=relpath,
            )
        return parse_canonical(data, f"case {self.case_id}: {relpath}")

    def artifact_ref(self, relpath: str) -> ArtifactRef:
        """The reference (sha256, size) of an existing artifact; ``created`` is ``False``."""
        data = self.read_bytes(relpath)
        return ArtifactRef(relpath, sha256_hex(data), len(data), False)

    def list_dir(self, reldir: str, *, recursive: bool = False) -> list[str]:
        """Sorted relpaths of the files in ``reldir`` (``""`` is the package root).

        Hidden entries (temp and lock files, and anything below a hidden folder) are never listed;
        sub-folders are descended only with ``recursive=True`` (symlinked folders are not). A
        missing folder lists as empty. Files queued by this package are listed too.
        """
        directory = self.root if reldir == "" else self._resolve(reldir)
        if not directory.is_dir():
            return []
        prefix = "" if reldir == "" else f"{reldir}/"
        found = {f"{prefix}{name}" for name in self._batch.queued_names(directory)}
        for entry in directory.iterdir():
            if entry.name.startswith("."):
                continue
            if entry.is_file():
                found.add(f"{prefix}{entry.name}")
            elif recursive and entry.is_dir() and not entry.is_symlink():
                found.update(self.list_dir(f"{prefix}{entry.name}", recursive=True))
        return sorted(found)

    # -- revisions -----------------------------------------------------------------------------

    def revision_dir(self, revision: str) -> str:
        """``analysis/interpretations/<NNNN>`` (raises ``InputError`` ``INVALID_REVISION``)."""
        return RevisionLayout(revision).dir

    def revisions(self) -> list[str]:
        """Revisions of this case that have a lifecycle log (created or started), sorted.

        A folder holding only a lock file (a refused attempt at an unknown revision) is not one.
        """
        directory = self.root / INTERPRETATIONS_DIR
        if not directory.is_dir():
            return []
        names = []
        for entry in directory.iterdir():
            try:
                validate_revision(entry.name)
            except InputError:
                continue
            if entry.is_dir() and (entry / EVENTS_FILE).is_file():
                names.append(entry.name)
        return sorted(names)

    def append_event(self, revision: str, event: str, **fields: object) -> dict[str, Any]:
        """Append ``{"seq", "at", "event", **fields}`` to the revision's ``events.jsonl``.

        Returns the record as readers will see it. See :mod:`vba_assets.store.events` for the
        crash and torn-tail rules.
        """
        relpath = RevisionLayout(revision).events
        where = f"case {self.case_id}: {relpath}"
        self.flush()  # an event may name files: they are durable before it is
        if self.remote is not None:
            path = self.path(relpath)
            return self.remote.append_event(
                RevisionLayout(revision).dir, path, where, event, fields, self.clock
            )
        return event_log.append_event(self.path(relpath), where, event, fields, self.clock)

    def flush(self) -> None:
        """Make every publication since the last flush durable, names included.

        Publication defers its folder fsync to here: :meth:`append_event` and the release of a
        lock flush first, so whatever an event or a later run can refer to is durable by then,
        and a stage that writes many files into one folder pays one folder fsync, not one per file.
        Under a lock, the files' own fsyncs are batched too (:mod:`vba_assets.store.batch`).
        """
        self._batch.flush()

    def read_events(self, revision: str) -> list[dict[str, Any]]:
        """The committed events of a revision, in ``seq`` order (a torn last line is ignored)."""
        relpath = RevisionLayout(revision).events
        where = f"case {self.case_id}: {relpath}"
        if self.remote is not None and not self._leased(revision):  # else no one else writes
            self.remote.sync_events(RevisionLayout(revision).dir, self._resolve(relpath), where)
        # the log is never a queued publication: no need to settle the batch
        return event_log.read_events(self._resolve(relpath), where)

    @contextmanager
    def lock(self, revision: str) -> Iterator[RevisionLock]:
        """Hold the revision's writer lock for the ``with`` block.

        Raises:
            StoreError: ``REVISION_LOCKED`` at once if another process (or this one) holds it.
        """
        revision_path = self.path(self.revision_dir(revision))
        held = acquire_revision_lock(
            revision_path / LOCK_FILE, self.case_id, revision, self.clock, self._pending_dirs()
        )
        with self._holding(held, self._take_lease(held, self.revision_dir(revision), revision)):
            yield held

    @contextmanager
    def import_lock(self, wait_s: float = 30.0) -> Iterator[RevisionLock]:
        """Hold the case's import lock while the case is imported: a second import of the same
        case id waits for the first to finish (up to ``wait_s``), then sees what it wrote. Stale
        temp files of a killed import are removed under it. The lock file lives beside the case
        folders (``cases/.import-locks/<CASE-ID>.lock``), so the package itself stays as
        imported."""
        path = self.root.parent / IMPORT_LOCKS_DIR / f"{self.case_id}.lock"
        held = acquire_revision_lock(
            path, self.case_id, "<import>", self.clock, self._pending_dirs(), wait_s=wait_s
        )
        lease_folder = f"{IMPORT_LEASES}/{self.case_id}"
        with self._holding(held, self._take_lease(held, lease_folder, "<import>", wait_s)):
            self._batch.settle()  # its own queued temp files are not stale
            remove_stale_temps(
                self.root, below=("", REPORT_DIR, *versions.version_folders(self.root))
            )
            yield held

    def pull(self) -> None:
        """With a bucket: copy what the working copy lacks (see :mod:`.remote`); else nothing."""
        if self.remote is not None:
            self._batch.settle()
            self.remote.pull(self._resolve, lambda relpath: f"case {self.case_id}: {relpath}")

    def _take_lease(
        self, held: RevisionLock, folder: str, revision: str, wait_s: float = 0.0
    ) -> Lease | None:
        """With a bucket: the lease of ``folder`` beside the local lock ``held`` (released if the
        lease is refused), then the working copy brought up to the bucket's."""
        if self.remote is None:
            return None
        try:
            lease = self.remote.take_lease(folder, revision, self.clock, wait_s=wait_s)
        except BaseException:
            held.release()
            raise
        try:
            self.pull()
        except BaseException:
            self.remote.drop_lease(lease)
            held.release()
            raise
        return lease

    def _leased(self, revision: str) -> bool:
        return self.remote is not None and any(
            held.held and name == revision for held, name in self.remote.leases
        )

    @contextmanager
    def _holding(self, held: RevisionLock, lease: Lease | None = None) -> Iterator[None]:
        """Release ``held`` (and ``lease``) at the end, after :meth:`flush` made what was
        written under it durable (also when the block raised)."""
        try:
            self._batch.begin(held.path.parent)
        except BaseException:
            if lease is not None and self.remote is not None:
                self.remote.drop_lease(lease)
            held.release()
            raise
        try:
            yield
        finally:
            try:
                self.flush()
            finally:
                self._batch.end()
                if lease is not None and self.remote is not None:
                    self.remote.drop_lease(lease)
                held.release()

    def _pending_dirs(self) -> set[Path]:
        """Where a new folder's entry waits for :meth:`flush`."""
        return self._batch.pending_dirs

    def new_revision(self, reason: str, report_version: str | None = None) -> str:
        """Create the next revision of this case (event ``created``) and return its number.

        The revision freezes ``report_version`` (default: the newest complete report version,
        :mod:`vba_assets.store.versions`); the event names it only when it is not ``0001``, so a
        case without later versions logs exactly what it logged before versions existed. A
        revision of a later version is numbered ``0002`` at least: ``0001`` always freezes the
        first import (it starts by itself, and may be queued already).

        Numbering holds a case-level lock, so two concurrent calls never get the same number
        (the second fails fast with ``REVISION_LOCKED``).

        Raises:
            StoreError: ``ARTIFACT_MISSING`` for a version that is not complete.
        """
        if report_version is None:  # a package without an import record has only 0001
            report_version = (versions.report_versions(self) or [FIRST_REPORT_VERSION])[-1]
        elif report_version != FIRST_REPORT_VERSION:
            versions.require_version(self, report_version)
        fields: dict[str, object] = {"reason": reason}
        if report_version != FIRST_REPORT_VERSION:
            fields[versions.REPORT_VERSION_FIELD] = report_version
        lock_path = self.root / INTERPRETATIONS_DIR / LOCK_FILE
        held = acquire_revision_lock(lock_path, self.case_id, "<numbering>", self.clock)
        lease = self._take_lease(held, INTERPRETATIONS_DIR, "<numbering>")
        try:
            existing = self.revisions()
            while existing and not self.read_events(existing[-1]):
                existing.pop()  # a log holding only a torn line: a creation a kill cut short
            if report_version != FIRST_REPORT_VERSION:
                existing = sorted({FIRST_REPORT_VERSION, *existing})
            revision = format_revision(int(existing[-1]) + 1 if existing else 1)
            self.append_event(revision, "created", **fields)
            return revision
        finally:
            if lease is not None and self.remote is not None:
                self.remote.drop_lease(lease)
            held.release()

    # -- verification --------------------------------------------------------------------------

    def verify(self) -> list[Finding]:
        """Check the package offline; see :mod:`vba_assets.store.verify` for the finding kinds."""
        self._batch.settle()
        return verify_package(self.root)


__all__ = ["ArtifactRef", "CasePackage", "Clock", "Finding"]
