"""The (case, revision) lock under real processes: fail fast, name the holder, survive SIGKILL."""

import json
import os
import socket
from collections.abc import Callable
from typing import Any

import pytest

from tests.unit.store.processes import Child
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import CasePackage


def test_second_process_fails_fast_naming_the_holder(
    package: CasePackage,
    spawn: Callable[..., Child],
    run_child: Callable[..., dict[str, Any]],
) -> None:
    holder = spawn("hold-lock", package.case_id, "0001")
    ready = holder.read_message()
    assert ready == {"state": "READY", "pid": holder.pid, "acquired_at": ready["acquired_at"]}

    loser = run_child("try-lock", package.case_id, "0001")

    assert loser["ok"] is False
    assert loser["code"] == ErrorCode.REVISION_LOCKED.value
    for fragment in (package.case_id, "revision 0001", f"pid {holder.pid}", ready["acquired_at"]):
        assert fragment in loser["message"]
    assert loser["detail"]["holder_pid"] == holder.pid
    assert loser["detail"]["holder_hostname"] == socket.gethostname()

    with pytest.raises(StoreError) as caught, package.lock("0001"):
        pass  # pragma: no cover - the lock must not be granted
    assert caught.value.code is ErrorCode.REVISION_LOCKED
    assert f"pid {holder.pid}" in caught.value.message

    # Another revision of the same case is independent.
    assert run_child("try-lock", package.case_id, "0002")["ok"] is True


def test_lock_of_a_killed_holder_is_recovered(
    package: CasePackage, spawn: Callable[..., Child]
) -> None:
    holder = spawn("hold-lock", package.case_id, "0001")
    assert holder.read_message()["state"] == "READY"
    lock_file = package.path("analysis/interpretations/0001") / ".lock"
    assert json.loads(lock_file.read_bytes())["pid"] == holder.pid

    assert holder.sigkill() == -9

    with package.lock("0001") as held:
        assert held.held
        assert held.holder.pid == os.getpid()
        assert json.loads(lock_file.read_bytes())["pid"] == os.getpid()
    assert not held.held
    assert lock_file.read_bytes() == b""  # released: the holder details are cleared


def test_released_lock_can_be_taken_by_another_process(
    package: CasePackage, run_child: Callable[..., dict[str, Any]]
) -> None:
    with package.lock("0001"):
        assert run_child("try-lock", package.case_id, "0001")["ok"] is False
    taken = run_child("try-lock", package.case_id, "0001")
    assert taken["ok"] is True
    assert taken["pid"] != os.getpid()


def test_reentrant_use_fails_clearly_instead_of_deadlocking(package: CasePackage) -> None:
    with package.lock("0001"):
        with pytest.raises(StoreError) as caught, package.lock("0001"):
            pass  # pragma: no cover
        assert caught.value.code is ErrorCode.REVISION_LOCKED
        assert "this process" in caught.value.message
        assert "not re-entrant" in caught.value.message
        with package.lock("0002"):  # a different revision is a different lock
            pass
    with package.lock("0001") as again:  # released after the block
        assert again.held


def test_lock_rejects_an_invalid_revision(package: CasePackage) -> None:
    from vba_assets.errors import InputError

    with pytest.raises(InputError) as caught, package.lock("1"):
        pass  # pragma: no cover
    assert caught.value.code is ErrorCode.INVALID_REVISION


def test_lock_file_is_hidden_from_listings_and_verify(package: CasePackage) -> None:
    with package.lock("0001"):
        package.write_json("analysis/interpretations/0001/input.json", {"a": 1})
        assert package.list_dir("analysis/interpretations/0001") == [
            "analysis/interpretations/0001/input.json"
        ]
        assert package.verify() == []
