"""Batched durability (issue 14): the order data durable -> linked -> names durable -> event.

The sync primitives are instrumented, never timed: each test records the sequence of ``syncfs``,
``fsync``, ``link`` and event-line writes a package performs and checks its order.
"""

import ctypes
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.layout import REV1
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import CasePackage, durability
from vba_assets.store import atomic as atomic_module
from vba_assets.store import events as events_module

needs_syncfs = pytest.mark.skipif(
    not durability.syncfs_available(), reason="syncfs(2) is not usable on this platform"
)


class Calls:
    """The sync-relevant calls in order: ("syncfs", dir), ("fsync", path), ("link", name)..."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.log]

    def index(self, kind: str, name: str = "") -> int:
        return next(n for n, (k, what) in enumerate(self.log) if k == kind and name in what)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    seen = Calls()
    real_fsync, real_link, real_call = os.fsync, os.link, durability._call
    real_write_all = atomic_module.write_all

    def fsync(fd: int) -> None:
        seen.log.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        seen.log.append(("link", Path(dst).name))
        real_link(src, dst, *args, **kwargs)

    def syncfs(fd: int) -> int:
        seen.log.append(("syncfs", os.readlink(f"/proc/self/fd/{fd}")))
        result: int = real_call(fd)
        return result

    def write_all(fd: int, data: bytes) -> None:
        seen.log.append(("event", data.decode()))
        real_write_all(fd, data)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "link", link)
    monkeypatch.setattr(durability, "_call", syncfs)
    monkeypatch.setattr(events_module, "write_all", write_all)
    yield seen


def _write_group(package: CasePackage) -> None:
    """Three files in two folders, then the event that names them."""
    with package.lock(REV1.revision):
        package.write_json(f"{REV1.dir}/a.json", {"a": 1})
        package.write_json(f"{REV1.dir}/sub/b.json", {"b": 2})
        package.write_json(f"{REV1.dir}/sub/c.json", {"c": 3})
        package.append_event(REV1.revision, "noted", files=["a.json", "b.json", "c.json"])


@needs_syncfs
def test_a_batch_makes_the_data_durable_before_any_link_and_the_names_before_the_event(
    package: CasePackage, calls: Calls
) -> None:
    _write_group(package)

    links = [calls.index("link", name) for name in ("a.json", "b.json", "c.json")]
    event = calls.index("event", '"event":"noted"')
    data_barrier = max(
        n for n, kind in enumerate(calls.kinds()) if kind == "syncfs" and n < links[0]
    )
    between = calls.kinds()[links[-1] : event]
    assert links == sorted(links)  # linked in write order
    assert all(calls.kinds()[n] == "link" for n in range(links[0], links[-1] + 1))
    assert not any(kind == "fsync" and ".tmp-" in what for kind, what in calls.log)
    assert data_barrier < links[0]
    assert "syncfs" in between  # the new names are durable before the event line is written
    assert calls.kinds()[event + 1] == "fsync"  # and the event itself before append_event returns
    for name in ("a.json", "b.json", "c.json"):
        assert package.read_json(
            f"{REV1.dir}/{name}" if name == "a.json" else f"{REV1.dir}/sub/{name}"
        )


@needs_syncfs
def test_queued_files_are_visible_through_the_package_before_the_barrier(
    package: CasePackage, calls: Calls
) -> None:
    with package.lock(REV1.revision):
        package.write_bytes(f"{REV1.dir}/q.txt", b"queued")
        assert calls.kinds().count("link") == 0  # not linked yet: batched
        assert package.exists(f"{REV1.dir}/q.txt")
        assert package.read_bytes(f"{REV1.dir}/q.txt") == b"queued"
        assert f"{REV1.dir}/q.txt" in package.list_dir(REV1.dir)
        assert package.write_bytes(f"{REV1.dir}/q.txt", b"queued").created is False
        with pytest.raises(StoreError) as caught:
            package.write_bytes(f"{REV1.dir}/q.txt", b"other")
        assert caught.value.code is ErrorCode.ARTIFACT_CONFLICT
        raw = package.path(f"{REV1.dir}/q.txt")  # handing out a path links the queue first
        assert raw.read_bytes() == b"queued"
        assert calls.kinds().index("syncfs") < calls.index("link", "q.txt")


@needs_syncfs
def test_a_lock_released_by_an_exception_still_links_what_was_written(
    package: CasePackage, calls: Calls
) -> None:
    with pytest.raises(RuntimeError), package.lock(REV1.revision):
        package.write_bytes(f"{REV1.dir}/kept.txt", b"kept")
        raise RuntimeError("a stage failed")
    assert package.path(f"{REV1.dir}/kept.txt").read_bytes() == b"kept"
    assert calls.kinds().index("syncfs") < calls.index("link", "kept.txt")
    assert not [p for p in package.root.rglob("*") if atomic_module.TEMP_NAME_PATTERN.match(p.name)]


def test_without_syncfs_each_file_is_fsynced_before_its_link(
    package: CasePackage, calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(durability._State, "syncfs", None)
    _write_group(package)
    _assert_per_file_fsyncs(calls)
    lock_fsyncs = [what for kind, what in calls.log if kind == "fsync" and what.endswith("/.lock")]
    assert lock_fsyncs == []  # the holder's details need no durability (store/lock.py)


def test_a_syncfs_refused_by_the_system_falls_back_to_per_file_fsyncs(
    package: CasePackage, calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(durability._State, "syncfs", lambda fd: _fail(errno.ENOSYS))
    monkeypatch.setattr(durability._State, "probed", False)
    _write_group(package)
    _assert_per_file_fsyncs(calls)
    assert durability._State.syncfs is None  # probed once, then off for the process


@needs_syncfs
def test_a_failing_syncfs_is_a_store_error_and_links_nothing(
    package: CasePackage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(durability._State, "probed", True)  # the probe passed; the disk fails later
    with pytest.raises(StoreError) as caught, package.lock(REV1.revision):
        package.write_bytes(f"{REV1.dir}/lost.txt", b"lost")
        monkeypatch.setattr(durability, "_call", lambda fd: errno.EIO)
    assert caught.value.code is ErrorCode.ARTIFACT_NOT_DURABLE
    assert "EIO" in caught.value.message
    assert caught.value.detail["errno"] == errno.EIO
    monkeypatch.undo()
    folder = package.root / REV1.dir
    assert sorted(os.listdir(folder)) == [".lock"]  # no name, no temp file left


def test_kernels_before_5_8_do_not_batch() -> None:
    assert durability._kernel_reports_errors("5.8.0") is True
    assert durability._kernel_reports_errors("6.18.44-fc-v857") is True
    assert durability._kernel_reports_errors("5.4.0-150-generic") is False
    assert durability._kernel_reports_errors("4.19.0") is False
    assert durability._kernel_reports_errors("weird") is False


def _fail(code: int) -> int:
    ctypes.set_errno(code)
    return -1


def _assert_per_file_fsyncs(calls: Calls) -> None:
    """Each file: its temp file fsynced right before its link; the event after everything."""
    for name in ("a.json", "b.json", "c.json"):
        link = calls.index("link", name)
        kind, what = calls.log[link - 1]
        assert (kind, f".{name}.tmp-" in what) == ("fsync", True), calls.log[link - 1]
    assert calls.index("event") > calls.index("link", "c.json")
