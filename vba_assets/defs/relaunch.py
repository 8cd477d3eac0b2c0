"""The ``relaunch_lost_runs`` sensor: a run that failed before any step did is launched once more.

Why: ``run_retries`` (deploy/dagster.yaml) re-executes a run that failed without a step failure,
but Dagster 1.13.27 gives up for good when the code location cannot be loaded at that moment
(``Failed to retry run``; the daemon then tags the run ``dagster/will_retry=false``). Measured in
``tests/dagster/test_postgres_stress.py``: the code server killed during a ``StartRun`` call; the
queue put the run back, the old server's run process found it queued and exited, the old server
marked the run failed (its orphan check), and the retry fell in the 40 s without a code server:
one partition of 10 stayed unmaterialized with nothing left to run it.

What it does, every 30 s: for each partition whose newest run failed with no failed step (no
``dagster/failure_reason`` ``STEP_FAILURE``), that Dagster will not retry (``will_retry`` false,
no automatic retry launched) and that is not itself a relaunch, it requests one run of the job for
the partition (run key ``relaunch:<failed run id>``, tag ``vba/relaunch_of``). A failed step (a
recorded block, or a bug) is never relaunched: a block waits for its ``retry_at`` and an explicit
resume (:mod:`vba_assets.defs.resume`). A relaunch that fails is left to ``run_retries`` and to
the ``run_failure_alerts`` record.
"""

from collections.abc import Iterable
from datetime import timedelta

import dagster as dg

from vba_assets.domain.clock import utc_now

SENSOR_NAME = "relaunch_lost_runs"
RELAUNCH_TAG = "vba/relaunch_of"
#: How far back the sensor looks for failed runs.
LOOKBACK = timedelta(days=2)
#: Failed runs looked at per tick (newest first).
SCAN_LIMIT = 500
PARTITION_TAG = "dagster/partition"
_WILL_RETRY_TAG = "dagster/will_retry"
_FAILURE_REASON_TAG = "dagster/failure_reason"
_AUTO_RETRY_RUN_ID_TAG = "dagster/auto_retry_run_id"
_RUN_TAG_PREFIX = "vba/"


def is_lost(run: dg.DagsterRun) -> bool:
    """A failed run with no failed step that nothing will run again (see the module doc)."""
    tags = run.tags
    return (
        run.status == dg.DagsterRunStatus.FAILURE
        and PARTITION_TAG in tags
        and tags.get(_FAILURE_REASON_TAG) != "STEP_FAILURE"
        and tags.get(_WILL_RETRY_TAG) == "false"
        and _AUTO_RETRY_RUN_ID_TAG not in tags
        and RELAUNCH_TAG not in tags
    )


def relaunch_requests(
    instance: dg.DagsterInstance, failed: Iterable[dg.DagsterRun]
) -> list[dg.RunRequest]:
    """One request per partition whose newest run is a lost run of ``failed``."""
    requests = []
    seen: set[str] = set()
    for run in failed:
        key = run.tags.get(PARTITION_TAG)
        if key is None or key in seen or not is_lost(run):
            continue
        seen.add(key)
        [newest] = instance.get_runs(filters=dg.RunsFilter(tags={PARTITION_TAG: key}), limit=1)
        if newest.run_id != run.run_id:
            continue  # the partition ran again since
        tags = {k: v for k, v in run.tags.items() if k.startswith(_RUN_TAG_PREFIX)}
        requests.append(
            dg.RunRequest(
                run_key=f"relaunch:{run.run_id}",
                partition_key=key,
                tags={**tags, RELAUNCH_TAG: run.run_id},
            )
        )
    return requests


def build_relaunch_sensor(job_name: str) -> dg.SensorDefinition:
    """The sensor that relaunches lost runs as runs of ``job_name``."""

    @dg.sensor(
        name=SENSOR_NAME,
        job_name=job_name,
        minimum_interval_seconds=30,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Launches once more a partition whose newest run failed before any step "
        "failed (launch, dequeue, a lost run process) and that Dagster's run_retries will not "
        "retry. A failed step (a block or a bug) is never relaunched.",
    )
    def relaunch_lost_runs(context: dg.SensorEvaluationContext) -> dg.SensorResult:
        failed = context.instance.get_runs(
            filters=dg.RunsFilter(
                statuses=[dg.DagsterRunStatus.FAILURE], updated_after=utc_now() - LOOKBACK
            ),
            limit=SCAN_LIMIT,
        )
        requests = relaunch_requests(context.instance, failed)
        for request in requests:
            context.log.warning(
                f"relaunching {request.partition_key}: run {request.tags[RELAUNCH_TAG]} failed "
                "before any step did and will not be retried"
            )
        return dg.SensorResult(run_requests=requests)

    return relaunch_lost_runs
