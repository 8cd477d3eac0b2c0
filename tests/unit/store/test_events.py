"""events.jsonl: seq order, canonical lines, torn tails from a real SIGKILL, concurrent writers."""

import json
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.store.processes import Child
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import CasePackage, Workspace, canonical_bytes, sha256_hex
from vba_assets.store.events import GENESIS, chain_value

EVENTS = "analysis/interpretations/0001/events.jsonl"


def test_records_have_seq_at_and_fields_as_canonical_lines(package: CasePackage) -> None:
    first = package.append_event("0001", "started", protocol_version=2)
    second = package.append_event("0001", "blocked", code="RESEARCH_UNAVAILABLE", retry_at=None)

    assert {key: value for key, value in first.items() if key != "chain"} == {
        "seq": 1,
        "at": "2025-03-01T12:00:00.000000Z",
        "event": "started",
        "protocol_version": 2,
    }
    assert first["chain"] == chain_value(None, first)
    assert second["chain"] == chain_value(canonical_bytes(first), second)
    assert second["seq"] == 2
    assert second["at"] == "2025-03-01T12:00:01.000001Z"
    assert package.read_events("0001") == [first, second]
    raw = package.read_bytes(EVENTS)
    assert raw == canonical_bytes(first) + b"\n" + canonical_bytes(second) + b"\n"


def test_timestamps_are_converted_to_utc(tmp_path: Path) -> None:
    plus_two = timezone(timedelta(hours=2))
    workspace = Workspace(tmp_path, clock=lambda: datetime(2025, 1, 1, 2, 30, tzinfo=plus_two))
    record = workspace.case("C1").append_event("0001", "started")
    assert record["at"] == "2025-01-01T00:30:00.000000Z"


def test_no_events_yet_reads_as_empty(package: CasePackage) -> None:
    assert package.read_events("0001") == []


@pytest.mark.parametrize(
    ("event", "fields", "fragment"),
    [
        ("Started", {}, "invalid event name"),
        ("", {}, "invalid event name"),
        ("started", {"seq": 9}, "reserved"),
        ("started", {"at": "now"}, "reserved"),
        ("started", {"score": float("nan")}, "NaN"),
    ],
)
def test_invalid_events_are_refused_and_nothing_is_written(
    package: CasePackage, event: str, fields: dict[str, object], fragment: str
) -> None:
    with pytest.raises(StoreError) as caught:
        package.append_event("0001", event, **fields)
    assert caught.value.code is ErrorCode.ARTIFACT_UNSERIALIZABLE
    assert fragment in caught.value.message
    assert not package.exists(EVENTS)


def test_a_torn_tail_from_a_killed_writer_is_ignored_and_the_next_append_is_clean(
    package: CasePackage, spawn: Callable[..., Child]
) -> None:
    package.append_event("0001", "started")
    package.append_event("0001", "dispatched", stage="plan", n=1)
    committed = package.read_bytes(EVENTS)

    child = spawn("torn-append", package.case_id, "0001")
    returncode, output = child.finish()
    assert returncode == -9, output

    torn = package.read_bytes(EVENTS)
    assert torn.startswith(committed) and len(torn) > len(committed)
    assert not torn.endswith(b"\n")
    assert [event["seq"] for event in package.read_events("0001")] == [1, 2]
    assert [(f.code, f.is_error) for f in package.verify()] == [
        (ErrorCode.PACKAGE_EVENTS_TORN_TAIL, False)
    ]

    third = package.append_event("0001", "accepted", stage="plan")

    assert third["seq"] == 3
    raw = package.read_bytes(EVENTS)
    assert raw == committed + canonical_bytes(third) + b"\n"
    assert [json.loads(line)["seq"] for line in raw.splitlines()] == [1, 2, 3]
    assert package.verify() == []


def test_a_synthetic_torn_tail_without_any_newline_is_dropped(package: CasePackage) -> None:
    package.path("analysis/interpretations/0001").mkdir(parents=True)
    package.path(EVENTS).write_bytes(b'{"at":"2025-')
    assert package.read_events("0001") == []
    assert package.append_event("0001", "started")["seq"] == 1
    assert package.read_bytes(EVENTS).count(b"\n") == 1


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b'{"at":"x","event":"a","seq":1}\n{"at":"x","event":"b","seq":3}\n', "expected 2"),
        (b"not json\n", "not valid JSON"),
        (b'{"event":"a", "seq":1, "at":"x"}\n', "not RFC 8785"),
        (b'{"at":"x","event":"a","seq":1}\n[1]\n', "not a JSON object"),
        (b'{"at":"x","seq":1}\n', "lacks a string"),
    ],
)
def test_a_damaged_log_is_refused_for_reading_and_appending(
    package: CasePackage, content: bytes, fragment: str
) -> None:
    package.path("analysis/interpretations/0001").mkdir(parents=True)
    package.path(EVENTS).write_bytes(content)
    for operation in (
        lambda: package.read_events("0001"),
        lambda: package.append_event("0001", "resumed"),
    ):
        with pytest.raises(StoreError) as caught:
            operation()
        assert caught.value.code is ErrorCode.ARTIFACT_CORRUPT
        assert fragment in caught.value.message
        assert "line" in caught.value.message
    assert package.read_bytes(EVENTS) == content  # never "repaired" behind the operator's back
    assert [finding.code for finding in package.verify()] == [ErrorCode.PACKAGE_EVENTS_INVALID]


