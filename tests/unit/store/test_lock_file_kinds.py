"""A lock file replaced by a FIFO or a symlink: a clear store error, never a hang,
never a raw ``OSError``, and the thing in its place is left as it was."""

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store.lock import acquire_revision_lock


def _clock() -> datetime:
    return datetime(2026, 12, 4, tzinfo=UTC)


def test_a_regular_lock_file_is_taken_and_released(tmp_path: Path) -> None:
    lock = acquire_revision_lock(tmp_path / ".lock", "BUG-000001", "0001", _clock)
    lock.release()
    again = acquire_revision_lock(tmp_path / ".lock", "BUG-000001", "0001", _clock)
    again.release()


def test_a_fifo_in_place_of_the_lock_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    os.mkfifo(path)
    with pytest.raises(StoreError) as caught:
        acquire_revision_lock(path, "BUG-000001", "0001", _clock)
    assert caught.value.code is ErrorCode.ARTIFACT_UNREADABLE
    assert "is a FIFO, not a regular file" in caught.value.message


def test_a_symlink_in_place_of_the_lock_file_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"keep")
    (tmp_path / ".lock").symlink_to(target)
    with pytest.raises(StoreError) as caught:
        acquire_revision_lock(tmp_path / ".lock", "BUG-000001", "0001", _clock)
    assert caught.value.code is ErrorCode.ARTIFACT_UNREADABLE
    assert "symlink" in caught.value.message
    assert target.read_bytes() == b"keep"  # not truncated through the link
