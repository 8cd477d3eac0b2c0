"""The six assets, one per stage of :data:`vba_assets.pipeline.registry.STAGE_SPECS`.

Thin on purpose: parse the partition, take the revision lock (the case asset writes nothing and
takes none), run the stage, evaluate its checks, and return metadata a person can read plus the
artifact's sha256 as the data version. A blocked stage (DB outage, provider retry pending,
exhausted corrections) fails its step with the code in the failure metadata; nothing is lost.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext

import dagster as dg

from resources.dagster_resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.failures import as_dagster_failure
from vba_assets.defs.partitions import case_revision_partitions, parse_partition_key
from vba_assets.domain.findings import Finding
from vba_assets.domain.stages import Stage
from vba_assets.pipeline.checks import CheckOutcome, evaluate_safely
from vba_assets.pipeline.providers import provider_factory
from vba_assets.pipeline.recorder import count_dispatch_records
from vba_assets.pipeline.registry import STAGE_SPECS, StageSpec
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stages import StageResult, StageRun, WorldAccess

GROUP = "case_interpretation"


def findings_markdown(findings: Sequence[Finding]) -> str:
    """Each finding once, with the code, the search/alias/mention it concerns and its message."""
    return "\n".join(f"- `{f.code.value}` {f.subject or ''} {f.message}" for f in findings)


def _check_result(name: str, outcome: CheckOutcome) -> dg.AssetCheckResult:
    findings = list(dict.fromkeys(outcome.findings))
    return dg.AssetCheckResult(
        check_name=name,
        passed=outcome.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata={
            "findings": dg.MetadataValue.md(findings_markdown(findings) or "none"),
            "codes": ", ".join(sorted({f.code.value for f in findings})) or "none",
            "skipped": outcome.skipped or "no",
        },
    )


def _result(run: StageRun, spec: StageSpec, result: StageResult) -> dg.MaterializeResult:
    env = run.env
    rev = env.frozen()
    metadata: dict[str, dg.RawMetadataValue] = {
        "status": result.status,
        "reused": result.reused,
        "sha256": result.sha256,
        "preview": dg.MetadataValue.md(spec.preview(rev, result)),
        "model_requests_this_run": env.budget.used,
        "model_requests_recorded": count_dispatch_records(env.package, env.layout),
        **{key: str(value) for key, value in result.metadata.items()},
    }
    if result.relpath:
        metadata["path"] = dg.MetadataValue.path(str(env.package.path(result.relpath)))
    return dg.MaterializeResult(
        data_version=dg.DataVersion(result.sha256),
        metadata=metadata,
        check_results=[
            _check_result(check.name, evaluate_safely(check.evaluate, rev)) for check in spec.checks
        ],
    )


@contextmanager
def _locked(run: StageRun, spec: StageSpec) -> Iterator[None]:
    lock = nullcontext() if spec.stage is Stage.CASE else run.env.package.lock(run.env.revision)
    with lock:
        yield


def stage_asset(spec: StageSpec, deps: Sequence[dg.AssetsDefinition]) -> dg.AssetsDefinition:
    """One stage as a partitioned asset whose checks are evaluated on every partition."""

    @dg.asset(
        name=spec.name,
        partitions_def=case_revision_partitions,
        deps=list(deps),
        group_name=GROUP,
        kinds={spec.kind},
        description=spec.description,
        check_specs=[
            dg.AssetCheckSpec(
                check.name,
                asset=spec.name,
                blocking=check.blocking,
                partitions_def=case_revision_partitions,
                description=check.description,
            )
            for check in spec.checks
        ],
    )
    def _stage(
        context: dg.AssetExecutionContext,
        project: ProjectResource,
        llm: LlmResource,
        world_db: WorldDatabaseResource,
    ) -> dg.MaterializeResult:
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
            run = StageRun(env, world, provider_factory(env, world))
            with _locked(run, spec):
                return _result(run, spec, spec.run(run))

    return _stage


def _build() -> list[dg.AssetsDefinition]:
    assets: list[dg.AssetsDefinition] = []
    for spec in STAGE_SPECS:
        assets.append(stage_asset(spec, assets[-1:]))
    return assets


#: Every asset, in pipeline order; each depends on the one before.
ASSETS: list[dg.AssetsDefinition] = _build()
