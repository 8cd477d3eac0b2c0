"""End-to-end: `make run` (and `make serve`) started in the background stop on SIGTERM and SIGINT,
children too.

`make run` runs here as a shell script's ``make run &`` runs it: in a session of its own (so the
test can find every process it started) with SIGINT and SIGQUIT ignored, as a non-interactive
shell leaves them for a background job (ARCHITECTURE 14). It uses the test's venv (``VENV=``,
``-o <venv>/.installed`` so nothing is installed), a free port, a temporary DAGSTER_HOME and
workspace. Once the UI answers, the test sends the signal and asserts that make exits within
10 s and that no process it started (the wrapper, ``dg dev``, the webserver, the daemon, the code
servers) is left.

SIGTERM goes to make's pid (``kill <pid>``; make forwards SIGTERM to its recipe). SIGINT goes to
make's process group, as Ctrl-C in a terminal sends it: GNU make keeps SIGINT ignored when it was
started with it ignored, so a SIGINT to make's pid alone reaches no recipe (see
vba_assets/defs/dev_server.py).
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.e2e.conftest import server_environment
from tests.e2e.dagster_dev import free_port

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

VENV = Path(sys.executable).parent.parent
START_TIMEOUT_S = 240.0
STOP_LIMIT_S = 10.0


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def session_processes(sid: int) -> list[int]:
    """Live (not zombie) processes of session ``sid``."""
    found = []
    for entry in Path("/proc").iterdir():
        fields = _stat(int(entry.name)) if entry.name.isdigit() else None
        # after the command name: state, ppid, pgrp, session, ...
        if fields is not None and fields[0] != "Z" and int(fields[3]) == sid:
            found.append(int(entry.name))
    return found


def descendants(root: int) -> set[int]:
    """Every live process below ``root`` (by parent pid)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        fields = _stat(int(entry.name)) if entry.name.isdigit() else None
        if fields is not None and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _serving(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=5) as answer:
            return answer.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _as_background_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)


@pytest.mark.skipif(not (VENV / ".installed").is_file(), reason=f"no {VENV}/.installed")
@pytest.mark.parametrize(
    ("target", "signum"),
    [("run", signal.SIGTERM), ("run", signal.SIGINT), ("serve", signal.SIGTERM)],
)
def test_make_run_in_the_background_stops_with_all_children(
    tmp_path: Path, target: str, signum: signal.Signals
) -> None:
    port = free_port()
    home = tmp_path / "dagster-home"
    env = server_environment(tmp_path / "workspace", home)
    env["PYTHONPATH"] = str(REPO)
    log = tmp_path / "make-run.log"
    with open(log, "wb") as out:
        make = subprocess.Popen(
            ["make", "-o", f"{VENV}/.installed", target, f"VENV={VENV}", f"PORT={port}"]
            + ([f"GRPC_PORT={free_port()}"] if target == "serve" else []),
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_as_background_job,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _serving(port):
            assert make.poll() is None, f"make {target} exited early:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"no UI on {port}:\n{log.read_text()[-3000:]}"
            time.sleep(0.5)
        started = descendants(make.pid)
        # run: wrapper, dg dev, webserver, daemon (+ code servers); serve: wrapper, code server
        # (and the server it spawns), webserver, daemon
        assert len(started) >= 4, started
        assert started <= set(session_processes(make.pid))
        sent = time.monotonic()
        if signum == signal.SIGTERM:
            os.kill(make.pid, signum)  # `kill <pid>`
        else:
            os.killpg(make.pid, signum)  # Ctrl-C: the foreground group
        make.wait(timeout=STOP_LIMIT_S + 20)
        took = time.monotonic() - sent
        print(f"\nmake {target} stopped {took:.1f} s after {signum.name}; {len(started)} processes")
        time.sleep(0.5)
        left = [pid for pid in started if (_stat(pid) or ["Z"])[0] != "Z"]
        assert took < STOP_LIMIT_S, f"make {target} took {took:.1f} s to stop"
        assert not left and not session_processes(make.pid), log.read_text()[-3000:]
        assert not _serving(port)
    finally:  # whatever happened, nothing this test started outlives it
        for pid in {make.pid, *session_processes(make.pid)}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        make.wait(timeout=10)
