"""bench/several_hosts.py with 2 cases and 1 worker: its JSON and counters (never a timing).

Both phases run (local store, then bucket): no case lost or failed in either, the case packages
reach the bucket only in the bucket phase (PUTs under ``cases``), the step logs in both, and the
10,000-case extrapolation scales the counted requests.
"""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def test_the_several_hosts_bench_counts_the_bucket_traffic(pg_database: str) -> None:
    """``pg_database`` only makes PostgreSQL a prerequisite (skip, or fail in CI); the bench
    creates and drops databases of its own."""
    done = subprocess.run(
        [sys.executable, "several_hosts.py", "--cases", "2", "--workers", "1"],
        cwd=REPO / "bench",
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output = json.loads(done.stdout)
    local, bucket = output["phases"]["local"], output["phases"]["bucket"]
    for phase in (local, bucket):
        assert (phase["cases"], phase["lost"], phase["failed_runs"]) == (2, 0, 0), phase
        assert phase["s3_backfill"]["total"]["compute-logs"]["PUT"]["requests"] >= 2
    assert "cases" not in local["s3_backfill"]["total"]
    puts = bucket["s3_backfill"]["total"]["cases"]["PUT"]["requests"]
    assert puts > 10  # every artifact and event line of two cases
    extrapolated = bucket["extrapolated_backfill"]
    assert extrapolated["requests"]["put_list"] >= puts * 10_000 // 2
    assert output["bucket_vs_local"]["wall_s_per_case_ratio"] > 0
