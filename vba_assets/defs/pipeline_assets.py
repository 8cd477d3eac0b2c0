"""The five assets after ``case``: entity resolution and the final interpretation.

Thin on purpose: parse the partition, take the revision lock, call the stage in
``vba_assets.pipeline.stages``, run the independent checks, and return metadata a person can read plus
the artifact's sha256 as the data version. A blocked stage (DB outage, provider retry pending,
exhausted corrections) fails its step with the code in the failure metadata; nothing is lost.
"""

from collections.abc import Callable, Sequence

import dagster as dg

from resources.dagster_resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.case_asset import case
from vba_assets.defs.failures import as_dagster_failure
from vba_assets.defs.partitions import case_revision_partitions, parse_partition_key
from vba_assets.defs.stage_previews import stage_preview
from vba_assets.domain.model_contract import Provider
from vba_assets.pipeline import checks
from vba_assets.pipeline.checks import CheckOutcome
from vba_assets.pipeline.providers import provider_factory, recorded_dispatches
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stages import (
    StageResult,
    WorldAccess,
    run_assessment,
    run_candidate_index,
    run_captures,
    run_interpretation,
    run_plan,
)

GROUP = "case_interpretation"


def _spec(name: str, asset: str, description: str, *, blocking: bool = True) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        name,
        asset=asset,
        blocking=blocking,
        partitions_def=case_revision_partitions,
        description=description,
    )


def _runtime(
    context: dg.AssetExecutionContext,
    project: ProjectResource,
    llm: LlmResource,
    world_db: WorldDatabaseResource,
) -> tuple[RevisionEnv, WorldAccess, Callable[[], Provider]]:
    with as_dagster_failure():
        case_id, revision = parse_partition_key(context.partition_key)
        config = project.load()
        env = RevisionEnv(
            package=project.workspace().case(case_id),
            revision=revision,
            project=config,
            llm=llm.load(),
            budget=llm.budget(),
        )
    world = WorldAccess(lambda: world_db)
    return env, world, provider_factory(env, env.llm, config, world)


def _result(
    env: RevisionEnv,
    stage: StageResult,
    outcomes: Sequence[tuple[str, CheckOutcome]],
) -> dg.MaterializeResult:
    metadata: dict[str, dg.RawMetadataValue] = {
        "status": stage.status,
        "reused": stage.reused,
        "sha256": stage.sha256,
        "preview": dg.MetadataValue.md(stage_preview(env, stage)),
        "model_requests_this_run": env.budget.used,
        "model_requests_recorded": len(recorded_dispatches(env)),
    }
    if stage.relpath:
        metadata["path"] = dg.MetadataValue.path(str(env.package.path(stage.relpath)))
    return dg.MaterializeResult(
        data_version=dg.DataVersion(stage.sha256),
        metadata=metadata,
        check_results=[
            dg.AssetCheckResult(
                check_name=name,
                passed=outcome.passed,
                severity=dg.AssetCheckSeverity.ERROR,
                metadata={
                    "problems": "\n".join(outcome.problems) or "none",
                    "skipped": outcome.skipped or "no",
                },
            )
            for name, outcome in outcomes
        ],
    )


@dg.asset(
    partitions_def=case_revision_partitions,
    deps=[case],
    group_name=GROUP,
    kinds={"json"},
    description="Model call 1: grounded name searches, validated by the controller (plan.json).",
    check_specs=[
        _spec("plan_grounding", "resolution_plan", "Every term occurs in its cited, readable span.")
    ],
)
def resolution_plan(
    context: dg.AssetExecutionContext,
    project: ProjectResource,
    llm: LlmResource,
    world_db: WorldDatabaseResource,
) -> dg.MaterializeResult:
    env, world, provider = _runtime(context, project, llm, world_db)
    with as_dagster_failure(), env.package.lock(env.revision):
        stage = run_plan(env, provider, world)
        outcome = checks.check_plan_grounding(env)
    return _result(env, stage, [("plan_grounding", outcome)])


