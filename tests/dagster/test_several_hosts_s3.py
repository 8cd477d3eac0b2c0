"""The S3 side of the several-host simulation: moto on loopback behind a counting proxy.

``moto``'s server (one request at a time, ``tests/objectstore/serial_moto.py``) holds the bucket,
versioned so that every overwrite of a key stays visible; :class:`CountingProxy` in front of it
counts every request and its bytes by method and first key segment (``cases`` for the case
packages, ``compute-logs`` for the step logs): what ``bench/several_hosts.py`` reports.
"""

import http.client
import os
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
from urllib.parse import parse_qs, urlsplit

from tests.conftest import REPO
from tests.e2e.dagster_dev import terminate_with_parent

BUCKET = "vba-several-hosts"
#: The case packages' key prefix in the bucket (the step logs' is ``compute-logs``).
STORE_PREFIX = "cases"
PORT_RANGE = range(9150, 9200)
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


@dataclass
class Traffic:
    """Requests and bytes through :class:`CountingProxy`, by (method, first key segment)."""

    requests: Counter[tuple[str, str]] = field(default_factory=Counter)
    bytes_up: Counter[tuple[str, str]] = field(default_factory=Counter)
    bytes_down: Counter[tuple[str, str]] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, method: str, path: str, up: int, down: int) -> None:
        """One request: ``GET /bucket?list-type=2&prefix=p/...`` counts as ``LIST p``."""
        url = urlsplit(path)
        parts = [p for p in url.path.split("/") if p]
        prefix = parts[1] if len(parts) > 1 else "(bucket)"
        query = parse_qs(url.query)
        if len(parts) == 1 and method == "GET" and ("list-type" in query or "versions" in query):
            method = "LIST"
            prefix = (query.get("prefix", [""])[0].split("/") or [""])[0] or "(bucket)"
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

            def log_message(self, format: str, *args: object) -> None:
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
    with open(log_path, "ab") as log:
        # moto's server with one request at a time: its If-None-Match check is not atomic under
        # threads, S3's is (tests/objectstore/serial_moto.py)
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.objectstore.serial_moto", str(port)],
            cwd=REPO,
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
