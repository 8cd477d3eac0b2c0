"""A case package whose system of record is a bucket (issue 31): the write-through of one case.

The local store stays the one implementation of every stage. With a bucket, each host keeps a
*working copy* of the packages it touches (the workspace folder), and :class:`RemoteCase` keeps
it in step with the bucket:

* **Artifacts**: every publication of :class:`~vba_assets.store.package.CasePackage` is first
  created in the bucket with a conditional PUT (``If-None-Match: *``) of the same bytes, at
  ``<prefix>/cases/<CASE-ID>/<relpath>``; only then is it published locally. Identical bytes
  already there are a no-op, different bytes the same ``ARTIFACT_CONFLICT`` as locally: two
  writers can never both create an artifact.
* **Events**: line ``n`` of a revision's ``events.jsonl`` is the create-only object
  ``<revision folder>/.events/<n, 8 digits>`` holding the line's exact bytes (newline included).
  Its conditional PUT decides the order under concurrent writers: a writer that loses the race
  for ``n`` reads the winner's line, appends it to its local log, and chains its own line after
  it as ``n + 1``. The local ``events.jsonl`` is the concatenation of the objects, byte for byte,
  so its hash chain is the one the bucket holds.
* **Hydration**: :meth:`RemoteCase.pull` copies every object the working copy lacks (one LIST
  and a GET per missing object); it runs when a package is opened and when a lease is taken.
  Hidden keys (``.events``, ``.lease``) are never artifacts: a relpath cannot start with ``.``.
* **Writers**: one per revision, by a lease (:mod:`vba_assets.store.lease`) beside the local
  ``flock``.

Every object is written before anything that refers to it (an event naming a file is created
after the file's object), so a reader of the bucket never sees a dangling reference.
"""

import hashlib
import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from vba_assets.domain.case.ids import CASE_ID_PATTERN
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.objectstore import ObjectStore
from vba_assets.store import events as event_log
from vba_assets.store.atomic import conflict_error, publish_bytes
from vba_assets.store.layout import EVENTS_FILE
from vba_assets.store.lease import Lease, acquire_lease
from vba_assets.store.paths import validate_relpath

CASES = "cases"
EVENTS_DIR = ".events"
IMPORT_LEASES = "import-locks"
_SEQ_WIDTH = 8


def event_key(revision_dir: str, seq: int) -> str:
    """The key (below a case) of line ``seq`` of the log in ``revision_dir``."""
    return f"{revision_dir}/{EVENTS_DIR}/{seq:0{_SEQ_WIDTH}d}"


def remote_case_ids(store: ObjectStore) -> list[str]:
    """The ids of the cases in the bucket, sorted (folders with an invalid id are skipped)."""
    names = (info.name.rstrip("/") for info in store.list(f"{CASES}/", delimiter=True))
    return sorted(name for name in names if CASE_ID_PATTERN.fullmatch(name))


