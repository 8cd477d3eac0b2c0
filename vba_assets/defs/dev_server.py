"""`make run`'s ``dg dev``, stoppable: SIGTERM or SIGINT end it and every process it started.

    python -m vba_assets.defs.dev_server [--grace S] -- dg dev --host 127.0.0.1 --port 3000

Why (ARCHITECTURE 14): a shell script that starts ``make run &`` starts it with SIGINT ignored, the
ignored disposition is inherited by ``dg dev``, and Dagster maps SIGTERM onto the SIGINT handler,
so neither ``kill <pid>`` nor SIGINT stopped the server, and its webserver, daemon and code servers
stayed behind. This wrapper:

* starts the command in a process group of its own, with SIGINT back to its default (so Dagster's
  KeyboardInterrupt shutdown works) and with a parent-death signal (if the wrapper is killed
  outright, the command gets SIGTERM);
* on SIGTERM, SIGINT or SIGHUP (``make`` forwards SIGTERM to its recipe), or when its parent
  dies, sends SIGTERM to that group, waits at most ``--grace`` seconds (default
  :data:`GRACE_S`) for every member to exit, then SIGKILLs what is left and reaps the leader:
  the whole stop is bounded by about ``grace + 1`` s;
* ends as the signal it got (so ``make`` and shells see a signal death), or with the command's
  own exit code when the command ended by itself (e.g. its port was taken).

One limit is ``make``'s, not ours: GNU make keeps a signal ignored when it was started with it
ignored, so a SIGINT sent to the pid of a ``make run`` that a script started in the background
reaches no recipe. SIGTERM to that pid works (make forwards it), and so does SIGINT to the
process group (what Ctrl-C in a terminal does) or to this wrapper.

No Dagster import: the wrapper only manages processes.
"""

import argparse
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from subprocess import Popen
from types import FrameType

#: Seconds the command's group has to exit after SIGTERM before it is SIGKILLed.
GRACE_S = 5.0
#: How often the wrapper looks at the command and its own parent.
POLL_S = 0.2
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_PR_SET_PDEATHSIG = 1


def prepare_child() -> None:
    """In the child before exec: default SIGINT/SIGQUIT, SIGTERM when the wrapper dies."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def start_group(command: Sequence[str], env: Mapping[str, str] | None = None) -> "Popen[bytes]":
    """Start ``command`` as the leader of a new process group, prepared by :func:`prepare_child`."""
    return subprocess.Popen(list(command), process_group=0, preexec_fn=prepare_child, env=env)


def group_members(pgid: int) -> list[int]:
    """Pids of the live (not zombie) processes of process group ``pgid`` (Linux ``/proc``)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def stop_groups(processes: Sequence["Popen[bytes]"], grace_s: float) -> None:
    """SIGTERM to each process's group, SIGKILL of what is left after ``grace_s``, reap.

    Every process is the leader of its own group (:func:`start_group`); the groups are stopped
    together, so the whole stop is bounded by about ``grace_s + 2`` s however many there are.
    """
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        for process in processes:
            process.poll()  # reap the leader, so it does not count as a live member
        if not any(group_members(process.pid) for process in processes):
            break
        time.sleep(POLL_S)
    for process in processes:
        if group_members(process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    for process in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=2.0)


def stop_group(process: "Popen[bytes]", grace_s: float) -> None:
    """SIGTERM to the command's group, SIGKILL of what is left after ``grace_s``, reap."""
    stop_groups([process], grace_s)


class StopSignal:
    """The first stop signal received (a signal handler only records it)."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum

    @classmethod
    def install(cls) -> "StopSignal":
        """A recorder installed as the handler of SIGTERM, SIGINT and SIGHUP."""
        stop = cls()
        for signum in _STOP_SIGNALS:
            signal.signal(signum, stop)
        return stop

    def end_as_signal(self) -> int:
        """Die of the recorded signal (as a shell expects); 128 + signal if that returns."""
        signum = self.signum if self.signum is not None else signal.SIGTERM
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return 128 + signum


def run(command: Sequence[str], grace_s: float = GRACE_S) -> int:
    """Run ``command`` until it ends or a stop signal arrives; see the module docstring."""
    stop = StopSignal.install()
    parent = os.getppid()
    process = start_group(command)
    try:
        while process.poll() is None and stop.signum is None and os.getppid() == parent:
            time.sleep(POLL_S)
    finally:
        stop_group(process, grace_s)
    if stop.signum is None:
        return process.returncode if process.returncode is not None else 1
    return stop.end_as_signal()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vba_assets.defs.dev_server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=GRACE_S,
        help=f"seconds between SIGTERM and SIGKILL of the command's group (default {GRACE_S})",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the command, e.g. dg dev")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --, e.g. -- dg dev --port 3000")
    return run(command, args.grace)


if __name__ == "__main__":
    sys.exit(main())
