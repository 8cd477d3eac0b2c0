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

The hash chain (``chain``):

* Each line of a chained log carries ``chain`` = sha256 of ``<sha256 of the previous line's bytes>``
  (64 zeros for the first line), a newline, and the canonical JSON of the line's own record
  without ``chain`` (:func:`chain_value`). A line thus commits to its own fields and, through the
  previous line's bytes, to every line before it: an edited, inserted, removed, reordered or
  renumbered line breaks the chain at that line or the next one. Removing lines from the *end*
  keeps the chain valid; what the remaining lines must contain is checked against the files of
  the revision (``vba verify``, :mod:`vba_assets.pipeline.integrity`).
* A log keeps the form it was started with: a new log is chained; a log written before chaining
  existed (its lines have no ``chain``) is continued without it, so an old revision's log never
  changes shape. The one exception is a log holding only ``created`` events (a revision numbered
  by an older release and never started): its next line starts the chain.
* A reader refuses (``ARTIFACT_CORRUPT``) a chained line whose ``chain`` does not match and an
  unchained line after a chained one. Whether a revision's log *must* be chained is decided by the
  revision's protocol version, which only the verifier knows (an unchained log of a protocol v4
  revision is a finding there).
"""

import fcntl
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from vba_assets.domain.canonical import (
    canonical_bytes,
    parse_canonical,
    sha256_hex,
    stored_canonical_bytes,
)
from vba_assets.domain.clock import format_timestamp
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store.atomic import ensure_dir, fsync_dir, write_all
from vba_assets.store.reading import (
    MAX_ARTIFACT_BYTES,
    Refusal,
    UnreadableFile,
    not_regular_reason,
    read_resolved_file,
    store_error,
)

EVENT_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
RESERVED_FIELDS = frozenset({"seq", "at", "event", "chain"})
#: The "previous line digest" of a log's first line.
GENESIS = "0" * 64
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class EventLog:
    """A parsed log: the committed records, their byte length, and any torn tail after them.

    ``unchained``: the ``seq`` of every committed line without a ``chain`` (all of them in a log
    written before chaining existed; none in a fully chained log).
    """

    records: list[dict[str, Any]]
    committed_size: int
    torn_tail: bytes
    unchained: tuple[int, ...] = ()
    last_line: bytes | None = None

    @property
    def chained(self) -> bool:
        """Whether the next appended line is chained (see the module docstring)."""
        if not self.records or "chain" in self.records[-1]:
            return True
        return all(record["event"] == "created" for record in self.records)


def chain_value(previous_line: bytes | None, record: dict[str, Any]) -> str:
    """The ``chain`` of a line holding ``record`` (its ``chain`` field is ignored) after
    ``previous_line`` (the previous line's bytes without the newline; None for the first line)."""
    previous = GENESIS if previous_line is None else sha256_hex(previous_line)
    own = canonical_bytes({key: value for key, value in record.items() if key != "chain"})
    return sha256_hex(previous.encode("ascii") + b"\n" + own)


def parse_event_log(data: bytes, where: str) -> EventLog:
    """Split ``data`` into committed records and a torn tail, validating every committed line.

    Raises:
        StoreError: ``ARTIFACT_CORRUPT`` naming the line that does not parse, is not canonical, is
            not an event record, or breaks the 1..n ``seq`` sequence.
    """
    committed_size = data.rfind(b"\n") + 1
    lines = data[:committed_size].split(b"\n")[:-1]
    records: list[dict[str, Any]] = []
    unchained: list[int] = []
    previous: bytes | None = None
    for number, line in enumerate(lines, start=1):
        line_where = f"{where} line {number}"
        record = parse_canonical(line, line_where)
        problem = _record_problem(record, number) or _chain_problem(
            record, previous, number, line, chained_before=len(unchained) < number - 1
        )
        if problem is not None:
            raise StoreError(
                ErrorCode.ARTIFACT_CORRUPT, f"{line_where}: {problem}", where=where, line=number
            )
        if "chain" not in record:
            unchained.append(number)
        records.append(record)
        previous = line
    return EventLog(records, committed_size, data[committed_size:], tuple(unchained), previous)


def _record_problem(record: Any, number: int) -> str | None:
    if not isinstance(record, dict):
        return "is not a JSON object"
    if not isinstance(record.get("at"), str) or not isinstance(record.get("event"), str):
        return "lacks a string 'at' or 'event'"
    if record.get("seq") != number or isinstance(record.get("seq"), bool):
        return f"has seq {record.get('seq')!r}, expected {number}"
    return None


def _line_chain(previous: bytes | None, line: bytes, chain: str) -> str:
    """:func:`chain_value` of a canonical line, from its bytes: removing one member from
    canonical JSON leaves the canonical JSON of the rest (keys stay sorted), so the record
    need not be serialized again."""
    member = b'"chain":"' + chain.encode("ascii") + b'"'
    own = (
        line.replace(member + b",", b"", 1)
        if member + b"," in line
        else line.replace(b"," + member, b"", 1)
    )
    if own == line:  # the only member: {"chain":"..."} (not a valid record anyway)
        own = line.replace(member, b"", 1)
    head = GENESIS if previous is None else sha256_hex(previous)
    return sha256_hex(head.encode("ascii") + b"\n" + own)


def _chain_problem(
    record: dict[str, Any],
    previous: bytes | None,
    number: int,
    line: bytes,
    *,
    chained_before: bool,
) -> str | None:
    if "chain" not in record:
        if chained_before:
            return "has no 'chain' although an earlier line is chained: the log was altered"
        return None
    chain = record["chain"]
    if not isinstance(chain, str) or not _DIGEST.match(chain):
        return "has a 'chain' that is not a sha256 hex digest"
    if chain != _line_chain(previous, line, chain):
        what = "the first line" if number == 1 else f"line {number} or a line before it"
        return f"breaks the hash chain: {what} was edited, removed, inserted or reordered"
    return None


def read_events(path: Path, where: str) -> list[dict[str, Any]]:
    """The committed records of the log at ``path`` (``[]`` if it does not exist yet)."""
    try:
        data = read_resolved_file(path, MAX_ARTIFACT_BYTES)
    except UnreadableFile as refused:
        if refused.kind is Refusal.MISSING:
            return []
        raise store_error(refused, where, where=where) from None
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
    check_event(event, fields)
    with locked_log(path, where) as (fd, log):
        line = next_line(log, event, fields, clock)
        append_line(fd, line)
    result: dict[str, Any] = json.loads(line)
    return result


def check_event(event: str, fields: dict[str, object]) -> None:
    """Refuse (``ARTIFACT_UNSERIALIZABLE``) an invalid event name, a reserved field name or a
    field value with no canonical JSON form, before anything touches the log."""
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
    canonical_bytes(dict(fields))


@contextmanager
def locked_log(path: Path, where: str) -> Iterator[tuple[int, EventLog]]:
    """The log's fd under its exclusive ``flock`` and its parsed committed content (a torn tail
    already truncated). The folder entry of a new log is fsynced when the block ends."""
    ensure_dir(path.parent)
    is_new = not os.path.exists(path)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NONBLOCK
    fd = os.open(path, flags, 0o644)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # a FIFO or device in its place is never read or written
            refused = UnreadableFile(Refusal.NOT_REGULAR, not_regular_reason(mode))
            raise store_error(refused, where, where=where)
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by close(), or by the kernel if we are killed
        log = parse_event_log(read_fd(fd), where)
        if log.torn_tail:
            os.ftruncate(fd, log.committed_size)
            os.fsync(fd)
        yield fd, log
    finally:
        os.close(fd)
    if is_new:
        fsync_dir(path.parent)


def next_line(
    log: EventLog, event: str, fields: dict[str, object], clock: Callable[[], datetime]
) -> bytes:
    """The bytes (without the newline) of the line that follows ``log``."""
    record: dict[str, Any] = {
        **fields,
        "seq": len(log.records) + 1,
        "at": format_timestamp(clock()),
        "event": event,
    }
    if log.chained:
        record["chain"] = chain_value(log.last_line, record)
    return stored_canonical_bytes(record)


def append_line(fd: int, line: bytes) -> None:
    """Commit one line (its newline added) to the log open at ``fd``: written, then fsynced."""
    write_all(fd, line + b"\n")
    os.fsync(fd)


def read_fd(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