class RemoteCase:
    """The bucket side of one case package (keys below ``<prefix>/cases/<CASE-ID>/``)."""

    def __init__(self, store: ObjectStore, case_id: str, *, lease_s: float = 60.0) -> None:
        self.store = store
        self.case_id = case_id
        self.base = f"{CASES}/{case_id}"
        self.lease_s = lease_s
        #: Leases this package holds; a lost one refuses every further write.
        self.leases: list[tuple[Lease, str]] = []
        #: Revision folders whose local log was compared with the bucket's by this object.
        self._synced: set[str] = set()

    def key(self, relpath: str) -> str:
        return f"{self.base}/{relpath}"

    # -- writes --------------------------------------------------------------------------------

    def put(self, relpath: str, data: bytes) -> bool:
        """Create the object of ``relpath`` (True), or find identical bytes there (False).

        Raises:
            StoreError: ``ARTIFACT_CONFLICT`` if the bucket holds different bytes there;
                ``REVISION_LOCKED`` if a lease of this package was lost.
        """
        self.check_leases()
        existing = self.store.create(self.key(relpath), data)
        if existing is None:
            return True
        if existing == data:
            return False
        where = Path(f"{self.store.url}/{self.key(relpath)}")
        raise conflict_error(where, hashlib.sha256(existing).hexdigest(), data)

    def check_leases(self) -> None:
        for lease, revision in self.leases:
            lease.check(self.case_id, revision)

    def take_lease(
        self, folder: str, revision: str, clock: Callable[[], datetime], *, wait_s: float = 0.0
    ) -> Lease:
        """Take the lease of ``folder`` (a key below the case, or an absolute one for an import)."""
        key = folder if folder.startswith(f"{IMPORT_LEASES}/") else self.key(folder)
        lease = acquire_lease(
            self.store, key, self.case_id, revision, clock, self.lease_s, wait_s=wait_s
        )
        self.leases.append((lease, revision))
        return lease

    def drop_lease(self, lease: Lease) -> None:
        self.leases = [(held, revision) for held, revision in self.leases if held is not lease]
        lease.release()

    # -- events --------------------------------------------------------------------------------

    def append_event(
        self,
        revision_dir: str,
        path: Path,
        where: str,
        event: str,
        fields: dict[str, object],
        clock: Callable[[], datetime],
    ) -> dict[str, Any]:
        """Append one line: the bucket's conditional create of ``seq`` decides, then the local
        log gets the same bytes (see the module docstring)."""
        event_log.check_event(event, fields)
        self.check_leases()
        with event_log.locked_log(path, where) as (fd, log):
            # Optimistic once this package has compared the log with the bucket's (which also
            # refuses a working copy that is ahead): a lease holder is the only writer, so the
            # create comes first and only a lost race costs a catch-up. Line n is only ever
            # created by a writer that has line n - 1, so the keys stay 1..n.
            if revision_dir not in self._synced:
                log = self._catch_up(fd, log, revision_dir, where)
            while True:  # each round another writer won a seq: bounded by the writers' lines
                line = event_log.next_line(log, event, fields, clock)
                stored = line + b"\n"
                existing = self.store.create(
                    self.key(event_key(revision_dir, len(log.records) + 1)), stored
                )
                if existing is None or existing == stored:
                    event_log.append_line(fd, line)
                    result: dict[str, Any] = json.loads(line)
                    return result
                log = self._catch_up(fd, log, revision_dir, where)

    def sync_events(self, revision_dir: str, path: Path, where: str) -> None:
        """Bring the local log of ``revision_dir`` up to the bucket's (nothing if both are empty)."""
        if not os.path.exists(path) and not self._event_names(revision_dir):
            return
        with event_log.locked_log(path, where) as (fd, log):
            self._catch_up(fd, log, revision_dir, where)

    def _event_names(self, revision_dir: str) -> list[int]:
        names = [info.name for info in self.store.list(f"{self.base}/{revision_dir}/{EVENTS_DIR}/")]
        numbers = sorted(int(name) for name in names if name.isdigit())
        if numbers != list(range(1, len(numbers) + 1)):
            raise StoreError(
                ErrorCode.ARTIFACT_CORRUPT,
                f"case {self.case_id}: {revision_dir} event lines in {self.store.url} are not "
                f"1..n ({numbers[:5]}...): a line object was removed or injected",
                case_id=self.case_id,
                relpath=revision_dir,
            )
        return numbers

    def _catch_up(
        self, fd: int, log: event_log.EventLog, revision_dir: str, where: str
    ) -> event_log.EventLog:
        """Append the bucket's lines after the local ones (validated first: a damaged line in the
        bucket is ``ARTIFACT_CORRUPT`` and nothing is appended). Returns the new log."""
        numbers = self._event_names(revision_dir)
        have = len(log.records)
        if len(numbers) < have:
            raise StoreError(
                ErrorCode.ARTIFACT_CORRUPT,
                f"case {self.case_id}: the working copy's {where} has {have} line(s), the bucket "
                f"{len(numbers)}: the working copy was written around the bucket",
                case_id=self.case_id,
                relpath=revision_dir,
            )
        self._synced.add(revision_dir)
        if len(numbers) == have:
            return log
        new = b"".join(self._get(self.key(event_key(revision_dir, seq))) for seq in numbers[have:])
        merged = event_log.parse_event_log(event_log.read_fd(fd) + new, where)
        if merged.torn_tail:
            raise StoreError(
                ErrorCode.ARTIFACT_CORRUPT,
                f"case {self.case_id}: an event line object of {revision_dir} in the bucket "
                "does not end with a newline",
                case_id=self.case_id,
                relpath=revision_dir,
            )
        event_log.append_line(fd, new[:-1])  # the newline is added back
        return merged

    # -- hydration -----------------------------------------------------------------------------

    def pull(self, resolve: Callable[[str], Path], events_where: Callable[[str], str]) -> int:
        """Copy what the working copy lacks from the bucket; returns the number of files copied.

        ``resolve`` maps a relpath to its confined local path; a local file whose size differs
        from its object is ``ARTIFACT_CORRUPT`` (the working copy was edited).
        """
        copied = 0
        revision_dirs: set[str] = set()
        for info in self.store.list(f"{self.base}/"):
            parts = info.name.split("/")
            if EVENTS_DIR in parts:
                revision_dirs.add("/".join(parts[: parts.index(EVENTS_DIR)]))
                continue
            if any(part.startswith(".") for part in parts):
                continue  # leases: never artifacts
            validate_relpath(info.name)
            target = resolve(info.name)
            if os.path.lexists(target):
                if os.path.getsize(target) != info.size:
                    raise StoreError(
                        ErrorCode.ARTIFACT_CORRUPT,
                        f"case {self.case_id}: working copy file {info.name} has "
                        f"{os.path.getsize(target)} bytes, its object in {self.store.url} "
                        f"{info.size}: one of them was altered",
                        case_id=self.case_id,
                        relpath=info.name,
                    )
                continue
            publish_bytes(target, self._get(self.key(info.name)))
            copied += 1
        for revision_dir in sorted(revision_dirs):
            events = f"{revision_dir}/{EVENTS_FILE}"
            self.sync_events(revision_dir, resolve(events), events_where(events))
        return copied

    def _get(self, key: str) -> bytes:
        fetched = self.store.get(key)
        if fetched is None:
            raise StoreError(
                ErrorCode.ARTIFACT_MISSING,
                f"case {self.case_id}: {key} was listed in {self.store.url} but is gone",
                case_id=self.case_id,
                relpath=key,
            )
        return fetched.data
