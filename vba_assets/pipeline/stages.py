"""The six stages of one revision, shared by the Dagster assets and ``vba trial run``.

Each stage reuses its accepted artifact when it exists (no model call, no query, same bytes, so the
same Dagster data version); otherwise it computes, validates and publishes it through the store. The
caller holds the revision lock. Stages never touch case.json.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from vba_assets.config import CatalogConfig
from vba_assets.domain.model_call import StagePolicy, run_stage
from vba_assets.domain.model_contract import ModelRequest, Provider
from vba_assets.domain.prompts import load_prompt_set
from vba_assets.domain.research import CatalogSearch, SnapshotBinding
from vba_assets.domain.resolution_context import (
    build_candidate_index,
    build_resolution_context,
    search_ids,
)
from vba_assets.domain.resolution_models import (
    CandidateIndex,
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionContext,
    ResolutionInput,
    ResolutionPlanOutput,
)
from vba_assets.domain.stage_requests import (
    RequestParams,
    assessment_stage_context,
    assessment_validator,
    build_assessment_request,
    build_interpretation_request,
    build_plan_request,
    interpretation_stage_context,
    interpretation_validator,
    plan_stage_context,
    plan_validator,
    request_items_for,
)
from vba_assets.errors import ErrorCode, ModelError, ResearchUnavailable, StoreError
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.revision import (
    RevisionEnv,
    block,
    block_research,
    check_binding,
    interpretation_input,
    refuse_early_resume,
    resolution_input,
)
from vba_assets.store import content_hash

DISABLED_REASON = "no [entity_resolution] block in the project config"


class WorldAccess:
    """The world DB as the stages need it: lazily opened, so reuse and replay need no DB."""

    def __init__(self, open_db: Callable[[], Any]) -> None:
        self._open_db = open_db
        self._db: Any = None

    def db(self) -> Any:
        if self._db is None:
            self._db = self._open_db()
        return self._db

    def search(self) -> CatalogSearch:
        db: CatalogSearch = self.db()
        return db

    def snapshot(self) -> SnapshotBinding:
        binding: SnapshotBinding = self.db().snapshot_binding()
        return binding

    @property
    def opened(self) -> bool:
        return self._db is not None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


@dataclass
class StageResult:
    """What a stage produced: the artifact, its hash (the data version) and a UI summary."""

    stage: str
    relpath: str | None
    sha256: str
    reused: bool
    status: str
    metadata: dict[str, Any] = field(default_factory=dict)


def _catalogs(frozen: ResolutionInput) -> list[CatalogConfig]:
    return [CatalogConfig.model_validate(c) for c in frozen.catalogs]


def _disabled(env: RevisionEnv, stage: str, relpath: str | None) -> StageResult:
    doc = {"schema_version": 1, "status": "disabled", "stage": stage, "reason": DISABLED_REASON}
    if relpath is None:
        return StageResult(stage, None, content_hash(doc), True, "disabled")
    ref = env.package.write_json(relpath, doc)
    return StageResult(stage, relpath, ref.sha256, not ref.created, "disabled")


def _existing(env: RevisionEnv, stage: str, relpath: str) -> StageResult | None:
    if not env.package.exists(relpath):
        return None
    ref = env.package.artifact_ref(relpath)
    doc = env.package.read_json(relpath)
    return StageResult(stage, relpath, ref.sha256, True, str(doc.get("status", "accepted")))


def _run_model_stage(
    env: RevisionEnv,
    provider: Provider,
    request: Any,
    validate: Callable[[Any], Any],
    recorder: PackageRecorder,
    policy: StagePolicy,
) -> Any:
    try:
        return run_stage(request, provider, validate, recorder, policy, env.budget, clock=env.clock)
    except ModelError as exc:  # exhaustion, retry pending, provider failure, budget
        retry_at = exc.detail.get("retry_at")
        block(env, request.stage, exc, datetime.fromisoformat(retry_at) if retry_at else None)
        raise


def _recorder(
    env: RevisionEnv, base_dir: str, request: ModelRequest, prompt_version: str
) -> PackageRecorder:
    """The stage's dispatch recorder, which also writes each attempt's context manifest."""
    items = request_items_for(request, load_prompt_set(prompt_version))
    return PackageRecorder(env.package, env.revision, base_dir, items)


def _policy(frozen_max_invalid: int, env: RevisionEnv, code: ErrorCode) -> StagePolicy:
    retry = interpretation_input(env).retry
    return StagePolicy(max_invalid_responses=frozen_max_invalid, exhaustion_code=code, retry=retry)


def request_params(env: RevisionEnv) -> RequestParams:
    """The frozen model parameters of the revision (never the current config's)."""
    frozen = interpretation_input(env)
    return RequestParams(
        model=frozen.model,
        max_tokens=int(frozen.parameters.get("max_tokens") or env.llm.max_tokens),
        temperature=frozen.parameters.get("temperature"),
        dialect=frozen.schema_dialect,
    )


def plan_request(env: RevisionEnv, frozen: ResolutionInput) -> tuple[ModelRequest, Any]:
    """Model call 1's request and validator, rebuilt from frozen artifacts only."""
    case_doc = env.case_doc()
    catalogs = _catalogs(frozen)
    context = plan_stage_context(case_doc, catalogs, frozen.max_searches)
    prompts = load_prompt_set(frozen.prompt_version)
    request = build_plan_request(context, prompts, frozen.protocol_version, request_params(env))
    return request, plan_validator(case_doc, catalogs, frozen.max_searches)


def assessment_request(
    env: RevisionEnv, frozen: ResolutionInput, plan: ResolutionPlanOutput, index: CandidateIndex
) -> tuple[ModelRequest, Any]:
    """Model call 2's request and validator, rebuilt from frozen artifacts only."""
    case_doc = env.case_doc()
    context = assessment_stage_context(case_doc, plan, index)
    prompts = load_prompt_set(frozen.prompt_version)
    request = build_assessment_request(
        context, prompts, frozen.protocol_version, request_params(env)
    )
    return request, assessment_validator(case_doc, plan, index)


def interpretation_request(
    env: RevisionEnv, resolution: ResolutionContext | None
) -> tuple[ModelRequest, Any]:
    """Model call 3's request and validator, rebuilt from frozen artifacts only."""
    frozen = interpretation_input(env)
    context = interpretation_stage_context(env.case_doc(), resolution)
    prompts = load_prompt_set(frozen.prompt_version)
    request = build_interpretation_request(
        context, prompts, frozen.protocol_version, request_params(env)
    )
    return request, interpretation_validator(context)


# --- model call 1 -------------------------------------------------------------------------------


def run_plan(env: RevisionEnv, provider: Callable[[], Provider], world: WorldAccess) -> StageResult:
    relpath = f"{env.er_dir}/plan.json"
    existing = _existing(env, "resolution_plan", relpath)
    if existing:
        return existing
    frozen = resolution_input(env, world.snapshot)
    if frozen.status == "disabled":
        return _disabled(env, "resolution_plan", relpath)
    request, validate = plan_request(env, frozen)
    outcome = _run_model_stage(
        env,
        provider(),
        request,
        validate,
        _recorder(env, env.er_dir, request, frozen.prompt_version),
        _policy(frozen.max_invalid_responses, env, ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES),
    )
    plan: ResolutionPlanOutput = outcome.value
    doc = {
        "schema_version": 1,
        "status": "accepted",
        "search_ids": search_ids(plan),
        "plan": plan.model_dump(mode="json"),
        "accepted_dispatch": f"dispatches/resolution_plan-{outcome.accepted.attempt}.json",
        "request_sha256": outcome.accepted.base_request_sha256,
    }
    ref = env.package.write_json(relpath, doc)
    env.package.append_event(env.revision, "accepted", stage="resolution_plan", artifact=relpath)
    return StageResult("resolution_plan", relpath, ref.sha256, False, "accepted")


def load_plan(env: RevisionEnv) -> ResolutionPlanOutput | None:
    doc = env.package.read_json(f"{env.er_dir}/plan.json")
    if doc.get("status") != "accepted":
        return None
    return ResolutionPlanOutput.model_validate(doc["plan"])


# --- captures -------------------------------------------------------------------------------------


def load_captures(env: RevisionEnv) -> dict[str, tuple[str, CaptureArtifact]]:
    """``search_id -> (sha256, capture)`` of every capture written so far."""
    captures: dict[str, tuple[str, CaptureArtifact]] = {}
    for relpath in env.package.list_dir(f"{env.er_dir}/captures"):
        digest = relpath.rsplit("/", 1)[-1].removesuffix(".json")
        capture = CaptureArtifact.model_validate(
            env.package.read_object(f"{env.er_dir}/captures", digest)
        )
        captures.setdefault(capture.search_id, (digest, capture))
    return captures


def run_captures(env: RevisionEnv, world: WorldAccess) -> StageResult:
    frozen = resolution_input(env, world.snapshot)
    if frozen.status == "disabled":
        return _disabled(env, "resolution_captures", None)
    plan = load_plan(env)
    if plan is None:
        return _disabled(env, "resolution_captures", None)
    ids = search_ids(plan)
    done = load_captures(env)
    missing = [
        (sid, search) for sid, search in zip(ids, plan.searches, strict=True) if sid not in done
    ]
    if missing:
        refuse_early_resume(env, "resolution_captures")
        try:
            check_binding(env, frozen, world.snapshot())
            for search_id, search in missing:
                result = world.search().contains_search(
                    search.catalog, search.term, frozen.max_candidates
                )
                capture = CaptureArtifact(search_id=search_id, search=search, result=result)
                ref = env.package.write_object(
                    f"{env.er_dir}/captures", capture.model_dump(mode="json")
                )
                done[search_id] = (ref.sha256, capture)
                env.package.append_event(
                    env.revision,
                    "captured",
                    search_id=search_id,
                    capture=ref.relpath,
                    rows=len(result.rows),
                    truncated=result.truncated,
                )
        except ResearchUnavailable as exc:
            raise block_research(env, "resolution_captures", exc) from None
    manifest = [[sid, done[sid][0]] for sid in ids]
    return StageResult(
        "resolution_captures",
        None,
        content_hash(manifest),
        not missing,
        "accepted",
        {"captures": manifest, "executed": len(missing)},
    )


# --- candidate index --------------------------------------------------------------------------------


def run_candidate_index(env: RevisionEnv) -> StageResult:
    relpath = f"{env.er_dir}/candidates.json"
    frozen = resolution_input(env, None) if env.package.exists(f"{env.er_dir}/input.json") else None
    if frozen is None or frozen.status == "disabled" or load_plan(env) is None:
        return _disabled(env, "candidate_index", relpath)
    index = compute_candidate_index(env)
    ref = env.package.write_json(relpath, index.model_dump(mode="json"))  # identical rewrite: no-op
    return StageResult("candidate_index", relpath, ref.sha256, not ref.created, "accepted")


def compute_candidate_index(env: RevisionEnv) -> CandidateIndex:
    plan = load_plan(env)
    if plan is None:
        raise ValueError("no accepted plan")
    captures = load_captures(env)
    return build_candidate_index(plan, [captures[sid] for sid in search_ids(plan)])


def load_candidate_index(env: RevisionEnv) -> CandidateIndex | None:
    doc = env.package.read_json(f"{env.er_dir}/candidates.json")
    return None if doc.get("status") == "disabled" else CandidateIndex.model_validate(doc)


# --- model call 2 and the resolution context -------------------------------------------------------------


def run_assessment(env: RevisionEnv, provider: Callable[[], Provider]) -> StageResult:
    relpath = f"{env.er_dir}/assessment.json"
    existing = _existing(env, "resolution_assessment", relpath)
    if existing:
        if existing.status == "accepted":
            ensure_resolution_context(env)  # a crash may have come between the two writes
        return existing
    frozen = resolution_input(env, None)
    index = load_candidate_index(env) if frozen.status == "enabled" else None
    plan = load_plan(env) if index is not None else None
    if index is None or plan is None:
        return _disabled(env, "resolution_assessment", relpath)
    request, validate = assessment_request(env, frozen, plan, index)
    outcome = _run_model_stage(
        env,
        provider(),
        request,
        validate,
        _recorder(env, env.er_dir, request, frozen.prompt_version),
        _policy(frozen.max_invalid_responses, env, ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES),
    )
    assessment: ResolutionAssessmentOutput = outcome.value
    doc = {
        "schema_version": 1,
        "status": "accepted",
        "assessment": assessment.model_dump(mode="json"),
        "accepted_dispatch": f"dispatches/resolution_assessment-{outcome.accepted.attempt}.json",
        "request_sha256": outcome.accepted.base_request_sha256,
    }
    ref = env.package.write_json(relpath, doc)
    env.package.append_event(
        env.revision, "accepted", stage="resolution_assessment", artifact=relpath
    )
    ensure_resolution_context(env)
    return StageResult("resolution_assessment", relpath, ref.sha256, False, "accepted")


def load_assessment(env: RevisionEnv) -> ResolutionAssessmentOutput | None:
    doc = env.package.read_json(f"{env.er_dir}/assessment.json")
    if doc.get("status") != "accepted":
        return None
    return ResolutionAssessmentOutput.model_validate(doc["assessment"])


def compute_resolution_context(env: RevisionEnv) -> ResolutionContext:
    """F/N/D aliases recomputed from the accepted plan, the captures and the assessment."""
    plan, assessment = load_plan(env), load_assessment(env)
    if plan is None or assessment is None:
        raise ValueError("no accepted plan and assessment")
    return build_resolution_context(plan, compute_candidate_index(env), assessment)


def ensure_resolution_context(env: RevisionEnv) -> None:
    """Write context.json (the F/N/D aliases of the accepted assessment); identical = no-op."""
    context_doc = compute_resolution_context(env)
    env.package.write_json(f"{env.er_dir}/context.json", context_doc.model_dump(mode="json"))


def load_resolution_context(env: RevisionEnv) -> ResolutionContext | None:
    relpath = f"{env.er_dir}/context.json"
    if not env.package.exists(relpath):
        return None
    doc = env.package.read_json(relpath)
    return None if doc.get("status") == "disabled" else ResolutionContext.model_validate(doc)


# --- model call 3 --------------------------------------------------------------------------------


def run_interpretation(env: RevisionEnv, provider: Callable[[], Provider]) -> StageResult:
    relpath = f"{env.rev_dir}/interpretation.json"
    existing = _existing(env, "interpretation", relpath)
    if existing:
        return existing
    frozen = interpretation_input(env)
    resolution = (
        resolution_input(env, None) if env.package.exists(f"{env.er_dir}/input.json") else None
    )
    context_alias = None
    if resolution is not None and resolution.status == "enabled":
        context_alias = load_resolution_context(env)
        if context_alias is None:
            raise StoreError(
                ErrorCode.ARTIFACT_MISSING,
                "the entity resolution of this revision is enabled but has no accepted "
                "assessment yet; materialize resolution_assessment first",
            )
    elif frozen.entity_resolution == "enabled":
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            "entity resolution is enabled for this revision but was never started",
        )
    request, validate = interpretation_request(env, context_alias)
    outcome = _run_model_stage(
        env,
        provider(),
        request,
        validate,
        _recorder(env, env.rev_dir, request, frozen.prompt_version),
        _policy(frozen.max_invalid_responses, env, ErrorCode.INTERPRETATION_INVALID_RESPONSES),
    )
    doc = {
        "schema_version": 1,
        "status": "accepted",
        "prompt": "resolved" if context_alias is not None else "unresolved",
        "interpretation": outcome.value.model_dump(mode="json"),
        "accepted_dispatch": f"dispatches/interpretation-{outcome.accepted.attempt}.json",
        "request_sha256": outcome.accepted.base_request_sha256,
    }
    ref = env.package.write_json(relpath, doc)
    env.package.append_event(env.revision, "accepted", stage="interpretation", artifact=relpath)
    return StageResult("interpretation", relpath, ref.sha256, False, "accepted")
