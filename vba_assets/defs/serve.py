"""`make serve`: one gRPC code server that the webserver and the daemon share, stoppable.

    python -m vba_assets.defs.serve [--host H] [--port P] [--grpc-port G] [--grace S]

Why (ARCHITECTURE 14): under ``dg dev`` / ``dagster dev`` the webserver and the daemon each spawn
their own code server and keep it alive by heartbeats; on a busy 2-CPU host on PostgreSQL, 3 of 7
sensor runs failed at dequeue (``DagsterUserCodeUnreachableError``, 60 s) and stayed lost. Here the
code is served once, by ``dagster code-server start`` on ``127.0.0.1:G`` (no heartbeat: it lives
until it is stopped), and ``dagster-webserver`` and ``dagster-daemon run`` load it through a
workspace file with one ``grpc_server`` entry (:func:`workspace_yaml`, written next to the
instance in ``$DAGSTER_HOME``). Both watch the server and reload the location when it comes back
with a new server id, so a restarted code server needs no restart of either.

Like ``make run`` (:mod:`vba_assets.defs.dev_server`, whose process-group handling this reuses):
each service is the leader of a process group of its own; SIGTERM, SIGINT or SIGHUP stops every
group (SIGTERM, then SIGKILL after ``--grace`` s) and the wrapper ends as that signal. A code server
that exits while the deployment runs is started again on the same port ``--restart-delay`` s later
(a crash or an operator's ``kill $(cat $DAGSTER_HOME/code-server.pid)`` is a restart, never an
outage): runs it had launched keep running in the old group (their processes write to the
instance, not to the server) and are stopped with the rest at the end. The webserver or the
daemon exiting by itself ends the deployment with its exit code.

Two settings of Dagster's own, for every service unless already set (:data:`SERVICE_ENV`):

* ``DAGSTER_GRPC_TIMEOUT_SECONDS`` (:data:`GRPC_TIMEOUT_S`): the clients' gRPC timeout, raised from
  Dagster's 60 s: ``StartRun`` answers only once the run process has imported Dagster and the
  project, which took more than 60 s under load 16 on 2 CPUs;
* ``DAGSTER_BACKFILL_RETRY_DEFINITION_CHANGED_ERROR``: without it, a backfill daemon tick that
  falls while the code server restarts sees an empty asset graph, fails the backfill
  (``DagsterAssetBackfillDataLoadError``: "Asset ... existed at storage-time, but no longer does")
  and cancels its queued runs; with it the tick is skipped while a location cannot load (a real
  definition change still fails the backfill). Measured: 3 and 4 of 10 partitions lost by one
  restart without it (tests/dagster/test_postgres_stress.py).

No Dagster import: the wrapper only manages processes.
"""

import argparse
import os
import socket
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from subprocess import Popen

from vba_assets.defs.dev_server import GRACE_S, POLL_S, StopSignal, start_group, stop_groups

#: The code location's name: the one ``workspace.yaml`` and ``[tool.dg.project]`` use.
LOCATION_NAME = "vba_assets.definitions"
DEFAULT_GRPC_PORT = 4266
#: Seconds a webserver or daemon gRPC call may take (Dagster's default is 60).
GRPC_TIMEOUT_S = 180
#: Environment every service gets unless it is set already (see the module docstring).
SERVICE_ENV = {
    "DAGSTER_GRPC_TIMEOUT_SECONDS": str(GRPC_TIMEOUT_S),
    "DAGSTER_BACKFILL_RETRY_DEFINITION_CHANGED_ERROR": "1",
}
#: Seconds the code server has to listen on its port after a (re)start before the wrapper says so.
CODE_SERVER_START_S = 120.0
#: Seconds ``make serve`` waits before starting an exited code server again.
RESTART_DELAY_S = 2.0
WORKSPACE_FILE = "workspace.grpc.yaml"
#: The running code server's pid, in ``$DAGSTER_HOME``: ``kill $(cat ...)`` restarts it.
PID_FILE = "code-server.pid"


def workspace_yaml(host: str, port: int, location_name: str = LOCATION_NAME) -> str:
    """A workspace file naming one running gRPC code server."""
    return (
        "# written by `make serve` (vba_assets/defs/serve.py): the code server it started\n"
        "load_from:\n"
        "  - grpc_server:\n"
        f"      host: {host}\n"
        f"      port: {port}\n"
        f"      location_name: {location_name}\n"
    )


def _bin(name: str) -> str:
    """An executable next to this interpreter (the venv's ``dagster``, ``dagster-webserver``)."""
    return str(Path(sys.executable).with_name(name))


def code_server_command(grpc_host: str, grpc_port: int) -> list[str]:
    """``dagster code-server start`` serving ``vba_assets.definitions`` on ``grpc_host:port``."""
    return [
        _bin("dagster"),
        "code-server",
        "start",
        "--host",
        grpc_host,
        "--port",
        str(grpc_port),
        "--module-name",
        LOCATION_NAME,
        "--location-name",
        LOCATION_NAME,
    ]


