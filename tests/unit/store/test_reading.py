"""Files of unknown kind are read only when they are regular files of bounded size, never blocking
(:mod:`vba_assets.store.reading`), and JSON is parsed with a fixed depth limit
(:func:`vba_assets.domain.canonical.load_json`)."""

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from vba_assets.domain.canonical import MAX_JSON_DEPTH, load_json, parse_canonical
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import CasePackage
from vba_assets.store.reading import (
    MAX_ARTIFACT_BYTES,
    Refusal,
    UnreadableFile,
    read_regular_file,
    read_resolved_file,
)


def _refusal(path: Path, max_bytes: int = 100) -> Refusal:
    with pytest.raises(UnreadableFile) as caught:
        read_regular_file(path, max_bytes)
    return caught.value.kind


def test_a_regular_file_is_read_whole_up_to_the_limit(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 100)
    assert read_regular_file(tmp_path / "a", 100) == b"x" * 100
    assert _refusal(tmp_path / "a", 99) is Refusal.TOO_LARGE


def test_a_fifo_is_refused_at_once_without_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    started = time.monotonic()
    assert _refusal(tmp_path / "fifo") is Refusal.NOT_REGULAR
    assert time.monotonic() - started < 1.0


def test_devices_sockets_and_folders_are_refused_without_reading(tmp_path: Path) -> None:
    assert _refusal(Path("/dev/zero")) is Refusal.NOT_REGULAR  # endless: would never finish
    assert _refusal(Path("/dev/urandom")) is Refusal.NOT_REGULAR
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        with pytest.raises(UnreadableFile) as caught:
            read_regular_file(tmp_path / "sock", 100)
        assert caught.value.kind in (Refusal.NOT_REGULAR, Refusal.UNREADABLE)  # ENXIO on open
    assert _refusal(tmp_path) is Refusal.FOLDER
    assert _refusal(tmp_path / "missing") is Refusal.MISSING


def test_symlinks_are_not_followed_and_a_loop_is_refused_after_resolving(tmp_path: Path) -> None:
    (tmp_path / "target").write_bytes(b"data")
    os.symlink("target", tmp_path / "link")
    os.symlink("loop", tmp_path / "loop")
    os.symlink("/dev/zero", tmp_path / "zero")
    assert _refusal(tmp_path / "link") is Refusal.SYMLINK
    assert _refusal(tmp_path / "loop") is Refusal.SYMLINK
    assert read_resolved_file(tmp_path / "link", 100) == b"data"
    with pytest.raises(UnreadableFile) as loop:
        read_resolved_file(tmp_path / "loop", 100)
    assert loop.value.kind is Refusal.SYMLINK
    with pytest.raises(UnreadableFile) as zero:
        read_resolved_file(tmp_path / "zero", 100)
    assert zero.value.kind is Refusal.NOT_REGULAR


def test_a_huge_sparse_file_is_refused_by_its_size(tmp_path: Path) -> None:
    with open(tmp_path / "huge", "wb") as handle:
        handle.truncate(MAX_ARTIFACT_BYTES + 1)
    with pytest.raises(UnreadableFile) as caught:
        read_regular_file(tmp_path / "huge", MAX_ARTIFACT_BYTES)
    assert caught.value.kind is Refusal.TOO_LARGE
    assert caught.value.size == MAX_ARTIFACT_BYTES + 1


def test_a_file_growing_while_it_is_read_is_refused(tmp_path: Path) -> None:
    """The size is checked at fstat, and at most ``max_bytes + 1`` bytes are ever read."""
    path = tmp_path / "growing"
    path.write_bytes(b"")
    stop = threading.Event()

    def grow() -> None:
        with open(path, "ab") as handle:
            while not stop.is_set():
                handle.write(b"x" * 65536)
                handle.flush()

    writer = threading.Thread(target=grow)
    writer.start()
    try:
        time.sleep(0.05)
        kinds = set()
        for _ in range(20):
            try:
                data = read_regular_file(path, 1 << 20)
            except UnreadableFile as refused:
                kinds.add(refused.kind)
            else:
                assert len(data) <= 1 << 20
    finally:
        stop.set()
        writer.join()
    assert kinds == {Refusal.TOO_LARGE}


def test_the_package_maps_refusals_to_store_codes(tmp_path: Path) -> None:
    package = CasePackage(tmp_path / "BUG-1", "BUG-1")
    package.write_json("a.json", {"a": 1})
    os.mkfifo(tmp_path / "BUG-1" / "fifo.json")
    (tmp_path / "BUG-1" / "folder.json").mkdir()
    with open(tmp_path / "BUG-1" / "huge.json", "wb") as handle:
        handle.truncate(MAX_ARTIFACT_BYTES + 1)
    codes = {}
    for name in ("fifo.json", "folder.json", "huge.json", "none.json"):
        with pytest.raises(StoreError) as caught:
            package.read_json(name)
        codes[name] = caught.value.code
    assert codes == {
        "fifo.json": ErrorCode.ARTIFACT_UNREADABLE,
        "folder.json": ErrorCode.ARTIFACT_MISSING,
        "huge.json": ErrorCode.ARTIFACT_TOO_LARGE,
        "none.json": ErrorCode.ARTIFACT_MISSING,
    }
    assert package.read_json("a.json") == {"a": 1}


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 900, 100_000])
def test_json_deeper_than_the_limit_is_refused_the_same_way_at_any_depth(depth: int) -> None:
    """Past the limit, below the interpreter's recursion limit (parsed, then measured) and far
    past it (the parser's RecursionError): the same ValueError, and ARTIFACT_CORRUPT when stored."""
    text = "[" * depth + "]" * depth
    with pytest.raises(ValueError, match=f"nested deeper than {MAX_JSON_DEPTH} levels"):
        load_json(text)
    with pytest.raises(StoreError) as caught:
        parse_canonical(text.encode(), "deep.json")
    assert caught.value.code is ErrorCode.ARTIFACT_CORRUPT
    assert "nested deeper" in caught.value.message


def test_json_at_the_limit_is_read() -> None:
    deep = {"a": [{"b": [1]}]}
    assert load_json('{"a":[{"b":[1]}]}') == deep
    text = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert parse_canonical(text.encode(), "deep.json") is not None
    with pytest.raises(ValueError, match="not JSON"):
        load_json("[NaN]")


def test_an_event_log_that_is_no_regular_file_is_refused_not_written(tmp_path: Path) -> None:
    package = CasePackage(tmp_path / "BUG-1", "BUG-1")
    package.append_event("0001", "created", reason="test")
    log = tmp_path / "BUG-1" / "analysis" / "interpretations" / "0001" / "events.jsonl"
    log.unlink()
    os.mkfifo(log)
    for operation in (
        lambda: package.append_event("0001", "started"),
        lambda: package.read_events("0001"),
    ):
        with pytest.raises(StoreError) as caught:
            operation()
        assert caught.value.code is ErrorCode.ARTIFACT_UNREADABLE
        assert "FIFO" in caught.value.message
