"""Concurrent writers against one bucket (moto in server mode), each with its own working copy,
as on separate hosts: the lease, create-only artifacts and the event log's order."""

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.objectstore.conftest import REPO
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.objectstore import ObjectStore
from vba_assets.store import Workspace
from vba_assets.store.events import parse_event_log
from vba_assets.store.lease import LEASE_DIR
from vba_assets.store.lock import LockHolder, locked_error

CASE = "BUG-000020"
EVENTS = "analysis/interpretations/0001/events.jsonl"


def _hosts(tmp_path: Path, bucket: ObjectStore, count: int, lease_s: float = 30) -> list[Workspace]:
    return [Workspace(tmp_path / f"host-{n}", bucket=bucket, lease_s=lease_s) for n in range(count)]


def _race(actions: list[Callable[[], Any]]) -> list[Any]:
    """Run ``actions`` in threads released together; each result or the exception it raised."""
    start = threading.Barrier(len(actions))
    results: list[Any] = [None] * len(actions)

    def run(index: int) -> None:
        start.wait()
        try:
            results[index] = actions[index]()
        except Exception as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _same_message_as_local(error: StoreError) -> None:
    """The bucket's REVISION_LOCKED is the local store's error, word for word."""
    assert error.code is ErrorCode.REVISION_LOCKED
    holder = LockHolder(
        error.detail["holder_pid"], error.detail["holder_hostname"], error.detail["holder_since"]
    )
    assert error.message == locked_error(CASE, "0001", holder).message


def test_two_hosts_locking_one_revision_at_once_exactly_one_wins(
    bucket: ObjectStore, tmp_path: Path
) -> None:
    packages = [host.case(CASE) for host in _hosts(tmp_path, bucket, 4)]
    refused: list[StoreError] = []
    all_tried = threading.Event()
    guard = threading.Lock()

    def writer(package: Any) -> str:
        try:
            with package.lock("0001"):
                all_tried.wait(60)  # hold the lease until every contender has been refused
            return "won"
        except StoreError as error:
            with guard:
                refused.append(error)
                if len(refused) == len(packages) - 1:
                    all_tried.set()
            raise

    results = _race([partial(writer, p) for p in packages])
    assert results.count("won") == 1, results
    assert len(refused) == 3 and all(isinstance(r, StoreError) for r in results if r != "won")
    for error in refused:
        _same_message_as_local(error)
        assert error.detail["holder_pid"] == os.getpid()
        assert "lease_expires_at" in error.detail
    # the lease was released: a later writer takes it at once
    with packages[1].lock("0001"):
        pass


def test_three_processes_racing_for_one_revision_exactly_one_wins(
    bucket: ObjectStore, tmp_path: Path
) -> None:
    go, done = tmp_path / "go", tmp_path / "done"
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.objectstore.race_child",
                bucket.endpoint_url or "",
                str(bucket.url),
                str(tmp_path / f"host-{n}"),
                CASE,
                str(go),
                str(done),
            ],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    try:
        time.sleep(2)  # let each child open its package (not a timing assertion: a head start)
        go.touch()
        lines = {}
        for child in children:
            assert child.stdout is not None
            lines[child.pid] = child.stdout.readline().split()
            if lines[child.pid][:1] == ["locked"]:
                child.wait(60)
        winners = [pid for pid, line in lines.items() if line == ["won"]]
        assert len(winners) == 1, lines
        for pid, line in lines.items():
            if pid != winners[0]:
                assert line == ["locked", "REVISION_LOCKED", str(winners[0])], lines
    finally:
        done.touch()
        for child in children:
            child.wait(60)