def listening(host: str, port: int) -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex((host, port)) == 0


def _log(message: str) -> None:
    print(f"serve: {message}", file=sys.stderr, flush=True)


@dataclass
class Deployment:
    """The three services of one deployment and every code server group started so far."""

    host: str
    port: int
    grpc_host: str
    grpc_port: int
    workspace_file: Path
    pid_file: Path
    env: Mapping[str, str]
    code_servers: list["Popen[bytes]"] = field(default_factory=list)
    services: dict[str, "Popen[bytes]"] = field(default_factory=dict)
    #: Seconds between a code server's exit and its restart (no busy crash loop).
    restart_delay_s: float = RESTART_DELAY_S
    restarts: int = 0
    _restart_at: float | None = None

    def start_code_server(self, wait: bool) -> None:
        """Start a code server; with ``wait``, until it listens (bounded)."""
        process = start_group(code_server_command(self.grpc_host, self.grpc_port), self.env)
        self.code_servers.append(process)
        self.pid_file.write_text(f"{process.pid}\n", encoding="utf-8")
        _log(f"code server pid {process.pid} on {self.grpc_host}:{self.grpc_port}")
        deadline = time.monotonic() + CODE_SERVER_START_S
        while wait and not listening(self.grpc_host, self.grpc_port):
            if process.poll() is not None or time.monotonic() > deadline:
                _log(f"the code server on {self.grpc_host}:{self.grpc_port} did not start")
                return
            time.sleep(POLL_S)

    def start(self) -> None:
        """The code server first (the others load it), then the webserver and the daemon."""
        self.workspace_file.write_text(
            workspace_yaml(self.grpc_host, self.grpc_port), encoding="utf-8"
        )
        self.start_code_server(wait=True)
        workspace = str(self.workspace_file)
        self.services["webserver"] = start_group(
            [_bin("dagster-webserver"), "-h", self.host, "-p", str(self.port), "-w", workspace],
            self.env,
        )
        self.services["daemon"] = start_group(
            [_bin("dagster-daemon"), "run", "-w", workspace], self.env
        )

    def watch(self) -> int | None:
        """One look: restart an exited code server (after ``restart_delay_s``); the exit code of
        an exited other service."""
        current = self.code_servers[-1]
        if current.poll() is not None:
            now = time.monotonic()
            if self._restart_at is None:
                self._restart_at = now + self.restart_delay_s
                _log(
                    f"code server pid {current.pid} exited with {current.returncode}; starting it "
                    f"again in {self.restart_delay_s:g} s (restart {self.restarts + 1})"
                )
            elif now >= self._restart_at:
                self._restart_at = None
                self.restarts += 1
                self.start_code_server(wait=False)
        for name, process in self.services.items():
            code = process.poll()
            if code is not None:
                _log(f"{name} exited with {code}; stopping the deployment")
                return code
        return None

    def stop(self, grace_s: float) -> None:
        """Stop every group, the code servers' (and the runs they launched) included."""
        stop_groups([*self.services.values(), *self.code_servers], grace_s)


def run(deployment: Deployment, grace_s: float = GRACE_S) -> int:
    """Serve until a stop signal, the wrapper's parent dying, or a service exiting."""
    stop = StopSignal.install()
    parent = os.getppid()
    code: int | None = None
    try:
        deployment.start()
        while stop.signum is None and os.getppid() == parent:
            code = deployment.watch()
            if code is not None:
                break
            time.sleep(POLL_S)
    finally:
        deployment.stop(grace_s)
    if stop.signum is None:
        return code if code is not None else 1
    return stop.end_as_signal()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vba_assets.defs.serve", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--host", default="127.0.0.1", help="the webserver's host")
    parser.add_argument("--port", type=int, default=3000, help="the webserver's port")
    parser.add_argument("--grpc-host", default="127.0.0.1", help="the code server's host")
    parser.add_argument("--grpc-port", type=int, default=DEFAULT_GRPC_PORT)
    parser.add_argument(
        "--restart-delay",
        type=float,
        default=RESTART_DELAY_S,
        help=f"seconds before an exited code server is started again (default {RESTART_DELAY_S})",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=GRACE_S,
        help=f"seconds between SIGTERM and SIGKILL of the services' groups (default {GRACE_S})",
    )
    args = parser.parse_args(argv)
    home = os.environ.get("DAGSTER_HOME")
    if not home:
        parser.error("DAGSTER_HOME is not set: the webserver and the daemon must share an instance")
    env = {**SERVICE_ENV, **os.environ}
    deployment = Deployment(
        host=args.host,
        port=args.port,
        grpc_host=args.grpc_host,
        grpc_port=args.grpc_port,
        workspace_file=Path(home) / WORKSPACE_FILE,
        pid_file=Path(home) / PID_FILE,
        env=env,
        restart_delay_s=args.restart_delay,
    )
    return run(deployment, args.grace)


if __name__ == "__main__":
    sys.exit(main())
