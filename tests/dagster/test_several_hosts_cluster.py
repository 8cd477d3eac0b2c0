"""The several-host deployment simulated on one machine (a harness, no tests of its own).

Used by ``tests/dagster/test_several_hosts.py`` and ``bench/several_hosts.py``. Each "host" is a
process group with a working folder, a ``DAGSTER_HOME``, a cache folder and a compute-log folder
of its own; what they share is PostgreSQL (one database per simulation) and an S3 server on
loopback (moto in server mode, ``moto_server``), reached through :class:`CountingProxy`, which
counts every request and its bytes by method and key prefix.

* the control host: ``make serve``'s deployment (:mod:`vba_assets.defs.serve`: code server,
  webserver, daemon) with ``deploy/dagster.several-hosts.yaml`` as its instance;
* run worker hosts: ``python -m vba_assets.defs.run_worker`` (:class:`RunWorker`), which can be
  killed (SIGKILL of its whole process group: the host is gone) and started again.

Ports come from 127.0.0.1:9150-9199 (this project's range for the simulation).
"""

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from tests.conftest import REPO
from tests.e2e.dagster_dev import DagsterDev, terminate_with_parent
from tests.providers import API_KEY_VARS
from vba_assets.defs.run_worker import celery_urls

PORT_RANGE = range(9150, 9200)
BUCKET = "vba-several-hosts"
#: The instance file's values a simulation shortens (the deploy file's are for production).
MAX_RUNTIME_S = 150
MONITOR_POLL_S = 5
FREE_SLOTS_S = 10
CLEARED_ENV = (
    "VBA_PROJECT_CONFIG",
    "VBA_LLM_CONFIG",
    "VBA_WORKSPACE",
    "VBA_CACHE_DIR",
    "DAGSTER_HOME",
    "AWS_PROFILE",
    *API_KEY_VARS,
)
_port_lock = threading.Lock()
_ports_taken: set[int] = set()


def port_in_range() -> int:
    """A free port of :data:`PORT_RANGE` on 127.0.0.1, not handed out before by this process."""
    with _port_lock:
        for port in PORT_RANGE:
            if port in _ports_taken:
                continue
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    continue
            _ports_taken.add(port)
            return port
    raise RuntimeError(f"no free port in 127.0.0.1:{PORT_RANGE.start}-{PORT_RANGE.stop - 1}")


def listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def instance_yaml(max_runtime_s: int = MAX_RUNTIME_S) -> str:
    """``deploy/dagster.several-hosts.yaml`` with the simulation's shorter monitoring times."""
    text = (REPO / "deploy" / "dagster.several-hosts.yaml").read_text(encoding="utf-8")
    for old, new in (
        ("max_runtime_seconds: 3600", f"max_runtime_seconds: {max_runtime_s}"),
        ("poll_interval_seconds: 30", f"poll_interval_seconds: {MONITOR_POLL_S}"),
        ("free_slots_after_run_end_seconds: 60", f"free_slots_after_run_end_seconds: {FREE_SLOTS_S}"),
    ):
        assert old in text, f"deploy/dagster.several-hosts.yaml no longer has {old!r}"
        text = text.replace(old, new)
    return text


@dataclass
class Traffic:
    """Requests and bytes through :class:`CountingProxy`, by (method, first key segment)."""

    requests: Counter[tuple[str, str]] = field(default_factory=Counter)
    bytes_up: Counter[tuple[str, str]] = field(default_factory=Counter)
    bytes_down: Counter[tuple[str, str]] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, method: str, path: str, up: int, down: int) -> None:
        parts = [p for p in urlsplit(path).path.split("/") if p]
        prefix = parts[1] if len(parts) > 1 else "(bucket)"
        with self.lock:
            self.requests[(method, prefix)] += 1
            self.bytes_up[(method, prefix)] += up
            self.bytes_down[(method, prefix)] += down

    def snapshot(self) -> dict[str, dict[str, int]]:
        with self.lock:
            return {
                f"{method} {prefix}": {
                    "requests": count,
                    "bytes_up": self.bytes_up[(method, prefix)],
                    "bytes_down": self.bytes_down[(method, prefix)],
                }
                for (method, prefix), count in sorted(self.requests.items())
            }


