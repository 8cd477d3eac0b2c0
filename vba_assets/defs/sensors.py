"""The inbox sensor: reports dropped into ``<workspace>/inbox/`` become case partitions."""

import dagster as dg
from dagster._core.definitions.unresolved_asset_job_definition import (
    UnresolvedAssetJobDefinition,
)

from resources.dagster_resources import ProjectResource
from vba_assets.defs.partitions import (
    CASE_DIMENSION,
    REVISION_DIMENSION,
    partition_key,
    registration_requests,
)
from vba_assets.intake import import_inbox

FIRST_REVISION = "0001"


def build_inbox_sensor(job: UnresolvedAssetJobDefinition) -> dg.SensorDefinition:
    """A sensor that imports the inbox, registers new cases and requests their first run."""

    @dg.sensor(
        name="inbox_sensor",
        job=job,
        minimum_interval_seconds=10,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Imports reports dropped into <workspace>/inbox/ (admission rejects bad ones "
        "with a logged reason) and registers every imported case as partition <case>|0001.",
    )
    def inbox_sensor(
        context: dg.SensorEvaluationContext, project: ProjectResource
    ) -> dg.SensorResult:
        workspace = project.workspace()
        for outcome in import_inbox(workspace):
            context.log.info(str(outcome))
        known_cases = set(context.instance.get_dynamic_partitions(CASE_DIMENSION))
        known_revisions = set(context.instance.get_dynamic_partitions(REVISION_DIMENSION))
        new_cases = [c for c in workspace.case_ids() if c not in known_cases]
        if not new_cases:
            return dg.SensorResult(skip_reason="no new cases in the workspace")
        revisions = [] if FIRST_REVISION in known_revisions else [FIRST_REVISION]
        return dg.SensorResult(
            dynamic_partitions_requests=registration_requests(new_cases, revisions),
            run_requests=[
                dg.RunRequest(
                    run_key=f"register:{case_id}|{FIRST_REVISION}",
                    partition_key=partition_key(case_id, FIRST_REVISION),
                )
                for case_id in new_cases
            ],
        )

    return inbox_sensor
