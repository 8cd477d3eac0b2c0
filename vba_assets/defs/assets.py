"""The six assets, one per stage of :data:`vba_assets.pipeline.registry.STAGE_SPECS`.

Thin on purpose: parse the partition, take the revision lock (the case asset writes nothing and
takes none), run the stage, and return metadata a person can read plus the artifact's sha256 as the
data version. The checks are separate definitions (:mod:`vba_assets.defs.checks`) so an operator can
execute them on their own. A blocked stage (DB outage, provider retry pending, exhausted
corrections) fails its step with the code and ``retry_at`` in the failure metadata; nothing is lost.

Dagster conventions: every asset has a ``code_version`` derived from the code of its own stage and
the stage before it (:mod:`vba_assets.pipeline.code_versions`), owners, tags, and a description that says what it holds, how it is reused
and which pool it takes. The model-calling assets take a slot of the ``vba_model_calls`` pool and
the captures one of ``vba_world_db`` (limits: ``dagster instance concurrency set``; README).
"""

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import dagster as dg

from vba_assets.defs.concurrency import MODEL_POOL, WORLD_DB_POOL
from vba_assets.defs.failures import as_dagster_failure
from vba_assets.defs.metadata import (
    candidates_table,
    manifest_table,
    rationale_markdown,
    split_manifest,
)
from vba_assets.defs.partitions import case_revision_partitions, parse_partition_key, run_tags
from vba_assets.defs.provenance import source_metadata
from vba_assets.defs.resources import LlmResource, ProjectResource
from vba_assets.defs.usage import UsageMeter
from vba_assets.domain.catalog.world import ReadOnlyWorldDatabase
from vba_assets.domain.stages import Stage
from vba_assets.pipeline.code_versions import stage_code_versions
from vba_assets.pipeline.previews import (
    accepted_manifest,
    accepted_manifest_markdown,
    candidate_rows,
)
from vba_assets.pipeline.recorder import count_dispatch_records
from vba_assets.pipeline.registry import STAGE_SPECS, StageSpec
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stage_budget import run_within_budget
from vba_assets.pipeline.stage_runs import StageResult, StageRun, WorldAccess

GROUP = "case_interpretation"
#: Per-stage code versions: a stage's own code and checks, and the stage before it.
CODE_VERSIONS = stage_code_versions()
#: Who answers for these assets (shown in the UI's asset catalog).
OWNERS = ["team:case-interpretation"]


def stage_pool(stage: Stage) -> str | None:
    """The concurrency pool a stage's step takes a slot of (None: no pool)."""
    if stage.calls_model:
        return MODEL_POOL
    if stage is Stage.RESOLUTION_CAPTURES:
        return WORLD_DB_POOL
    return None


def stage_kind(stage: Stage) -> str:
    """``model-call``, ``research`` (world DB queries) or ``deterministic``."""
    if stage.calls_model:
        return "model-call"
    return "research" if stage is Stage.RESOLUTION_CAPTURES else "deterministic"


def asset_description(spec: StageSpec) -> str:
    checks = ", ".join(f"`{c.name}`" + (" (blocking)" if c.blocking else "") for c in spec.checks)
    pool = stage_pool(spec.stage)
    lines = [
        spec.description,
        "",
        "One partition per case revision (`<case>|<revision>`). Re-materializing an accepted "
        "partition reuses its artifact: no model call, no query, the same data version "
        "(the artifact's sha256).",
        f"Checks: {checks or 'none'}.",
    ]
    if pool:
        lines.append(f"Pool: `{pool}` (one slot while the step runs).")
    return "\n".join(lines)


def _result(
    run: StageRun, spec: StageSpec, result: StageResult, requests: int, usage: UsageMeter
) -> dg.MaterializeResult:
    env = run.env
    rev = env.frozen()
    accepted_model_stage = result.status == "accepted" and spec.stage.calls_model
    manifest = accepted_manifest_markdown(rev, spec.stage) if accepted_model_stage else None
    metadata: dict[str, Any] = {
        "status": result.status,
        "reused": result.reused,
        "model_requests": requests,  # sent by this asset in this run
        "model_requests_recorded": count_dispatch_records(env.package, env.layout),
        **usage.metadata(),
        "preview": dg.MetadataValue.md(split_manifest(spec.preview(rev, result), manifest)),
        **{key: str(value) for key, value in result.metadata.items()},
    }
    if spec.stage is Stage.CASE and result.relpath:
        metadata.update(source_metadata(env.package.read_json(result.relpath)))
    if manifest:
        metadata["context_manifest"] = dg.MetadataValue.md(manifest)
        manifest_doc = accepted_manifest(rev, spec.stage)
        assert manifest_doc is not None
        metadata["context_manifest_table"] = manifest_table(manifest_doc)
    tags: dict[str, str] = {}
    doc = env.package.read_json(result.relpath) if result.relpath else None
    if spec.stage is Stage.CANDIDATE_INDEX and doc is not None:
        metadata["candidates"] = candidates_table(candidate_rows(doc))
    if spec.stage is Stage.RESOLUTION_ASSESSMENT and doc is not None:
        rationale = rationale_markdown(doc)
        if rationale:
            metadata["rationale"] = dg.MetadataValue.md(rationale)
    if spec.stage is Stage.INTERPRETATION and doc is not None:
        tags = interpretation_tags(doc)
        metadata.update({key.removeprefix("vba/"): value for key, value in tags.items()})
    if result.relpath:
        metadata["path"] = dg.MetadataValue.path(str(env.package.path(result.relpath)))
    return dg.MaterializeResult(
        data_version=dg.DataVersion(result.sha256), metadata=metadata, tags=tags or None
    )


