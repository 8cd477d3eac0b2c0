"""A moto S3 server on 127.0.0.1 (ports 9100-9149) for the bucket backend's tests.

Every test that needs the server skips cleanly where moto is not installed (it is in the dev
extra, so CI runs them); the others (config parsing, URLs) run everywhere. The server is started once per session as a subprocess and stopped at the end; each test
gets a bucket of its own.
"""

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from vba_assets.objectstore import ObjectStore

REPO = Path(__file__).resolve().parents[2]
PORTS = range(int(os.environ.get("VBA_MOTO_PORT_FIRST", "9100")), 9150)
CREDENTIALS = ("testing-key-id", "testing-secret", None)


def _free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS}")


def start_moto(*extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``tests.objectstore.serial_moto`` and wait until it answers; (process, endpoint)."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.objectstore.serial_moto", str(port), *extra],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("moto server did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """The endpoint of a moto S3 server for the session (serialized: see serial_moto); every test
    that needs it skips where moto is not installed."""
    pytest.importorskip("moto", reason="moto[server] (dev extra) is not installed")
    process, endpoint = start_moto()
    try:
        yield endpoint
    finally:
        stop(process)


def new_bucket(endpoint: str, prefix: str = "vba") -> ObjectStore:
    """A fresh bucket on ``endpoint`` (a unique name) as the store opens it."""
    name = f"vba-test-{uuid.uuid4().hex[:12]}"
    store = ObjectStore(
        f"s3://{name}/{prefix}", endpoint_url=endpoint, region="us-east-1", credentials=CREDENTIALS
    )
    store._client.create_bucket(Bucket=name)
    return store


@pytest.fixture
def bucket(moto_endpoint: str) -> ObjectStore:
    return new_bucket(moto_endpoint)
