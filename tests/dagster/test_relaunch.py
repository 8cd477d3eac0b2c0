"""`relaunch_lost_runs`: only a partition whose newest run failed before any step, and that
Dagster will not retry, gets one more run; a block (a step failure) never does."""

import dagster as dg

from vba_assets.defs.relaunch import RELAUNCH_TAG, relaunch_requests

KEY = "BUG-000020|0001"


@dg.op
def _noop() -> None:
    """Never executed: the runs below fail before they launch."""


@dg.job
def _job() -> None:
    _noop()


def _failed(instance: dg.DagsterInstance, key: str, **tags: str) -> dg.DagsterRun:
    run = instance.create_run_for_job(
        _job, tags={"dagster/partition": key, "vba/case": key.split("|")[0], **tags}
    )
    instance.report_run_failed(run)
    if "dagster/will_retry" in tags:  # what the daemon tags after its retry failed
        instance.add_run_tags(run.run_id, {"dagster/will_retry": tags["dagster/will_retry"]})
    failed = instance.get_run_by_id(run.run_id)
    assert failed is not None
    return failed


def _requests(instance: dg.DagsterInstance) -> list[dg.RunRequest]:
    failed = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.FAILURE]))
    return relaunch_requests(instance, failed)


def test_a_lost_launch_is_relaunched_once_with_its_case_tags() -> None:
    with dg.instance_for_test() as instance:
        lost = _failed(instance, KEY, **{"dagster/will_retry": "false"})
        [request] = _requests(instance)
        assert request.partition_key == KEY and request.run_key == f"relaunch:{lost.run_id}"
        assert request.tags[RELAUNCH_TAG] == lost.run_id
        assert request.tags["vba/case"] == "BUG-000020"
        # the relaunch failing too is left to run_retries and the alert
        _failed(instance, KEY, **{"dagster/will_retry": "false", RELAUNCH_TAG: lost.run_id})
        assert _requests(instance) == []


def test_a_step_failure_a_pending_retry_or_a_newer_run_is_not_relaunched() -> None:
    with dg.instance_for_test() as instance:
        _failed(
            instance,
            "BUG-000021|0001",
            **{"dagster/will_retry": "false", "dagster/failure_reason": "STEP_FAILURE"},
        )
        _failed(instance, "BUG-000022|0001", **{"dagster/will_retry": "true"})
        _failed(instance, KEY, **{"dagster/will_retry": "false"})
        instance.create_run_for_job(_job, tags={"dagster/partition": KEY})  # ran again since
        assert _requests(instance) == []
