"""The inbox sensor: reports dropped into ``<workspace>/inbox/`` become case partitions."""

import hashlib
import json

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
from vba_assets.intake import InboxRejection, import_inbox
from vba_assets.store import Workspace

FIRST_REVISION = "0001"


def workspace_partitions(workspace: Workspace) -> list[tuple[str, str, bool]]:
    """``(case, revision, started)`` for every fully imported case of the workspace.

    A case counts once its ``package.json`` exists (import writes it last). A newly imported case
    has no revision yet: its first revision is ``0001``. A revision created with
    ``vba revision new`` is not started until its frozen ``input.json`` exists.
    """
    partitions = []
    for case_id in workspace.case_ids():
        package = workspace.case(case_id)
        if not package.exists("package.json"):
            continue  # an import in progress, or one that crashed before finishing
        for revision in package.revisions() or [FIRST_REVISION]:
            started = package.exists(f"{package.revision_dir(revision)}/input.json")
            partitions.append((case_id, revision, started))
    return partitions


def _fingerprint(rejection: InboxRejection) -> str:
    text = f"{rejection.source_name}|{rejection.code.value}|{rejection.message}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def build_inbox_sensor(job: UnresolvedAssetJobDefinition) -> dg.SensorDefinition:
    """A sensor that imports the inbox, registers new partitions and requests their runs."""

    @dg.sensor(
        name="inbox_sensor",
        job=job,
        minimum_interval_seconds=10,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Imports reports dropped into <workspace>/inbox/ (admission rejects bad ones "
        "with a logged reason, once), registers every case and revision as a partition, and "
        "requests one run per revision that was never started.",
    )
    def inbox_sensor(
        context: dg.SensorEvaluationContext, project: ProjectResource
    ) -> dg.SensorResult:
        workspace = project.workspace()
        already_logged = set(json.loads(context.cursor)) if context.cursor else set()
        rejections = set()
        for outcome in import_inbox(workspace):
            if isinstance(outcome, InboxRejection):
                rejections.add(_fingerprint(outcome))
                if _fingerprint(outcome) in already_logged:
                    continue
                context.log.warning(str(outcome))
            else:
                context.log.info(str(outcome))
        known_cases = set(context.instance.get_dynamic_partitions(CASE_DIMENSION))
        known_revisions = set(context.instance.get_dynamic_partitions(REVISION_DIMENSION))
        partitions = workspace_partitions(workspace)
        return dg.SensorResult(
            # every case and revision of the workspace is visible, also with a fresh DAGSTER_HOME
            dynamic_partitions_requests=registration_requests(
                [c for c, _, _ in partitions if c not in known_cases],
                [r for _, r, _ in partitions if r not in known_revisions],
            ),
            run_requests=[
                dg.RunRequest(run_key=f"start:{c}|{r}", partition_key=partition_key(c, r))
                for c, r, started in partitions
                if not started
            ],
            cursor=json.dumps(sorted(rejections)),
        )

    return inbox_sensor
