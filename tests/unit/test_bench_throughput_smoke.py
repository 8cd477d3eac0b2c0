"""bench/throughput.py with tiny sizes: valid JSON, every run correct, every target measured.

It runs as a user runs it (``python bench/throughput.py``): real ``dagster dev`` deployments, a
backfill through GraphQL, the simulated model. Only structure and correctness are asserted, never a
timing (speed is what the benchmark reports).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vba_assets.domain.stages import MODEL_STAGES

REPO = Path(__file__).resolve().parents[2]
CASES = 2


@pytest.mark.slow
def test_throughput_measures_every_target_on_a_tiny_backfill() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "throughput.py"),
            *("--cases", str(CASES), "--latency", "0.05", "--concurrency", "2", "--jobs", "1"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output = json.loads(done.stdout)
    assert {"cpu_count", "dagster_version"} <= set(output["machine"])
    assert output["parameters"]["concurrency"] == [2]
    for result in (output["results"]["ours"]["2"], output["results"]["trivial_same_shape"]):
        assert result["cases"] == result["runs"] == result["runs_succeeded"] == CASES
        assert result["model_calls"] >= CASES * len(MODEL_STAGES)
        assert 1 <= result["max_model_calls_in_flight"] <= 2  # the pool limit = the concurrency
        for key in ("wall_s", "efficiency", "cpu_per_case_s", "cases_per_minute"):
            assert isinstance(result[key], float) and result[key] > 0, key
        assert result["cpu_s_by_process"]["run_processes"] > 0
    assert output["results"]["ours"]["2"]["partitions_with_every_check_passed"] == CASES
    assert output["results"]["dagster_cost"]["ratio"] > 0
    targets = output["targets"]
    assert set(targets) == {"efficiency", "dagster_cost_ratio"}
    for target in targets.values():
        assert target["value"] is not None and isinstance(target["met"], bool)
