"""bench/bucket_store.py with one case: its JSON and correctness counters (never a timing)."""

import json
import os
import subprocess
import sys

import pytest

from tests.objectstore.conftest import REPO


def test_bucket_store_bench_runs_and_finds_the_same_artifacts() -> None:
    pytest.importorskip("moto", reason="moto[server] (dev extra) is not installed")
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "bucket_store.py"), "--cases", "1"],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout)["results"]
    assert results["same_artifacts"] is True
    assert results["requests_per_case"]["PutObject"] > 10  # every artifact and event line
    assert set(results) >= {"local", "bucket"}
