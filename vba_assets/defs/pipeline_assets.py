"""The five assets after ``case``: entity resolution and the final interpretation.

Thin on purpose: parse the partition, take the revision lock, call the stage in
``vba_assets.pipeline.stages``, run the independent checks, and return metadata a person can read plus
the artifact's sha256 as the data version. A blocked stage (DB outage, provider retry pending,
exhausted corrections) fails its step with the code in the failure metadata; nothing is lost.
"""

from collections.abc import Callable, Sequence

import dagster as dg
from pydantic import ValidationError

from resources.dagster_resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.case_asset import case
from vba_assets.defs.failures import as_dagster_failure
from vba_assets.defs.partitions import case_revision_partitions, parse_partition_key
from vba_assets.defs.stage_previews import stage_preview
from vba_assets.domain.llm.contract import Provider
from vba_assets.errors import VbaError
from vba_assets.pipeline import checks
from vba_assets.pipeline.checks import CheckOutcome
from vba_assets.pipeline.providers import provider_factory
from vba_assets.pipeline.recorder import count_dispatch_records
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
        "model_requests_recorded": count_dispatch_records(env.package, [env.er_dir, env.rev_dir]),
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


CheckFn = Callable[[RevisionEnv], CheckOutcome]
StageFn = Callable[[RevisionEnv, WorldAccess, Callable[[], Provider]], StageResult]


def evaluate_safely(evaluate: CheckFn, env: RevisionEnv) -> CheckOutcome:
    """A check that cannot even read its inputs (tampered or corrupt artifacts) has failed."""
    try:
        return evaluate(env)
    except (VbaError, ValidationError, ValueError, KeyError) as exc:
        return CheckOutcome.of([f"the check could not evaluate: {type(exc).__name__}: {exc}"])


def stage_asset(
    name: str,
    *,
    deps: list[dg.AssetsDefinition],
    kind: str,
    description: str,
    run: StageFn,
    checks: list[tuple[str, str, CheckFn]],
    blocking: bool = True,
) -> dg.AssetsDefinition:
    """One stage as a partitioned asset whose checks are evaluated on every partition."""

    @dg.asset(
        name=name,
        partitions_def=case_revision_partitions,
        deps=deps,
        group_name=GROUP,
        kinds={kind},
        description=description,
        check_specs=[_spec(check, name, text, blocking=blocking) for check, text, _ in checks],
    )
    def _stage(
        context: dg.AssetExecutionContext,
        project: ProjectResource,
        llm: LlmResource,
        world_db: WorldDatabaseResource,
    ) -> dg.MaterializeResult:
        env, world, provider = _runtime(context, project, llm, world_db)
        with as_dagster_failure(), env.package.lock(env.revision):
            stage = run(env, world, provider)
            outcomes = [(check, evaluate_safely(evaluate, env)) for check, _, evaluate in checks]
            return _result(env, stage, outcomes)

    return _stage


resolution_plan = stage_asset(
    "resolution_plan",
    deps=[case],
    kind="json",
    description="Model call 1: grounded name searches, validated by the controller (plan.json).",
    run=lambda env, world, provider: run_plan(env, provider, world),
    checks=[
        (
            "plan_grounding",
            "Every term occurs in its cited, readable span.",
            checks.check_plan_grounding,
        )
    ],
)

resolution_captures = stage_asset(
    "resolution_captures",
    deps=[resolution_plan],
    kind="sql",
    description="Literal, parameterized contains-searches on the operator catalogs; one "
    "content-addressed capture per search.",
    run=lambda env, world, _: run_captures(env, world),
    checks=[
        (
            "capture_provenance",
            "Hash, SQL template, snapshot binding and row limit of every capture.",
            checks.check_capture_provenance,
        )
    ],
)

candidate_index = stage_asset(
    "candidate_index",
    deps=[resolution_captures],
    kind="json",
    description="Deterministic merge and ranking of the captured rows per search.",
    run=lambda env, _, __: run_candidate_index(env),
    checks=[
        (
            "candidates_recompute",
            "candidates.json recomputes byte for byte from the captures.",
            checks.check_candidate_index,
        )
    ],
)

resolution_assessment = stage_asset(
    "resolution_assessment",
    deps=[candidate_index],
    kind="json",
    description="Model call 2: selected | ambiguous | no_match per search, validated; writes the "
    "F/N/D aliases (context.json).",
    run=lambda env, _, provider: run_assessment(env, provider),
    checks=[
        (
            "selections_cited",
            "Every selection is a real candidate of its search citing its capture row and mention.",
            checks.check_selections,
        ),
        (
            "no_truncated_selection",
            "No unique selection from a truncated search.",
            checks.check_no_truncated_selection,
        ),
    ],
)

interpretation = stage_asset(
    "interpretation",
    deps=[resolution_assessment],
    kind="json",
    description="Model call 3: the final interpretation over the frozen, resolved context.",
    run=lambda env, _, provider: run_interpretation(env, provider),
    checks=[
        (
            "interpretation_retention",
            "Selected entities kept with citations, unresolved identities kept as unknowns, "
            "every citation resolves.",
            checks.check_interpretation_retention,
        )
    ],
    blocking=False,  # nothing downstream to protect; a failure still shows in the UI
)

PIPELINE_ASSETS = [
    resolution_plan,
    resolution_captures,
    candidate_index,
    resolution_assessment,
    interpretation,
]
