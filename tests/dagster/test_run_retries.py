"""`run_retries` of the deployed instance files: a block is not retried, a launch failure is.

A block ends its step with ``dagster.Failure`` (``vba_assets.defs.failures``), so the run fails with
Dagster's failure reason ``STEP_FAILURE``; a run that failed at launch or dequeue has no step that
failed. With ``run_retries`` of ``deploy/dagster.yaml`` (and of ``deploy/dagster.local.yaml``), the
instance itself decides at the failure event and tags the run ``dagster/will_retry``: the daemon
re-executes exactly the runs tagged ``true`` (``dagster._daemon.auto_run_reexecution``).
"""

from pathlib import Path
from typing import Any

import dagster as dg
import pytest
import yaml

from tests.conftest import REPO
from tests.dagster.test_blocked_resume import _block, _blocked_case, _llm

WILL_RETRY_TAG = "dagster/will_retry"
FAILURE_REASON_TAG = "dagster/failure_reason"


def _run_retries(instance_file: str) -> dict[str, Any]:
    settings: dict[str, Any] = yaml.safe_load((REPO / "deploy" / instance_file).read_text())
    return {"run_retries": settings["run_retries"]}


@dg.op
def _noop() -> None:
    """Never executed: the run fails before it launches."""


@dg.job
def _never_launched() -> None:
    _noop()


@pytest.mark.parametrize("instance_file", ["dagster.yaml", "dagster.local.yaml"])
def test_a_blocked_run_is_not_retried_and_a_launch_failure_is(
    tmp_path: Path, instance_file: str
) -> None:
    project_file, llm_file = _blocked_case(tmp_path, f"retries-{instance_file}")
    with dg.instance_for_test(overrides=_run_retries(instance_file)) as instance:
        assert instance.run_retries_enabled and instance.run_retries_max_retries >= 1
        _block(instance, project_file, _llm(f"retries-{instance_file}", llm_file))
        [blocked] = instance.get_runs()
        assert blocked.status == dg.DagsterRunStatus.FAILURE
        assert blocked.tags[FAILURE_REASON_TAG] == "STEP_FAILURE"
        assert blocked.tags[WILL_RETRY_TAG] == "false"

        # what the queue does with a run it could not launch (DagsterUserCodeUnreachableError
        # after its own retries, or any other launch error): report_run_failed, no step failed
        run = instance.create_run_for_job(_never_launched)
        instance.report_run_failed(run, "Caught an unrecoverable error while dequeuing the run")
        failed = instance.get_run_by_id(run.run_id)
        assert failed is not None and failed.status == dg.DagsterRunStatus.FAILURE
        assert FAILURE_REASON_TAG not in failed.tags
        assert failed.tags[WILL_RETRY_TAG] == "true"