@dg.asset(
    partitions_def=case_revision_partitions,
    deps=[resolution_plan],
    group_name=GROUP,
    kinds={"sql"},
    description="Literal, parameterized contains-searches on the operator catalogs; one "
    "content-addressed capture per search.",
    check_specs=[
        _spec(
            "capture_provenance",
            "resolution_captures",
            "Hash, SQL template, snapshot binding and row limit of every capture.",
        )
    ],
)
def resolution_captures(
    context: dg.AssetExecutionContext,
    project: ProjectResource,
    llm: LlmResource,
    world_db: WorldDatabaseResource,
) -> dg.MaterializeResult:
    env, world, _ = _runtime(context, project, llm, world_db)
    with as_dagster_failure(), env.package.lock(env.revision):
        stage = run_captures(env, world)
        outcome = checks.check_capture_provenance(env)
    return _result(env, stage, [("capture_provenance", outcome)])


@dg.asset(
    partitions_def=case_revision_partitions,
    deps=[resolution_captures],
    group_name=GROUP,
    kinds={"json"},
    description="Deterministic merge and ranking of the captured rows per search.",
    check_specs=[
        _spec(
            "candidates_recompute",
            "candidate_index",
            "candidates.json recomputes byte for byte from the captures.",
        )
    ],
)
def candidate_index(
    context: dg.AssetExecutionContext,
    project: ProjectResource,
    llm: LlmResource,
    world_db: WorldDatabaseResource,
) -> dg.MaterializeResult:
    env, _, _ = _runtime(context, project, llm, world_db)
    with as_dagster_failure(), env.package.lock(env.revision):
        stage = run_candidate_index(env)
        outcome = checks.check_candidate_index(env)
    return _result(env, stage, [("candidates_recompute", outcome)])


@dg.asset(
    partitions_def=case_revision_partitions,
    deps=[candidate_index],
    group_name=GROUP,
    kinds={"json"},
    description="Model call 2: selected | ambiguous | no_match per search, validated; writes the "
    "F/N/D aliases (context.json).",
    check_specs=[
        _spec(
            "selections_cited",
            "resolution_assessment",
            "Every selection is a real candidate of its search citing its capture row and mention.",
        ),
        _spec(
            "no_truncated_selection",
            "resolution_assessment",
            "No unique selection from a truncated search.",
        ),
    ],
)
def resolution_assessment(
    context: dg.AssetExecutionContext,
    project: ProjectResource,
    llm: LlmResource,
    world_db: WorldDatabaseResource,
) -> dg.MaterializeResult:
    env, _, provider = _runtime(context, project, llm, world_db)
    with as_dagster_failure(), env.package.lock(env.revision):
        stage = run_assessment(env, provider)
        outcomes = [
            ("selections_cited", checks.check_selections(env)),
            ("no_truncated_selection", checks.check_no_truncated_selection(env)),
        ]
    return _result(env, stage, outcomes)


@dg.asset(
    partitions_def=case_revision_partitions,
    deps=[resolution_assessment],
    group_name=GROUP,
    kinds={"json"},
    description="Model call 3: the final interpretation over the frozen, resolved context.",
    check_specs=[
        _spec(
            "interpretation_retention",
            "interpretation",
            "Selected entities kept with citations, unresolved identities kept as unknowns, "
            "every citation resolves.",
            blocking=False,
        )
    ],
)
def interpretation(
    context: dg.AssetExecutionContext,
    project: ProjectResource,
    llm: LlmResource,
    world_db: WorldDatabaseResource,
) -> dg.MaterializeResult:
    env, _, provider = _runtime(context, project, llm, world_db)
    with as_dagster_failure(), env.package.lock(env.revision):
        stage = run_interpretation(env, provider)
        outcome = checks.check_interpretation_retention(env)
    return _result(env, stage, [("interpretation_retention", outcome)])


PIPELINE_ASSETS = [
    resolution_plan,
    resolution_captures,
    candidate_index,
    resolution_assessment,
    interpretation,
]
