"""The `make run` wrapper (vba_assets.defs.dev_server): SIGTERM and SIGINT stop the whole group.

The command under the wrapper is a stub that ignores SIGTERM and SIGINT and starts a grandchild
that does too: the worst case of a server that does not stop by itself. The wrapper is started as
a script's background job starts it (SIGINT and SIGQUIT ignored, see ARCHITECTURE 14).
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from vba_assets.defs.dev_server import group_members

REPO = Path(__file__).resolve().parents[2]
GRACE_S = 1.5

STUBBORN = textwrap.dedent(
    """
    import signal, subprocess, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    child = subprocess.Popen([sys.executable, "-c",
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
    open(sys.argv[1], "w").write(str(child.pid))
    time.sleep(600)
    """
)


def _as_background_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start(tmp_path: Path, script: str) -> tuple["subprocess.Popen[bytes]", Path]:
    pid_file = tmp_path / "grandchild.pid"
    stub = tmp_path / "stub.py"
    stub.write_text(script)
    wrapper = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vba_assets.defs.dev_server",
            "--grace",
            str(GRACE_S),
            "--",
            sys.executable,
            str(stub),
            str(pid_file),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        start_new_session=True,
        preexec_fn=_as_background_job,
    )
    return wrapper, pid_file


def _wait_for(path: Path, timeout_s: float = 30.0) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.is_file() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise TimeoutError(f"{path} was not written")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_the_whole_group_within_the_grace(
    tmp_path: Path, signum: signal.Signals
) -> None:
    wrapper, pid_file = _start(tmp_path, STUBBORN)
    try:
        grandchild = _wait_for(pid_file)
        members = group_members(os.getpgid(grandchild))
        assert grandchild in members and len(members) == 2  # the stub and its child
        started = time.monotonic()
        wrapper.send_signal(signum)
        code = wrapper.wait(timeout=GRACE_S + 5)
        assert time.monotonic() - started < GRACE_S + 2
        assert code == -signum  # it ends as the signal it got
        assert not any(_alive(pid) for pid in members)
    finally:
        if wrapper.poll() is None:
            os.killpg(wrapper.pid, signal.SIGKILL)


def test_a_command_that_stops_on_sigterm_is_not_waited_for(tmp_path: Path) -> None:
    polite = "import sys, time\nopen(sys.argv[1], 'w').write('1')\ntime.sleep(600)\n"
    wrapper, pid_file = _start(tmp_path, polite)
    _wait_for(pid_file)
    started = time.monotonic()
    wrapper.terminate()
    assert wrapper.wait(timeout=10) == -signal.SIGTERM
    assert time.monotonic() - started < 1.0


def test_the_command_exit_code_is_kept_when_it_ends_by_itself(tmp_path: Path) -> None:
    wrapper, _ = _start(tmp_path, "import sys\nsys.exit(3)\n")
    assert wrapper.wait(timeout=30) == 3
