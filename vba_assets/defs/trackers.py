"""One sensor per ``[[trackers]]`` block: sync the tracker, register and start its case revisions.

``tracker_<name>_sensor`` runs :func:`vba_assets.tracker.sync.sync_tracker` each tick (every
``interval_s``; the cursor is the workspace's ``trackers/<name>/cursor.json``, shared with
``vba tracker sync``), registers every revision of the tracker's cases as a partition, like the
inbox sensor, and requests one run per revision that was never started (run key
``start:<case>|<revision>``, so a new case, and a new revision of an edited issue, are each
requested once). It requests the revisions of its own repository's cases only, and the inbox
sensor leaves those to it: a run key is de-duplicated per sensor, so two sensors requesting one
partition would start it twice. Requesting every unstarted revision of its cases (not only the ones
this tick imported) also starts what a ``vba tracker sync`` from the command line imported, or a
tick that was killed between the import and its request.

With ``write_back = "comment"`` each tick then posts or updates the comment of every revision with
an accepted interpretation (:mod:`vba_assets.tracker.write_back`); a failed post is recorded and
retried by a later tick, and never holds a run back.

It is on by default like the inbox sensor: writing a ``[[trackers]]`` block is the opt-in. A sync
that stops (rate limit, server, network) is logged with its reason, recorded in
``trackers/<name>/last_sync.json`` and resumed by the next tick; a tick spends at most
:data:`TICK_BUDGET_S` seconds waiting and requesting (Dagster gives a sensor 60 s).
"""

import dagster as dg

from vba_assets.config import ProjectConfig, TrackerConfig
from vba_assets.defs.resources import LlmResource, ProjectResource
from vba_assets.defs.sensors import start_revisions, workspace_partitions
from vba_assets.tracker.github_issues import is_case_of
from vba_assets.tracker.sync import sync_tracker
from vba_assets.tracker.write_back import post_write_backs

#: Seconds one tick may spend syncing (waits beyond it stop the sync; the next tick resumes).
TICK_BUDGET_S = 40.0


def sensor_name(tracker: TrackerConfig) -> str:
    return f"tracker_{tracker.name}_sensor"


def build_tracker_sensor(tracker: TrackerConfig, job_name: str) -> dg.SensorDefinition:
    """The sensor of one ``[[trackers]]`` block (its settings are read again at each tick)."""
    name = tracker.name

    @dg.sensor(
        name=sensor_name(tracker),
        job_name=job_name,
        minimum_interval_seconds=tracker.interval_s,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description=f"Syncs the issues of {tracker.repository} ([[trackers]] '{name}') since "
        f"the cursor in `<workspace>/trackers/{name}/`: new and edited issues become case "
        "revisions; registers them as partitions and requests one run per revision never "
        "started. A stopped sync (rate limit, server, network) is logged and resumed next tick.",
    )
    def tracker_sensor(
        context: dg.SensorEvaluationContext, project: ProjectResource, llm: LlmResource
    ) -> dg.SensorResult:
        config = project.load()
        workspace = project.workspace()
        current = config.tracker(name)
        result = sync_tracker(workspace, current, budget_s=TICK_BUDGET_S)
        for line in result.lines():
            context.log.info(line)
        if result.stopped is not None:
            context.log.warning(
                f"tracker {name}: sync stopped: {result.stopped.reason}: {result.stopped.detail}"
            )
        if current.write_back == "comment":
            posted = post_write_backs(workspace, current, budget_s=TICK_BUDGET_S / 2)
            context.log.info(f"tracker {name}: write-back {posted.to_json()}")
        partitions = [
            (c, r, started)
            for c, r, started in workspace_partitions(workspace)
            if is_case_of(c, current.repository)
        ]
        registration, requests = start_revisions(
            context.instance, partitions, llm, starts=lambda case_id: True
        )
        stopped = result.stopped
        return dg.SensorResult(
            dynamic_partitions_requests=registration,
            run_requests=requests,
            skip_reason=(
                f"sync stopped: {stopped.reason}: {stopped.detail}"
                if stopped is not None and not requests
                else None
            ),
        )

    return tracker_sensor


def build_tracker_sensors(config: ProjectConfig, job_name: str) -> list[dg.SensorDefinition]:
    return [build_tracker_sensor(tracker, job_name) for tracker in config.trackers]
