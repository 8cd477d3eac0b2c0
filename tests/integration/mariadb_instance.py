"""A throwaway MariaDB server for integration tests.

:func:`mariadb_instance` initializes a fresh data directory with ``mariadb-install-db`` in a temp
folder, starts ``mariadbd`` on ``127.0.0.1`` with a free port and its own socket, waits until it
answers, and on exit stops it (SIGTERM, then SIGKILL) and deletes the folder. The instance can be
frozen and thawed (:meth:`MariaDBInstance.pause` / :meth:`MariaDBInstance.resume`: SIGSTOP and
SIGCONT) to simulate a hung server, or stopped early (:meth:`MariaDBInstance.stop`) to simulate a
refused connection. Nothing here touches any other MariaDB server on the machine.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pymysql

_SBIN = ("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin")


def _which(program: str) -> str | None:
    return shutil.which(program) or next(
        (str(Path(d) / program) for d in _SBIN if (Path(d) / program).is_file()), None
    )


def missing_programs() -> list[str]:
    """The MariaDB server programs this helper needs that are not installed."""
    return [name for name in ("mariadbd", "mariadb-install-db") if _which(name) is None]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class MariaDBInstance:
    """A running throwaway ``mariadbd``; root logs in through :attr:`socket_path` without password."""

    host = "127.0.0.1"

    def __init__(self, root: Path, port: int, process: subprocess.Popen[bytes]) -> None:
        self.root = root
        self.port = port
        self.process = process
        self.socket_path = root / "mysqld.sock"
        self.error_log = root / "error.log"
        self._paused = False

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def admin_connection(self, database: str | None = None, **kwargs: Any) -> Any:
        """A PyMySQL connection as root through the unix socket (autocommit)."""
        return pymysql.connect(
            unix_socket=str(self.socket_path),
            user="root",
            database=database,
            charset="utf8mb4",
            autocommit=True,
            connect_timeout=5,
            read_timeout=60,
            write_timeout=60,
            **kwargs,
        )

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open but nothing answers."""
        self.process.send_signal(signal.SIGSTOP)
        self._paused = True

    def resume(self, answer_within_s: float = 30.0) -> None:
        """Thaw a paused server (SIGCONT) and wait until it answers a new connection again (a
        thawed server on a loaded machine may need a moment before it serves the next query)."""
        self.process.send_signal(signal.SIGCONT)
        self._paused = False
        _wait_ready(self, answer_within_s)

    def stop(self, timeout_s: float = 20.0) -> None:
        """Stop the server: SIGTERM (and SIGCONT if paused), then SIGKILL. Idempotent."""
        if self.running:
            self.process.send_signal(signal.SIGTERM)
            if self._paused:
                self.process.send_signal(signal.SIGCONT)
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout_s)
        self._paused = False

    def error_log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.error_log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "<no error log>"


def _install(datadir: Path, log: Path) -> None:
    command = [
        str(_which("mariadb-install-db")),
        "--no-defaults",
        f"--datadir={datadir}",
        "--auth-root-authentication-method=normal",
        "--skip-test-db",
        "--skip-name-resolve",
    ]
    if os.geteuid() == 0:
        command.append("--user=root")
    with log.open("wb") as output:
        result = subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"mariadb-install-db failed ({result.returncode}): see {log}")


def _start(root: Path, datadir: Path, port: int) -> subprocess.Popen[bytes]:
    command = [
        str(_which("mariadbd")),
        "--no-defaults",
        f"--datadir={datadir}",
        f"--socket={root / 'mysqld.sock'}",
        f"--pid-file={root / 'mysqld.pid'}",
        f"--log-error={root / 'error.log'}",
        f"--tmpdir={root}",
        f"--port={port}",
        "--bind-address=127.0.0.1",
        "--skip-log-bin",
        "--skip-name-resolve",
        "--innodb-buffer-pool-size=32M",
        "--character-set-server=utf8mb4",
        "--collation-server=utf8mb4_unicode_ci",
    ]
    if os.geteuid() == 0:
        command.append("--user=root")
    return subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _wait_ready(instance: MariaDBInstance, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not instance.running:
            raise RuntimeError(f"mariadbd exited early:\n{instance.error_log_tail()}")
        try:
            instance.admin_connection().close()
            return
        except pymysql.err.MySQLError:
            time.sleep(0.1)
    raise RuntimeError(
        f"mariadbd did not answer within {timeout_s} s:\n{instance.error_log_tail()}"
    )


@contextmanager
def mariadb_instance(startup_timeout_s: float = 60.0) -> Iterator[MariaDBInstance]:
    """Start a throwaway MariaDB server; stop it and delete its files on exit."""
    missing = missing_programs()
    if missing:
        raise RuntimeError(f"not installed: {', '.join(missing)} (apt-get install mariadb-server)")
    root = Path(tempfile.mkdtemp(prefix="vba-mariadb-"))
    instance: MariaDBInstance | None = None
    try:
        datadir = root / "data"
        _install(datadir, root / "install.log")
        port = free_port()
        instance = MariaDBInstance(root, port, _start(root, datadir, port))
        _wait_ready(instance, startup_timeout_s)
        yield instance
    finally:
        if instance is not None:
            instance.stop()
        shutil.rmtree(root, ignore_errors=True)