def test_a_killed_lease_holder_is_recovered(bucket: ObjectStore, tmp_path: Path) -> None:
    lease_s = 2.0
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.objectstore.lease_child",
            bucket.endpoint_url or "",
            str(bucket.url),
            str(tmp_path / "host-child"),
            CASE,
            str(lease_s),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("held "), line
        package = Workspace(tmp_path / "host-1", bucket=bucket, lease_s=lease_s).case(CASE)
        # alive and renewing: always refused
        with pytest.raises(StoreError) as refused, package.lock("0001"):
            pass
        _same_message_as_local(refused.value)
        assert refused.value.detail["holder_pid"] == child.pid
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    taken = _lock_when_free(package, bound_s=60)
    assert taken is not None, "the killed holder's lease was never taken over"
    names = [
        info.name
        for info in bucket.list(f"cases/{CASE}/analysis/interpretations/0001/{LEASE_DIR}/")
    ]
    assert len(names) >= 3  # the child's take (and renewals), the take-over, the release


def _lock_when_free(package: Any, bound_s: float) -> int | None:
    """Try to take the revision lock until it is free (at most ``bound_s``): its generation."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        try:
            with package.lock("0001"):
                [(lease, _)] = package.remote.leases
                return int(lease.generation)
        except StoreError as error:
            assert error.code is ErrorCode.REVISION_LOCKED
            time.sleep(0.2)
    return None


def test_a_holder_frozen_past_its_lease_writes_nothing_more(
    bucket: ObjectStore, tmp_path: Path
) -> None:
    first, second = (host.case(CASE) for host in _hosts(tmp_path, bucket, 2, lease_s=1.5))
    with first.lock("0001"):
        assert first.remote is not None
        [(lease, _)] = first.remote.leases
        lease._stop.set()  # a frozen process: its renewals stop
        lease._thread.join()
        assert _lock_when_free(second, bound_s=60) is not None  # taken over once expired
        with pytest.raises(StoreError) as refused:
            first.write_json("analysis/interpretations/0001/input.json", {"late": True})
        assert refused.value.code is ErrorCode.REVISION_LOCKED
        assert "expired" in refused.value.message
    assert not bucket.list(f"cases/{CASE}/analysis/interpretations/0001/input.json")


def test_concurrent_creates_of_one_artifact_conflict_exactly_once(
    bucket: ObjectStore, tmp_path: Path
) -> None:
    packages = [host.case(CASE) for host in _hosts(tmp_path, bucket, 2)]
    relpath = "analysis/interpretations/0001/input.json"
    results = _race([partial(p.write_json, relpath, {"writer": n}) for n, p in enumerate(packages)])
    errors = [r for r in results if isinstance(r, StoreError)]
    assert len(errors) == 1 and errors[0].code is ErrorCode.ARTIFACT_CONFLICT, results
    [winner] = [n for n, r in enumerate(results) if not isinstance(r, StoreError)]
    fetched = bucket.get(f"cases/{CASE}/{relpath}")
    assert fetched is not None and fetched.data == packages[winner].read_bytes(relpath)
    assert not (packages[1 - winner].root / relpath).exists()  # the loser published nothing
    # identical bytes from both: a no-op for the second, no error
    same = _race([partial(p.write_json, "case.json", {"same": 1}) for p in packages])
    assert not any(isinstance(r, StoreError) for r in same)


def test_concurrent_event_appends_keep_one_chained_order(
    bucket: ObjectStore, tmp_path: Path
) -> None:
    packages = [host.case(CASE) for host in _hosts(tmp_path, bucket, 3)]
    per_writer = 5

    def appender(n: int) -> None:
        for k in range(per_writer):
            packages[n].append_event("0001", "note", writer=n, k=k)

    results = _race([partial(appender, n) for n in range(len(packages))])
    assert results == [None] * len(packages)
    reader = Workspace(tmp_path / "reader", bucket=bucket).case(CASE)
    data = reader.read_bytes(EVENTS)
    log = parse_event_log(data, EVENTS)  # raises on a broken chain or seq
    assert [r["seq"] for r in log.records] == list(range(1, 3 * per_writer + 1))
    assert not log.torn_tail and not log.unchained
    for n in range(len(packages)):  # each writer's own lines in its own order
        assert [r["k"] for r in log.records if r["writer"] == n] == list(range(per_writer))
        local = packages[n].read_bytes(EVENTS)  # a writer's copy is a prefix, caught up on read
        packages[n].read_events("0001")
        assert data.startswith(local) and packages[n].read_bytes(EVENTS) == data