class CountingProxy:
    """A loopback HTTP reverse proxy in front of the S3 server that counts what passes."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.traffic = Traffic()
        self.port = port_in_range()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                return

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
                upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=60)
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    reply = upstream.getresponse()
                    data = reply.read()
                finally:
                    upstream.close()
                self.send_response(reply.status)
                for key, value in reply.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                proxy.traffic.add(self.command, self.path, len(body), len(data))

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "CountingProxy":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def s3_server(log_path: Path) -> Iterator[CountingProxy]:
    """moto's S3 server on loopback behind a :class:`CountingProxy`; the bucket created."""
    import boto3

    port = port_in_range()
    moto = Path(sys.executable).with_name("moto_server")
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [str(moto), "-H", "127.0.0.1", "-p", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=terminate_with_parent,
        )
    try:
        deadline = time.monotonic() + 60
        while not listening(port):
            assert process.poll() is None, log_path.read_text(errors="replace")[-2000:]
            assert time.monotonic() < deadline, "moto_server did not listen within 60 s"
            time.sleep(0.2)
        with CountingProxy(port) as proxy:
            client = boto3.client("s3", endpoint_url=proxy.endpoint, **fake_credentials())
            client.create_bucket(Bucket=BUCKET)
            # every overwrite of a key stays visible: "no artifact written twice" is checked on it
            client.put_bucket_versioning(
                Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"}
            )
            yield proxy
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def fake_credentials() -> dict[str, str]:
    return {
        "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing",
        "region_name": "us-east-1",
    }


def base_env(pg_database: str, s3_endpoint: str) -> dict[str, str]:
    """The environment every host has: PostgreSQL, the Celery URLs, the bucket, AWS keys."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
    env.update(DAGSTER_PG_DB=pg_database, PYTHONUNBUFFERED="1", PYTHONPATH=str(REPO))
    broker, backend = celery_urls(env)
    env.update(
        DAGSTER_CELERY_BROKER_URL=broker,
        DAGSTER_CELERY_BACKEND_URL=backend,
        VBA_S3_BUCKET=BUCKET,
        VBA_S3_ENDPOINT_URL=s3_endpoint,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )
    return env


def host_env(env: dict[str, str], folder: Path, yaml_text: str) -> dict[str, str]:
    """``env`` for a host whose private folders are under ``folder`` (created here)."""
    home = folder / "dagster-home"
    home.mkdir(parents=True)
    (home / "dagster.yaml").write_text(yaml_text, encoding="utf-8")
    cache = folder / "cache"
    source_cache = Path(os.environ.get("VBA_CACHE_DIR") or Path.home() / ".cache" / "vba-assets")
    if source_cache.is_dir():  # a copy, not a shared path: saves each host the 6 s build
        shutil.copytree(source_cache, cache)
    return {
        **env,
        "DAGSTER_HOME": str(home),
        "VBA_COMPUTE_LOG_DIR": str(folder / "compute-logs"),
        "VBA_CACHE_DIR": str(cache),
    }


class ControlHost(DagsterDev):
    """``python -m vba_assets.defs.serve`` (code server, webserver, daemon): the control host."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(folder, env, folder / "serve.log", port_in_range(), None)
        self.grpc_port = port_in_range()

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "vba_assets.defs.serve",
            "--port",
            str(self.port),
            "--grpc-port",
            str(self.grpc_port),
        ]


class RunWorker(DagsterDev):
    """``python -m vba_assets.defs.run_worker`` in a folder of its own: one run worker host."""

    def __init__(self, name: str, folder: Path, env: dict[str, str], concurrency: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(folder, env, folder / "worker.log", 0, None)
        self.name = name
        self.concurrency = concurrency
        self.starts = 0

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "vba_assets.defs.run_worker",
            "--name",
            self.name,
            "--concurrency",
            str(self.concurrency),
        ]

    def start(self) -> "RunWorker":
        self.starts += 1
        super().start()
        return self

    def ready(self) -> bool:
        """True once this start of the worker consumes (Celery logs ``<name> ready.``)."""
        if self.exited() is not None:
            raise RuntimeError(f"{self.name} exited: {self.log_tail()}")
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return False
        return text.count(f"{self.name} ready.") >= self.starts

    def kill(self) -> None:
        """SIGKILL of the worker's whole process group: the host is gone, nothing cleans up."""
        process = self._process
        assert process is not None
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        self._process = None
