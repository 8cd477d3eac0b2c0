"""End-to-end: with `make run` up, the backfill CLI's ``--launch`` of one case runs and succeeds.

The server is what `make run` starts (``dg dev`` from the repository root, see conftest). The CLI
(``python -m vba_assets.defs.backfill --case-id X --launch``) submits through ``workspace.yaml``
in another process; the `dg dev` daemon dequeues the run and must find the code location the run
names. Before ``code_location_name`` was set in ``[tool.dg.project]``, `dg dev` named its location
after the clone's folder and the run failed with ``DagsterCodeLocationNotFoundError``.
"""

import subprocess
import sys
import time

import pytest

from tests.conftest import REPO
from tests.e2e.conftest import DagsterUI, server_environment
from tests.e2e.graphql import TERMINAL_RUN_STATUSES, RunSummary
from tests.e2e.settle import JOB, Settled
from vba_assets.defs.sensors import FIRST_REVISION

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CASE_ID = "BUG-000021"
RUN_TIMEOUT_S = 240.0


def _wait_for_new_run(
    ui: DagsterUI, partition: str, known: set[str], timeout_s: float
) -> RunSummary:
    """The first run of ``partition`` not in ``known`` once it is finished (bounded wait)."""
    deadline = time.monotonic() + timeout_s
    latest: RunSummary | None = None
    while time.monotonic() < deadline:
        fresh = [
            r for r in ui.client.runs(JOB) if r.partition == partition and r.run_id not in known
        ]
        if fresh:
            latest = fresh[-1]  # newest first: the last one is the first submitted
            if latest.status in TERMINAL_RUN_STATUSES:
                return latest
        time.sleep(1.0)
    raise TimeoutError(
        f"no finished new run of {partition} within {timeout_s:.0f} s (last seen: {latest}); "
        f"dg dev log tail:\n{ui.server.log_tail()}"
    )


def test_backfill_cli_launch_of_one_case_succeeds_under_dg_dev(
    dagster_ui: DagsterUI, settled: Settled
) -> None:
    assert CASE_ID in dagster_ui.sample_case_ids
    partition = f"{CASE_ID}|{FIRST_REVISION}"
    known = {run.run_id for run in dagster_ui.client.runs(JOB)}
    env = server_environment(dagster_ui.workspace.root, dagster_ui.dagster_home)
    launched = subprocess.run(
        [sys.executable, "-m", "vba_assets.defs.backfill", "--case-id", CASE_ID, "--launch"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert launched.returncode == 0, f"{launched.stdout}\n{launched.stderr}"
    assert f"partitions:      {partition}" in launched.stdout

    run = _wait_for_new_run(dagster_ui, partition, known, RUN_TIMEOUT_S)
    assert run.status == "SUCCESS", "\n".join(dagster_ui.client.run_failures(run.run_id))
    assert settled.job.location == "vba_assets.definitions"
