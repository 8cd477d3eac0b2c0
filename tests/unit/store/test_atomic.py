"""Append-only, atomic publication: no-op rewrites, conflicts, SIGKILL in the middle of a write."""

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.layout import REV1
from tests.unit.store.processes import Child
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import CasePackage, content_hash, publish_bytes, sha256_hex

LARGE = 8 * 1024 * 1024  # several write chunks, so "mid write" is a real point


def test_write_returns_a_ref_of_the_exact_bytes(package: CasePackage) -> None:
    ref = package.write_bytes("report/body.txt", b"I can't find the Wild Wolpertinger")
    assert ref.relpath == "report/body.txt"
    assert ref.created is True
    assert ref.size == len(b"I can't find the Wild Wolpertinger")
    assert ref.sha256 == sha256_hex(package.path("report/body.txt").read_bytes())
    assert package.read_bytes("report/body.txt") == b"I can't find the Wild Wolpertinger"
    assert package.artifact_ref("report/body.txt") == ref.__class__(
        ref.relpath, ref.sha256, ref.size, False
    )


def test_identical_rewrite_is_a_no_op(package: CasePackage) -> None:
    package.write_json("case.json", {"title": "t", "sources": [1.0, 2]})
    target = package.path("case.json")
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))  # an old mtime, so any touch would show
    before = target.stat()

    again = package.write_json("case.json", {"sources": [1, 2.0], "title": "t"})

    after = target.stat()
    assert again.created is False
    assert again.sha256 == content_hash({"title": "t", "sources": [1, 2]})
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)
    assert sorted(os.listdir(target.parent)) == ["case.json"]  # no temp file left behind


def test_different_content_conflicts_and_keeps_the_original(package: CasePackage) -> None:
    package.write_json("analysis/interpretations/0001/input.json", {"model": "a"})
    original = package.read_bytes("analysis/interpretations/0001/input.json")

    with pytest.raises(StoreError) as caught:
        package.write_json("analysis/interpretations/0001/input.json", {"model": "b"})

    assert caught.value.code is ErrorCode.ARTIFACT_CONFLICT
    assert "analysis/interpretations/0001/input.json" in caught.value.message
    assert "BUG-000020" in caught.value.message
    assert caught.value.detail["existing_sha256"] == sha256_hex(original)
    assert package.read_bytes("analysis/interpretations/0001/input.json") == original
    assert package.list_dir("analysis/interpretations/0001") == [
        "analysis/interpretations/0001/input.json"
    ]


def test_publish_bytes_reports_conflicts_by_path(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "dir" / "a.bin"
    assert publish_bytes(target, b"one") is True
    assert publish_bytes(target, b"one") is False
    with pytest.raises(StoreError) as caught:
        publish_bytes(target, b"one!")  # same prefix, different length
    assert caught.value.code is ErrorCode.ARTIFACT_CONFLICT
    assert str(target) in caught.value.message
    with pytest.raises(StoreError) as caught:
        publish_bytes(tmp_path / "deep", b"x")  # a directory is never replaced
    assert caught.value.code is ErrorCode.ARTIFACT_CONFLICT
    assert target.read_bytes() == b"one"


def test_racing_writers_publish_exactly_once(tmp_path: Path) -> None:
    target = tmp_path / "race.json"
    results: list[bool | str] = []
    barrier = threading.Barrier(8)

    def writer(payload: bytes) -> None:
        barrier.wait()
        try:
            results.append(publish_bytes(target, payload))
        except StoreError as exc:
            results.append(exc.code.value)

    threads = [threading.Thread(target=writer, args=(b"same",)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(True) == 1
    assert results.count(False) == 7
    assert target.read_bytes() == b"same"
    assert os.listdir(tmp_path) == ["race.json"]


def test_write_object_is_content_addressed(package: CasePackage) -> None:
    capture = {"term": "Wolpertinger", "rows": [{"identity": 3, "name": "Wild Wolpertinger"}]}
    captures = "analysis/interpretations/0001/entity-resolution/captures"
    ref = package.write_object(captures, capture)
    digest = content_hash(capture)
    assert ref.relpath == f"{captures}/{digest}.json"
    assert ref.sha256 == digest == sha256_hex(package.read_bytes(ref.relpath))
    again = package.write_object(captures, capture)
    assert again.created is False
    assert package.read_object(captures, digest) == capture


def test_read_missing_and_non_canonical_json(package: CasePackage) -> None:
    with pytest.raises(StoreError) as caught:
        package.read_bytes("case.json")
    assert caught.value.code is ErrorCode.ARTIFACT_MISSING
    assert "case.json" in caught.value.message

    package.write_bytes("notes.json", b'{\n  "b": 1,\n  "a": 2\n}')
    with pytest.raises(StoreError) as caught:
        package.read_json("notes.json")
    assert caught.value.code is ErrorCode.ARTIFACT_CORRUPT
    assert "notes.json" in caught.value.message


@pytest.mark.parametrize("point", ["mid_write", "before_link"])
def test_sigkill_during_a_write_leaves_no_file_under_the_final_name(
    package: CasePackage, spawn: Callable[..., Child], point: str
) -> None:
    relpath = "analysis/interpretations/0001/interpretation.json"
    child = spawn("hang-write", package.case_id, relpath, LARGE, point)
    message = child.read_message()
    assert message["state"] == "READY"
    folder = package.path("analysis/interpretations/0001")
    temps = [name for name in os.listdir(folder) if name.startswith(".interpretation.json.tmp-")]
    assert len(temps) == 1
    assert f"-{child.pid}-" in temps[0]

    assert child.sigkill() == -9

    assert not package.exists(relpath)
    assert package.list_dir("analysis/interpretations/0001") == []
    partial = (folder / temps[0]).stat().st_size
    if point == "mid_write":
        assert 0 < partial == message["written"] < LARGE
    else:
        assert partial == LARGE
    findings = package.verify()
    assert [(f.code, f.is_error) for f in findings] == [(ErrorCode.PACKAGE_STALE_TEMP, False)]
    assert findings[0].artifact == f"{REV1.dir}/{temps[0]}"

    data = b"y" * LARGE
    ref = package.write_bytes(relpath, data)
    assert ref.created is True
    assert package.read_bytes(relpath) == data
