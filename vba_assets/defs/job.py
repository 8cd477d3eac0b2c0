"""The ``interpret_cases`` job and the project's definitions for a given set of resources.

:data:`vba_assets.definitions.defs` builds them with the resources of the deployment's
configuration; tests, simulations and ``vba eval --via dagster`` build them with their own.
"""

import dagster as dg

from vba_assets.defs.alerts import run_failure_alerts
from vba_assets.defs.assets import ASSETS
from vba_assets.defs.checks import CHECKS
from vba_assets.defs.eval_quality import eval_quality
from vba_assets.defs.relaunch import build_relaunch_sensor
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.resume import (
    blocked_revisions_asset,
    build_resume_sensor,
    resume_blocked_job,
)
from vba_assets.defs.sensors import build_inbox_sensor
from vba_assets.defs.trackers import build_tracker_sensors

JOB_NAME = "interpret_cases"

interpret_cases_job = dg.define_asset_job(
    JOB_NAME,
    selection=dg.AssetSelection.assets(*ASSETS),
    description="Materialize and check the six case-interpretation assets of one case revision "
    "(partition `<case>|<revision>`). A failed blocking check stops the downstream assets of the "
    "run.",
)


def build_definitions(
    *, project: ProjectResource, world_db: WorldDatabaseResource, llm: LlmResource
) -> dg.Definitions:
    """The project's definitions with the given resources (tests and simulations swap them).

    One sensor per ``[[trackers]]`` block of the project config (read here, at load time).
    """
    trackers = build_tracker_sensors(project.load(), JOB_NAME)
    return dg.Definitions(
        assets=[*ASSETS, blocked_revisions_asset, eval_quality],
        asset_checks=CHECKS,
        jobs=[interpret_cases_job, resume_blocked_job],
        sensors=[
            build_inbox_sensor(JOB_NAME),
            *trackers,
            build_resume_sensor(),
            run_failure_alerts,
            build_relaunch_sensor(JOB_NAME),
        ],
        resources={"project": project, "world_db": world_db, "llm": llm},
        executor=dg.in_process_executor,
    )