def interpretation_tags(doc: Mapping[str, Any]) -> dict[str, str]:
    """``vba/category`` and ``vba/scope`` (``in_scope`` or ``out_of_scope.<class>``) of an accepted
    interpretation; none for another status."""
    body = doc.get("interpretation")
    if not isinstance(body, dict):
        return {}
    scope = body.get("scope") or {}
    in_scope = bool(scope.get("in_scope"))
    out_class = scope.get("out_of_scope_class") or "unclassified"
    return {
        "vba/category": tag_value(body.get("category")),
        "vba/scope": "in_scope" if in_scope else tag_value(f"out_of_scope.{out_class}"),
    }


_TAG_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def tag_value(value: object) -> str:
    """``value`` as a Dagster asset-event tag value: alphanumerics, ``_``, ``-``, ``.`` (others
    become ``_``), at most 63 characters."""
    return _TAG_UNSAFE.sub("_", str(value))[:63]


@contextmanager
def _locked(run: StageRun, spec: StageSpec) -> Iterator[None]:
    lock = nullcontext() if spec.stage is Stage.CASE else run.env.package.lock(run.env.revision)
    with lock:
        yield


def stage_asset(spec: StageSpec, deps: Sequence[dg.AssetsDefinition]) -> dg.AssetsDefinition:
    """One stage as a partitioned asset (its checks: :func:`vba_assets.defs.checks.stage_checks`)."""

    @dg.asset(
        name=spec.name,
        partitions_def=case_revision_partitions,
        deps=list(deps),
        group_name=GROUP,
        kinds={spec.kind},
        description=asset_description(spec),
        code_version=CODE_VERSIONS[spec.stage],
        owners=OWNERS,
        tags={"vba/stage": stage_kind(spec.stage)},
        pool=stage_pool(spec.stage),
    )
    def _stage(
        context: dg.AssetExecutionContext,
        project: ProjectResource,
        llm: LlmResource,
        world_db: dg.ResourceParam[ReadOnlyWorldDatabase],
    ) -> dg.MaterializeResult:
        usage: list[UsageMeter] = []  # this step's usage, also reported by a blocked attempt
        with as_dagster_failure(context, lambda: usage[0].metadata() if usage else {}):
            case_id, revision = parse_partition_key(context.partition_key)
            env = RevisionEnv(
                package=project.workspace().case(case_id),
                revision=revision,
                project=project.load(),
                llm=llm.load(),
                budget=llm.budget(),
            )
            world = WorldAccess(lambda: world_db)
            run = StageRun(env, world, llm.provider_factory(env, world))
            before = env.budget.used
            with _locked(run, spec):
                usage.append(UsageMeter(env, spec.stage))
                result = run_within_budget(spec, run)
                materialized = _result(run, spec, result, env.budget.used - before, usage[0])
            _tag_run(context, run_tags(case_id, revision, env.llm.provider, env.llm.model))
            _tag_run(context, dict(materialized.tags or {}))
            return materialized

    return _stage


def _tag_run(context: dg.AssetExecutionContext, tags: Mapping[str, str]) -> None:
    """Add the tags the run lacks (a run the sensor or the backfill CLI requested has them)."""
    missing = {k: v for k, v in tags.items() if context.run.tags.get(k) != v}
    if missing:
        context.instance.add_run_tags(context.run.run_id, missing)


def _build() -> list[dg.AssetsDefinition]:
    assets: list[dg.AssetsDefinition] = []
    for spec in STAGE_SPECS:
        assets.append(stage_asset(spec, assets[-1:]))
    return assets


#: Every asset, in pipeline order; each depends on the one before.
ASSETS: list[dg.AssetsDefinition] = _build()
