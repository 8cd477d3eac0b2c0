"""One writer per (case, revision) across hosts: a lease in the bucket (issue 31).

The local store's ``flock`` (:mod:`vba_assets.store.lock`) cannot span hosts. In the bucket a lock
is a sequence of create-only *generations*: ``<folder>/.lease/<generation, 10 digits>``, each a
small canonical JSON record ``{state, token, pid, hostname, acquired_at, lease_s}``.

* **Take**: list the generations; if the newest is ``held`` and not expired, fail fast with the
  same ``REVISION_LOCKED`` error as the local store (its holder's pid, host and start time). Else
  create the next generation with ``If-None-Match: *``: of two racing takers exactly one creates
  it, the other re-reads and gets ``REVISION_LOCKED``.
* **Renew**: a daemon thread creates the next generation every ``lease_s / 3`` seconds. If that
  create finds an object already there, another host took the expired lease over: the lease is
  ``lost`` and every later write through the package is refused (``REVISION_LOCKED``).
* **Expire**: a generation expires ``lease_s`` seconds after its ``LastModified``, judged against
  the server's ``Date``: both clocks are the server's, so skewed host clocks cannot make two hosts
  disagree. A killed holder stops renewing, and its lease is taken over after at most ``lease_s``.
* **Release**: a ``released`` generation, so the next taker need not wait for the expiry.

Why not ``If-Match`` on one lease object, or a PostgreSQL advisory lock: create-only generations
need only ``If-None-Match: *``, the one conditional write the artifacts need anyway (fewer
server features to trust; moto's ``If-Match`` works too, but S3-compatible servers added it
later); they leave an audit trail of every take-over; and the bucket stays the only system a
writer must reach (an advisory lock would tie the store's correctness to the Dagster database,
which a team may not run on PostgreSQL, and would not be visible to ``vba export`` readers).

What the lease cannot do (no lock service can without fencing tokens): a holder paused past its
expiry (a long GC or a frozen VM) may write once more before it notices the loss. The store
stays consistent anyway: artifacts are create-only (different bytes are ``ARTIFACT_CONFLICT``)
and event lines are create-only per ``seq`` (:mod:`vba_assets.store.remote`).
"""

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from vba_assets.domain.canonical import canonical_bytes, parse_canonical
from vba_assets.domain.clock import format_timestamp
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.objectstore import ObjectStore
from vba_assets.store.lock import LockHolder, locked_error

LEASE_DIR = ".lease"
_WIDTH = 10
#: How often a waiting taker retries (``wait_s`` > 0).
_POLL_S = 0.05


class Lease:
    """A held lease; :meth:`release` ends it (idempotent)."""

    def __init__(
        self,
        store: ObjectStore,
        folder: str,
        holder: LockHolder,
        generation: int,
        record: dict[str, Any],
        lease_s: float,
        renewed_at: float,
    ) -> None:
        self.store = store
        self.folder = folder
        self.holder = holder
        self.generation = generation
        self.lease_s = lease_s
        self.lost = False
        #: ``time.monotonic()`` before the request that created the newest generation: the lease
        #: is certainly ours until ``lease_s`` after it (LastModified is later than that).
        self._renewed_at = renewed_at
        self._record = record
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew_loop, name="vba-lease", daemon=True)
        self._thread.start()

    @property
    def held(self) -> bool:
        return not self._stop.is_set() and not self.lost

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            try:
                self._next(self._record)
            except StoreError:
                continue  # the bucket is unreachable: try again; expiry is judged by the taker

    def _next(self, record: dict[str, Any]) -> bool:
        """Create the next generation; False (and ``lost``) if another taker created it."""
        with self._guard:
            if self.lost:
                return False
            key = generation_key(self.folder, self.generation + 1)
            data = canonical_bytes(record)
            started = time.monotonic()
            existing = self.store.create(key, data)
            if existing is not None and existing != data:
                self.lost = True
                self._stop.set()
                return False
            self.generation += 1
            self._renewed_at = started
            return True

    def release(self) -> None:
        """Stop renewing and record the release (nothing if the lease was lost meanwhile)."""
        if self._stop.is_set() and not self._thread.is_alive():
            return
        self._stop.set()
        self._thread.join()
        if not self.lost:
            self._next({**self._record, "state": "released"})

    def check(self, case_id: str, revision: str) -> None:
        """Raise ``REVISION_LOCKED`` if the lease was lost to another holder, or may have been: not
        renewed for ``lease_s`` (this process was frozen, or the bucket unreachable, that long)."""
        if not self.lost and time.monotonic() - self._renewed_at >= self.lease_s:
            self.lost = True
            self._stop.set()
        if self.lost:
            raise StoreError(
                ErrorCode.REVISION_LOCKED,
                f"case {case_id} revision {revision}: this run's lease in {self.store.url} "
                "expired (not renewed for lease_s) or was taken over by another run; nothing "
                "more is written",
                case_id=case_id,
                revision=revision,
            )


