"""Resuming blocked revisions: the ``resume_blocked`` job and its opt-in sensor.

A block with a ``retry_at`` (a DB outage, a provider's Retry-After) is resumed by materializing its
partition again once ``retry_at`` passed: the stages reuse every accepted artifact and the blocked
stage records ``resumed`` and continues (:mod:`vba_assets.pipeline.blocked`). ``resume_blocked``
is that materialization as its own job, so the Runs page tells a resume from a first run.

``resume_blocked_sensor`` requests one ``resume_blocked`` run per blocked partition whose
``retry_at`` passed. It is **off by default** (``DefaultSensorStatus.STOPPED``): resuming a blocked
case is an operator's decision unless the operator turns the sensor on (UI: Automation, or
``dagster sensor start resume_blocked_sensor``). Its run key names the block's ``seq``, so one block
is resumed at most once by the sensor; a resume that blocks again writes a new block, with a new
key. A block without ``retry_at`` (exhausted corrections) is never resumed: it needs a new
revision.

``blocked_revisions`` is the same list as ``vba blocked``, as an observable source asset: observing
it (UI: the asset's **Observe**) records a ``MetadataValue.table`` of every blocked revision and the
``blocked_count``/``due_count`` numbers, so their history plots too.
"""

import warnings

import dagster as dg

from vba_assets.defs.assets import ASSETS, OWNERS
from vba_assets.defs.partitions import run_tags
from vba_assets.defs.resources import LlmResource, ProjectResource
from vba_assets.domain.clock import format_timestamp, utc_now
from vba_assets.pipeline.blocked import BlockedRevision, blocked_revisions

RESUME_JOB_NAME = "resume_blocked"
RESUME_SENSOR_NAME = "resume_blocked_sensor"

resume_blocked_job = dg.define_asset_job(
    RESUME_JOB_NAME,
    selection=dg.AssetSelection.assets(*ASSETS),
    tags={"vba/resume": "true"},
    description="Re-materialize a blocked case revision (partition `<case>|<revision>`) after its "
    "`retry_at`: accepted stages are reused, the blocked stage resumes. Requested by the opt-in "
    "`resume_blocked_sensor`, or launched by hand for one partition; `vba blocked` lists them.",
)


def resume_request(block: BlockedRevision, provider: str, model: str | None) -> dg.RunRequest:
    """The run that resumes ``block`` (its key: the partition and the block's ``seq``)."""
    return dg.RunRequest(
        run_key=f"resume:{block.partition_key}:{block.block_seq}",
        partition_key=block.partition_key,
        tags={
            **run_tags(block.case_id, block.revision, provider, model),
            "vba/resume_after_block": str(block.block_seq),
        },
    )


def build_resume_sensor(job_name: str = RESUME_JOB_NAME) -> dg.SensorDefinition:
    """The opt-in sensor (default off) that resumes blocked partitions once ``retry_at`` passed."""

    @dg.sensor(
        name=RESUME_SENSOR_NAME,
        job_name=job_name,
        minimum_interval_seconds=30,
        default_status=dg.DefaultSensorStatus.STOPPED,
        description="OFF by default (resuming a blocked case is explicit unless you turn this on). "
        "Requests one `resume_blocked` run per blocked case revision whose `retry_at` has "
        "passed, once per block; blocks without `retry_at` (exhausted corrections) wait for a "
        "new revision. `vba blocked` lists the same revisions.",
    )
    def resume_blocked_sensor(
        context: dg.SensorEvaluationContext, project: ProjectResource, llm: LlmResource
    ) -> dg.SensorResult | dg.SkipReason:
        now = utc_now()
        blocks = blocked_revisions(project.workspace())
        due = [block for block in blocks if block.due(now)]
        if not due:
            waiting = ", ".join(f"{b.partition_key} ({b.code})" for b in blocks) or "none"
            return dg.SkipReason(f"no blocked revision is due; blocked: {waiting}")
        config = llm.load()
        return dg.SensorResult(
            run_requests=[resume_request(b, config.provider, config.model) for b in due]
        )

    return resume_blocked_sensor


BLOCKED_SCHEMA = dg.TableSchema(
    columns=[
        dg.TableColumn("case", "string"),
        dg.TableColumn("revision", "string"),
        dg.TableColumn("stage", "string"),
        dg.TableColumn("code", "string"),
        dg.TableColumn("retry_at", "string", description="Empty: needs a new revision."),
        dg.TableColumn("due", "bool", description="retry_at has passed: a resume may run."),
        dg.TableColumn("attempts", "int"),
        dg.TableColumn("corrections", "int"),
        dg.TableColumn("tokens", "int"),
        dg.TableColumn("rejected_records", "path"),
    ]
)


def blocked_table(blocks: list[BlockedRevision]) -> dg.TableMetadataValue:
    """The blocked revisions as a table (the rows of ``vba blocked``)."""
    now = utc_now()
    return dg.MetadataValue.table(
        [
            dg.TableRecord(
                {
                    "case": b.case_id,
                    "revision": b.revision,
                    "stage": b.stage,
                    "code": b.code,
                    "retry_at": format_timestamp(b.retry_at) if b.retry_at else "",
                    "due": b.due(now),
                    "attempts": b.attempts,
                    "corrections": b.corrections,
                    "tokens": b.tokens,
                    "rejected_records": b.rejected_dir or "",
                }
            )
            for b in blocks
        ],
        BLOCKED_SCHEMA,
    )


# multi_observable_source_asset is a Beta API in Dagster 1.13 (the release is pinned in
# pyproject.toml; tests/dagster/test_blocked_resume.py observes it).
warnings.filterwarnings(
    "ignore", message="Function `multi_observable_source_asset`", category=dg.BetaWarning
)

BLOCKED_REVISIONS = dg.AssetSpec(
    "blocked_revisions",
    group_name="operations",
    owners=OWNERS,
    tags={"vba/kind": "operations"},
    description="Every blocked case revision of the workspace (what `vba blocked` lists), "
    "recorded when observed: stage, code, retry_at, whether it is due, attempts, tokens, the "
    "rejected records' folder.",
)


# (the decorator has no type annotations in Dagster 1.13)
@dg.multi_observable_source_asset(  # type: ignore[untyped-decorator]
    specs=[BLOCKED_REVISIONS], name="observe_blocked_revisions"
)
def blocked_revisions_asset(project: ProjectResource) -> dg.ObserveResult:
    blocks = blocked_revisions(project.workspace())
    now = utc_now()
    return dg.ObserveResult(
        asset_key=BLOCKED_REVISIONS.key,
        metadata={
            "blocked": blocked_table(blocks),
            "blocked_count": dg.MetadataValue.int(len(blocks)),
            "due_count": dg.MetadataValue.int(sum(1 for b in blocks if b.due(now))),
        },
    )
