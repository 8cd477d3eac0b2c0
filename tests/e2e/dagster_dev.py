"""``dagster dev`` as a managed subprocess for the end-to-end tests.

The server runs in its own process group (the webserver, the daemon, the code servers and every run
worker it launches inherit it), writes everything to one log file, and is torn down with SIGTERM to
the group, then SIGKILL of the group if anything is still alive after a grace period.
"""

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from vba_assets.defs.dev_server import group_members

#: Instance settings for a throwaway DAGSTER_HOME: no telemetry files, no "join the community"
#: dialog covering the pages the tests read and screenshot.
QUIET_INSTANCE_YAML = "telemetry:\n  enabled: false\nnux:\n  enabled: false\n"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def dagster_executable() -> Path:
    """The ``dagster`` script of the interpreter running the tests (the project's venv)."""
    candidate = Path(sys.executable).parent / "dagster"
    if not candidate.is_file():
        raise FileNotFoundError(f"no dagster executable next to {sys.executable}")
    return candidate


_PR_SET_PDEATHSIG = 1


def terminate_with_parent() -> None:
    """In a child, before exec: get SIGTERM when the parent (pytest) dies, even by SIGKILL."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _prepare_dagster_dev() -> None:
    # A shell that starts a job in the background ignores SIGINT in it; Python then keeps SIGINT
    # ignored, and `dagster dev` maps SIGTERM to the SIGINT handler, so it would ignore SIGTERM too.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    terminate_with_parent()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie leader still counts for killpg; look for a live member.
    return bool(group_members(pgid))


class DagsterDev:
    """One ``dagster dev -h 127.0.0.1 -p PORT -w workspace.yaml`` process group.

    Args:
        cwd: the folder holding ``workspace.yaml`` (the repository root).
        env: the complete environment of the server (DAGSTER_HOME, VBA_WORKSPACE, ...).
        log_path: where stdout and stderr of the whole group go.
        port: the port to serve on (see :func:`free_port`).
        workspace_yaml: the workspace file for ``dagster dev -w`` (default: the repository's
            ``workspace.yaml``); None starts ``dg dev`` instead, which loads the project that
            ``[tool.dg]`` of ``cwd/pyproject.toml`` names (what ``make run`` starts).
    """

    def __init__(
        self,
        cwd: Path,
        env: dict[str, str],
        log_path: Path,
        port: int,
        workspace_yaml: Path | str | None = "workspace.yaml",
    ) -> None:
        self.cwd = cwd
        self.env = env
        self.log_path = log_path
        self.port = port
        self.workspace_yaml = workspace_yaml
        self.base_url = f"http://127.0.0.1:{port}"
        self._process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """``dg dev --host 127.0.0.1 --port P`` or ``dagster dev -h 127.0.0.1 -p P -w W``."""
        if self.workspace_yaml is None:
            dg = Path(sys.executable).with_name("dg")
            return [str(dg), "dev", "--host", "127.0.0.1", "--port", str(self.port)]
        return [
            str(dagster_executable()),
            "dev",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-w",
            str(self.workspace_yaml),
        ]

    def start(self) -> "DagsterDev":
        command = self.command()
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(
                command,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_prepare_dagster_dev,
            )
        return self

    @property
    def pid(self) -> int:
        if self._process is None:
            raise RuntimeError("dagster dev was not started")
        return self._process.pid

    def exited(self) -> int | None:
        """The exit code of ``dagster dev`` once it ended, else None."""
        return None if self._process is None else self._process.poll()

    def log_tail(self, lines: int = 60) -> str:
        """The last lines of the server log (for failure messages)."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "<no log>"
        return "\n".join(text.splitlines()[-lines:])

    def serving(self) -> bool:
        """True when the webserver answers ``/server_info``."""
        try:
            with urllib.request.urlopen(f"{self.base_url}/server_info", timeout=5) as response:
                return response.status == 200 and b"dagster_webserver_version" in response.read()
        except (urllib.error.URLError, OSError):
            return False

    def wait_until_serving(self, timeout_s: float = 120.0) -> None:
        """Block until the webserver answers; raise with the log tail if it dies or never does."""
        deadline = time.monotonic() + timeout_s
        while not self.serving():
            code = self.exited()
            if code is not None:
                raise RuntimeError(
                    f"dagster dev exited with code {code} before serving; log tail:\n"
                    f"{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"dagster dev did not answer {self.base_url}/server_info within "
                    f"{timeout_s:.0f} s; log tail:\n{self.log_tail()}"
                )
            time.sleep(0.5)

    def stop(self, grace_s: float = 30.0) -> None:
        """SIGTERM to the process group, then SIGKILL of the group after ``grace_s``."""
        if self._process is None:
            return
        pgid = self._process.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while _group_alive(pgid) and time.monotonic() < deadline:
            self._process.poll()  # reap the leader so it does not linger as a zombie
            time.sleep(0.2)
        if _group_alive(pgid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=10)
        self._process = None

    def __enter__(self) -> "DagsterDev":
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def wait_for(what: str, probe: Callable[[], object], timeout_s: float, log: DagsterDev) -> object:
    """``probe()``'s first truthy value, polled every 2 s; fails with ``log``'s tail after
    ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what} within {timeout_s:.0f} s\n{log.log_tail()}"
        time.sleep(2.0)