def generation_key(folder: str, generation: int) -> str:
    return f"{folder}/{LEASE_DIR}/{generation:0{_WIDTH}d}"


def acquire_lease(
    store: ObjectStore,
    folder: str,
    case_id: str,
    revision: str,
    clock: Callable[[], datetime],
    lease_s: float,
    *,
    wait_s: float = 0.0,
) -> Lease:
    """Take the lease of ``folder`` (a key prefix) or raise ``REVISION_LOCKED``: at once, or after
    waiting up to ``wait_s`` seconds (by the server's clock) for the holder to release it."""
    token = secrets.token_hex(8)
    holder = LockHolder(os.getpid(), socket.gethostname(), format_timestamp(clock()))
    record: dict[str, Any] = {
        "state": "held",
        "token": token,
        "pid": holder.pid,
        "hostname": holder.hostname,
        "acquired_at": holder.acquired_at,
        "lease_s": lease_s,
    }
    waited_since: datetime | None = None
    while True:
        latest, busy, now = _latest(store, folder, case_id, revision)
        if busy is None:
            generation = latest + 1
            data = canonical_bytes(record)
            started = time.monotonic()
            existing = store.create(generation_key(folder, generation), data)
            if existing is None or existing == data:
                return Lease(store, folder, holder, generation, record, lease_s, started)
            continue  # another taker created it first: look again (it holds the lease now)
        waited_since = waited_since or now
        if (now - waited_since).total_seconds() >= wait_s:
            raise busy
        threading.Event().wait(_POLL_S)


def _latest(
    store: ObjectStore, folder: str, case_id: str, revision: str
) -> tuple[int, StoreError | None, datetime]:
    """The newest generation number (0: none), the error if it is held and unexpired, and the
    server's clock."""
    names = [info.name for info in store.list(f"{folder}/{LEASE_DIR}/")]
    numbers = sorted(int(name) for name in names if name.isdigit() and len(name) == _WIDTH)
    if not numbers:
        return 0, None, datetime.now(UTC)
    latest = numbers[-1]
    fetched = store.get(generation_key(folder, latest))
    if fetched is None:  # listed but gone: nothing deletes generations; treat as free
        return latest, None, datetime.now(UTC)
    record = parse_canonical(fetched.data, f"{store.url} {generation_key(folder, latest)}")
    if not isinstance(record, dict) or record.get("state") != "held":
        return latest, None, fetched.server_now
    lease_s = float(record.get("lease_s", 0))
    expires = fetched.last_modified + timedelta(seconds=lease_s)
    if expires <= fetched.server_now:
        return (
            latest,
            None,
            fetched.server_now,
        )  # a holder that stopped renewing: killed, or cut off
    holder = LockHolder(
        int(record.get("pid", 0)), str(record.get("hostname", "?")), str(record.get("acquired_at"))
    )
    error = locked_error(case_id, revision, holder)
    error.detail["lease_expires_at"] = format_timestamp(expires)
    return latest, error, fetched.server_now
