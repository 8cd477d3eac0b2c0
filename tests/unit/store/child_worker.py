"""A separate process for the store tests: holds locks, appends events, or gets killed mid-write.

Run as ``python child_worker.py <command> <workspace> <case> ...``. Every command prints JSON lines
on stdout; ``READY`` lines tell the parent the child reached a known point and is now blocked.
Fault injection is done here, by patching functions inside this child process only; the store code
itself carries no test hooks.
"""

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import Workspace
from vba_assets.store import atomic as atomic_module
from vba_assets.store import events as events_module


def say(**payload: Any) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def block_forever() -> None:
    while True:
        time.sleep(3600)


def hold_lock(workspace: Workspace, case_id: str, revision: str) -> None:
    """Take the lock, report READY, and keep it until killed or stdin closes."""
    with workspace.case(case_id).lock(revision) as held:
        say(state="READY", pid=os.getpid(), acquired_at=held.holder.acquired_at)
        sys.stdin.read()  # returns when the parent closes our stdin


def try_lock(workspace: Workspace, case_id: str, revision: str) -> None:
    try:
        with workspace.case(case_id).lock(revision) as held:
            say(ok=True, pid=held.holder.pid)
    except StoreError as exc:
        say(ok=False, code=exc.code.value, message=exc.message, detail=exc.detail)


def hang_write(workspace: Workspace, case_id: str, relpath: str, size: int, point: str) -> None:
    """Write ``size`` bytes at ``relpath`` and block forever at ``point``, waiting for SIGKILL."""
    real_write = os.write

    def write_then_hang(fd: int, data: Any) -> int:
        written = real_write(fd, data)
        say(state="READY", point=point, written=written)
        block_forever()
        return written

    def hang_before_link(src: Any, dst: Any, **kwargs: Any) -> None:
        say(state="READY", point=point, temp=str(src), final=str(dst))
        block_forever()

    if point == "mid_write":
        atomic_module.os.write = write_then_hang
    elif point == "before_link":
        atomic_module.os.link = hang_before_link
    else:
        raise SystemExit(f"unknown point {point}")
    workspace.case(case_id).write_bytes(relpath, b"x" * size)
    say(state="UNEXPECTED_RETURN")


def torn_append(workspace: Workspace, case_id: str, revision: str) -> None:
    """Append an event but die by SIGKILL after writing half of its line."""

    def write_half_then_die(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        os.fsync(fd)
        os.kill(os.getpid(), signal.SIGKILL)

    events_module.write_all = write_half_then_die
    workspace.case(case_id).append_event(revision, "dispatched", note="this line is cut off")


def append_events(
    workspace: Workspace,
    case_id: str,
    revision: str,
    count: int,
    tag: str,
    go_file: str,
    mode: str,
) -> None:
    """After ``go_file`` appears, append ``count`` events.

    ``mode`` ``locked``: each append under the revision lock, taken in turn with the other writer;
    ``bare``: no revision lock, relying on the log's own append lock.
    """
    package = workspace.case(case_id)
    while not os.path.exists(go_file):
        time.sleep(0.001)
    contended = 0
    for index in range(count):
        if mode == "bare":
            package.append_event(revision, "tick", worker=tag, index=index)
            continue
        while True:
            try:
                with package.lock(revision):
                    package.append_event(revision, "tick", worker=tag, index=index)
                break
            except StoreError as exc:
                if exc.code is not ErrorCode.REVISION_LOCKED:
                    raise
                contended += 1
                time.sleep(0.0005)
    say(state="DONE", tag=tag, contended=contended)


def main(argv: list[str]) -> None:
    command, root, case_id, *rest = argv
    workspace = Workspace(Path(root))
    if command == "hold-lock":
        hold_lock(workspace, case_id, rest[0])
    elif command == "try-lock":
        try_lock(workspace, case_id, rest[0])
    elif command == "hang-write":
        hang_write(workspace, case_id, rest[0], int(rest[1]), rest[2])
    elif command == "torn-append":
        torn_append(workspace, case_id, rest[0])
    elif command == "append-events":
        append_events(workspace, case_id, rest[0], int(rest[1]), rest[2], rest[3], rest[4])
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
