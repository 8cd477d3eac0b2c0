"""The inbox sensor: reports dropped into ``<workspace>/inbox/`` become case partitions."""

import hashlib
import json
from collections.abc import Callable

import dagster as dg

from vba_assets.config import ProjectConfig
from vba_assets.defs.inbox import RejectedEntry, is_rejected_folder, move_rejected
from vba_assets.defs.partitions import (
    partition_key,
    registered_keys,
    registration_request,
    run_tags,
)
from vba_assets.defs.resources import LlmResource, ProjectResource
from vba_assets.intake import InboxRejection, import_inbox
from vba_assets.pipeline.revision import FIRST_REVISION
from vba_assets.store import Workspace
from vba_assets.tracker.github_issues import is_case_of

SENSOR_NAME = "inbox_sensor"

__all__ = ["FIRST_REVISION", "SENSOR_NAME", "build_inbox_sensor", "workspace_partitions"]


def workspace_partitions(workspace: Workspace) -> list[tuple[str, str, bool]]:
    """``(case, revision, started)`` for every existing revision of every imported case.

    A case counts once its ``package.json`` exists (import writes it last). A newly imported case
    has no revision yet: its first revision is ``0001``, which starts by itself (and is always a
    partition, also when an edited report's revision ``0002`` came before it started). Later
    revisions exist once ``vba revision new`` or a new report version created them; one is
    started once its frozen ``input.json`` exists. Nothing else is a partition: no case gains a
    revision another case got.
    """
    partitions = []
    for case_id in workspace.case_ids():
        package = workspace.case(case_id)
        if not package.exists("package.json"):
            continue  # an import in progress, or one that crashed before finishing
        for revision in sorted({FIRST_REVISION, *package.revisions()}):
            started = package.exists(f"{package.revision_dir(revision)}/input.json")
            partitions.append((case_id, revision, started))
    return partitions


def tracker_owns(config: ProjectConfig, case_id: str) -> bool:
    """Whether a ``[[trackers]]`` block's sensor starts ``case_id``'s revisions (its repository's
    cases): a run key is de-duplicated per sensor, so only one sensor may request a partition."""
    return any(is_case_of(case_id, tracker.repository) for tracker in config.trackers)


def start_revisions(
    instance: dg.DagsterInstance,
    partitions: list[tuple[str, str, bool]],
    llm: LlmResource,
    *,
    starts: Callable[[str], bool],
) -> tuple[list[dg.AddDynamicPartitionsRequest], list[dg.RunRequest]]:
    """The registration of ``partitions`` not registered yet, and one run request (key
    ``start:<partition>``) per revision never started whose case ``starts`` accepts."""
    known = set(registered_keys(instance))
    config = llm.load()
    registration = registration_request(
        (c, r) for c, r, _ in partitions if partition_key(c, r) not in known
    )
    requests = [
        dg.RunRequest(
            run_key=f"start:{partition_key(c, r)}",
            partition_key=partition_key(c, r),
            tags=run_tags(c, r, config.provider, config.model),
        )
        for c, r, started in partitions
        if not started and starts(c)
    ]
    return registration, requests


def _fingerprint(entry: RejectedEntry) -> str:
    text = f"{entry.name}|{entry.code}|{entry.message}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _intake(context: dg.SensorEvaluationContext, workspace: Workspace) -> list[str]:
    """Import the inbox; move refused entries aside and log each once. Returns the fingerprints
    of refused entries still in the inbox (could not be moved), for the cursor."""
    already_logged = set(json.loads(context.cursor)) if context.cursor else set()
    still_there = []
    for outcome in import_inbox(workspace):
        if not isinstance(outcome, InboxRejection):
            context.log.info(str(outcome))
            continue
        if is_rejected_folder(outcome):
            continue
        entry = move_rejected(workspace.inbox_dir, outcome)
        fingerprint = _fingerprint(entry)
        if entry.moved_to is None:
            still_there.append(fingerprint)
        if fingerprint not in already_logged:
            context.log.warning(entry.line())
    return sorted(still_there)


def build_inbox_sensor(job_name: str) -> dg.SensorDefinition:
    """A sensor that imports the inbox, registers new partitions and requests their runs."""

    @dg.sensor(
        name=SENSOR_NAME,
        job_name=job_name,
        minimum_interval_seconds=10,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Imports reports dropped into `<workspace>/inbox/`; a refused one is moved to "
        "`inbox/rejected/` with a `<name>.reason.txt` beside it and logged once with its file name. "
        "Registers every existing case revision as a partition (`<case>|<revision>`) and requests "
        "one run per revision that was never started (but those of a [[trackers]] block's cases: "
        "its sensor starts them), tagged `vba/case`, `vba/revision`, "
        "`vba/provider`, `vba/model`.",
    )
    def inbox_sensor(
        context: dg.SensorEvaluationContext, project: ProjectResource, llm: LlmResource
    ) -> dg.SensorResult:
        workspace = project.workspace()
        cursor = _intake(context, workspace)
        project_config = project.load()
        # every case revision of the workspace is visible, also with a fresh DAGSTER_HOME
        registration, requests = start_revisions(
            context.instance,
            workspace_partitions(workspace),
            llm,
            starts=lambda case_id: not tracker_owns(project_config, case_id),
        )
        return dg.SensorResult(
            dynamic_partitions_requests=registration,
            run_requests=requests,
            cursor=json.dumps(cursor),
        )

    return inbox_sensor
