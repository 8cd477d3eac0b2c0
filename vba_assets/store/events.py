"""The append-only lifecycle log of a revision: ``<revision_dir>/events.jsonl`` (ARCHITECTURE 4, 9).

Each line is the canonical JSON of ``{"seq": n, "at": "<UTC ISO-8601, microseconds>Z", "event":
<name>, ...fields}`` followed by ``\\n``; ``seq`` runs 1..n.

Crash safety and the torn tail:

* A line is *committed* once its trailing newline is on disk: :func:`append_event` writes the whole
  line with ``O_APPEND`` and fsyncs before returning.
* A writer killed mid-write can leave a last line without a newline (a *torn tail*). It was never
  committed (its ``append_event`` never returned), so readers ignore it, and the next append, under
  the log's own lock, truncates the file back to the last newline before writing. Only uncommitted
  bytes are ever removed; every committed record stays byte-for-byte as written.
* Appends serialize on an exclusive ``flock`` of the log file itself, held only for one append.
  It is independent of the revision lock (:mod:`vba_assets.store.lock`), so a run that holds the
  revision lock can append without deadlocking, and an append is safe even without it.
* Every complete line must parse, be canonical and carry the expected ``seq``; otherwise reading or
  appending raises ``ARTIFACT_CORRUPT`` rather than continuing a damaged log.
"""

import fcntl
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from vba_assets.domain.canonical import canonical_bytes, parse_canonical
from vba_assets.domain.clock import format_timestamp
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store.atomic import ensure_dir, fsync_dir, write_all

EVENT_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
RESERVED_FIELDS = frozenset({"seq", "at", "event"})


@dataclass(frozen=True)
class EventLog:
    """A parsed log: the committed records, their byte length, and any torn tail after them."""

    records: list[dict[str, Any]]
    committed_size: int
    torn_tail: bytes


def parse_event_log(data: bytes, where: str) -> EventLog:
    """Split ``data`` into committed records and a torn tail, validating every committed line.

    Raises:
        StoreError: ``ARTIFACT_CORRUPT`` naming the line that does not parse, is not canonical, is
            not an event record, or breaks the 1..n ``seq`` sequence.
    """
    committed_size = data.rfind(b"\n") + 1
    lines = data[:committed_size].split(b"\n")[:-1]
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        line_where = f"{where} line {number}"
        record = parse_canonical(line, line_where)
        problem = _record_problem(record, number)
        if problem is not None:
            raise StoreError(
                ErrorCode.ARTIFACT_CORRUPT, f"{line_where}: {problem}", where=where, line=number
            )
        records.append(record)
    return EventLog(records, committed_size, data[committed_size:])


def _record_problem(record: Any, number: int) -> str | None:
    if not isinstance(record, dict):
        return "is not a JSON object"
    if not isinstance(record.get("at"), str) or not isinstance(record.get("event"), str):
        return "lacks a string 'at' or 'event'"
    if record.get("seq") != number or isinstance(record.get("seq"), bool):
        return f"has seq {record.get('seq')!r}, expected {number}"
    return None


def read_events(path: Path, where: str) -> list[dict[str, Any]]:
    """The committed records of the log at ``path`` (``[]`` if it does not exist yet)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    return parse_event_log(data, where).records


def append_event(
    path: Path,
    where: str,
    event: str,
    fields: dict[str, object],
    clock: Callable[[], datetime],
) -> dict[str, Any]:
    """Append one record and return it exactly as a reader will see it.

    Raises:
        StoreError: ``ARTIFACT_UNSERIALIZABLE`` for an invalid event name, a reserved field name
            or a field value with no canonical JSON form (nothing is written); ``ARTIFACT_CORRUPT``
            if the existing log is damaged.
    """
    if not isinstance(event, str) or not EVENT_NAME_PATTERN.match(event):
        raise StoreError(
            ErrorCode.ARTIFACT_UNSERIALIZABLE,
            f"invalid event name {event!r}: use lower_snake_case (e.g. 'started', 'blocked')",
            event=str(event),
        )
    reserved = sorted(RESERVED_FIELDS.intersection(fields))
    if reserved:
        raise StoreError(
            ErrorCode.ARTIFACT_UNSERIALIZABLE,
            f"event fields {reserved} are reserved; the store sets seq, at and event itself",
            fields=reserved,
        )
    canonical_bytes(dict(fields))  # refuse unserializable fields before touching the log

    ensure_dir(path.parent)
    is_new = not os.path.exists(path)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by close(), or by the kernel if we are killed
        log = parse_event_log(_read_fd(fd), where)
        if log.torn_tail:
            os.ftruncate(fd, log.committed_size)
            os.fsync(fd)
        record = {
            **fields,
            "seq": len(log.records) + 1,
            "at": format_timestamp(clock()),
            "event": event,
        }
        line = canonical_bytes(record)
        write_all(fd, line + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    if is_new:
        fsync_dir(path.parent)
    result: dict[str, Any] = json.loads(line)
    return result


def _read_fd(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