@pytest.mark.parametrize("mode", ["locked", "bare"])
def test_two_processes_appending_concurrently_give_seq_1_to_n(
    package: CasePackage, spawn: Callable[..., Child], tmp_path: Path, mode: str
) -> None:
    """``locked``: the writers take the revision lock in turn; ``bare``: only the log's own lock."""
    per_worker = 40
    go_file = tmp_path / "go"
    workers = [
        spawn("append-events", package.case_id, "0001", per_worker, tag, go_file, mode)
        for tag in ("A", "B")
    ]
    go_file.touch()
    for worker in workers:
        returncode, output = worker.finish()
        assert returncode == 0, output

    events = package.read_events("0001")
    raw_lines = package.read_bytes(EVENTS).split(b"\n")
    assert raw_lines[-1] == b""  # every line complete: nothing torn, nothing glued together
    assert [json.loads(line) for line in raw_lines[:-1]] == events
    assert [event["seq"] for event in events] == list(range(1, 2 * per_worker + 1))
    for tag in ("A", "B"):
        indexes = [event["index"] for event in events if event["worker"] == tag]
        assert indexes == list(range(per_worker))
    assert package.verify() == []


# --- the hash chain -------------------------------------------------------------------------------


def _chained_log(package: CasePackage) -> list[bytes]:
    package.append_event("0001", "started", input="input.json")
    package.append_event("0001", "dispatched", stage="plan", attempt=1)
    package.append_event("0001", "accepted", stage="plan")
    return package.read_bytes(EVENTS).splitlines(keepends=True)


def _rewrite(package: CasePackage, lines: list[bytes]) -> None:
    package.path(EVENTS).write_bytes(b"".join(lines))


def _edited(line: bytes, **changes: object) -> bytes:
    record = json.loads(line)
    record.update(changes)
    return canonical_bytes(record) + b"\n"


def test_the_first_line_chains_to_the_genesis_digest(package: CasePackage) -> None:
    record = package.append_event("0001", "started")
    own = canonical_bytes({k: v for k, v in record.items() if k != "chain"})
    assert record["chain"] == sha256_hex(GENESIS.encode() + b"\n" + own)


@pytest.mark.parametrize(
    "tamper",
    [
        "edit_first",
        "edit_last",
        "drop_first",
        "drop_middle",
        "swap",
        "insert",
        "strip_chain_of_last",
        "renumber",
    ],
)
def test_any_edit_insertion_removal_or_reordering_breaks_the_chain(
    package: CasePackage, tamper: str
) -> None:
    lines = _chained_log(package)
    if tamper == "edit_first":
        lines[0] = _edited(lines[0], input="other.json")
    elif tamper == "edit_last":
        lines[2] = _edited(lines[2], at="2025-03-01T12:00:09.000000Z")
    elif tamper == "drop_first":
        lines = [_edited(line, seq=n) for n, line in enumerate(lines[1:], start=1)]
    elif tamper == "drop_middle":
        lines = [lines[0], _edited(lines[2], seq=2)]
    elif tamper == "swap":
        lines = [lines[0], _edited(lines[2], seq=2), _edited(lines[1], seq=3)]
    elif tamper == "insert":
        forged = {"seq": 2, "at": "2025-03-01T12:00:05.000000Z", "event": "resumed"}
        forged["chain"] = chain_value(lines[0].rstrip(b"\n"), forged)  # even a correct link
        lines = [lines[0], canonical_bytes(forged) + b"\n", _edited(lines[1], seq=3), lines[2]]
    elif tamper == "strip_chain_of_last":
        record = json.loads(lines[2])
        del record["chain"]
        lines[2] = canonical_bytes(record) + b"\n"
    elif tamper == "renumber":
        lines = [_edited(line, seq=n + 1) for n, line in enumerate(lines, start=1)]
    _rewrite(package, lines)
    with pytest.raises(StoreError) as caught:
        package.read_events("0001")
    assert caught.value.code is ErrorCode.ARTIFACT_CORRUPT
    assert [finding.code for finding in package.verify()] == [ErrorCode.PACKAGE_EVENTS_INVALID]


def test_dropping_lines_from_the_end_keeps_a_valid_chain(package: CasePackage) -> None:
    """The chain cannot see a shortened tail: the revision's files must (vba verify)."""
    lines = _chained_log(package)
    _rewrite(package, lines[:2])
    assert [event["seq"] for event in package.read_events("0001")] == [1, 2]


def test_a_log_written_before_chaining_stays_unchained(package: CasePackage) -> None:
    legacy = b'{"at":"2025-01-01T00:00:00.000000Z","event":"started","seq":1}\n'
    package.path("analysis/interpretations/0001").mkdir(parents=True)
    package.path(EVENTS).write_bytes(legacy)
    appended = package.append_event("0001", "resumed")
    assert "chain" not in appended
    assert package.read_bytes(EVENTS) == legacy + canonical_bytes(appended) + b"\n"


def test_a_log_of_created_events_only_starts_the_chain_with_its_next_line(
    package: CasePackage,
) -> None:
    created = b'{"at":"2025-01-01T00:00:00.000000Z","event":"created","reason":"r","seq":1}\n'
    package.path("analysis/interpretations/0001").mkdir(parents=True)
    package.path(EVENTS).write_bytes(created)
    started = package.append_event("0001", "started")
    assert started["chain"] == chain_value(created.rstrip(b"\n"), started)
    resumed = package.append_event("0001", "resumed")
    assert "chain" in resumed
    assert [event["seq"] for event in package.read_events("0001")] == [1, 2, 3]
