"""The six stages of one revision, shared by the Dagster assets and ``vba trial run``.

Each stage reuses its accepted artifact when it exists (no model call, no query, same bytes, so the
same Dagster data version); otherwise it computes, validates and publishes it through the store. The
caller holds the revision lock. Stages never touch case.json.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from vba_assets.domain.catalog.world import CatalogSearch, SnapshotBinding
from vba_assets.domain.llm.call import run_stage
from vba_assets.domain.llm.contract import ModelRequest, Provider
from vba_assets.domain.llm.policy import StagePolicy
from vba_assets.domain.prompting.prompts import load_prompt_set
from vba_assets.domain.prompting.requests import (
    request_items_for,
)
from vba_assets.domain.resolution.context import (
    search_ids,
)
from vba_assets.domain.resolution.models import (
    CaptureArtifact,
)
from vba_assets.errors import ErrorCode, ModelError, ResearchUnavailable, StoreError
from vba_assets.pipeline.artifacts import (
    compute_candidate_index,
    compute_resolution_context,
    load_candidate_index,
    load_captures,
    load_plan,
    load_resolution_context,
)
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.requests import assessment_request, interpretation_request, plan_request
from vba_assets.pipeline.revision import (
    RevisionEnv,
    block,
    block_research,
    check_binding,
    interpretation_input,
    refuse_changed_model,
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


def _disabled(env: RevisionEnv, stage: str, relpath: str | None) -> StageResult:
    doc = {"schema_version": 1, "status": "disabled", "stage": stage, "reason": DISABLED_REASON}
    if relpath is None:
        return StageResult(stage, None, content_hash(doc), True, "disabled")
    ref = env.package.write_json(relpath, doc)
    return StageResult(stage, relpath, ref.sha256, not ref.created, "disabled")


def require(env: RevisionEnv, relpath: str, stage: str, missing_stage: str) -> None:
    """Refuse (and write nothing) when an earlier stage has not produced its artifact yet."""
    if not env.package.exists(relpath):
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{stage} of {env.package.case_id} revision {env.revision} needs {missing_stage} "
            f"first ({relpath} does not exist); materialize the upstream assets",
            case_id=env.package.case_id,
            revision=env.revision,
            missing=relpath,
        )


def resolution_enabled(env: RevisionEnv) -> bool:
    """Decided once, by the revision's frozen interpretation input."""
    return interpretation_input(env).entity_resolution == "enabled"


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


def _accept(
    env: RevisionEnv,
    relpath: str,
    provider: Callable[[], Provider],
    request: ModelRequest,
    validate: Callable[[Any], Any],
    *,
    base_dir: str,
    max_invalid: int,
    exhaustion: ErrorCode,
    fields: Callable[[Any], dict[str, Any]],
) -> StageResult:
    """Run a model stage through the correction loop and publish its accepted artifact."""
    refuse_changed_model(env)  # only here: reusing accepted artifacts never needs the model
    refuse_early_resume(env, request.stage)  # a pending provider retry keeps its retry_at
    outcome = _run_model_stage(
        env,
        provider(),
        request,
        validate,
        _recorder(env, base_dir, request, interpretation_input(env).prompt_version),
        _policy(max_invalid, env, exhaustion),
    )
    doc = {
        "schema_version": 1,
        "status": "accepted",
        **fields(outcome.value),
        "accepted_dispatch": f"dispatches/{request.stage}-{outcome.accepted.attempt}.json",
        "request_sha256": outcome.accepted.base_request_sha256,
    }
    ref = env.package.write_json(relpath, doc)
    env.package.append_event(env.revision, "accepted", stage=request.stage, artifact=relpath)
    return StageResult(request.stage, relpath, ref.sha256, False, "accepted")


def _policy(frozen_max_invalid: int, env: RevisionEnv, code: ErrorCode) -> StagePolicy:
    retry = interpretation_input(env).retry
    return StagePolicy(max_invalid_responses=frozen_max_invalid, exhaustion_code=code, retry=retry)


# --- model call 1 -------------------------------------------------------------------------------


def run_plan(env: RevisionEnv, provider: Callable[[], Provider], world: WorldAccess) -> StageResult:
    relpath = f"{env.er_dir}/plan.json"
    existing = _existing(env, "resolution_plan", relpath)
    if existing:
        return existing
    refuse_early_resume(env, "resolution_plan")
    try:
        frozen = resolution_input(env, world.snapshot)
        if frozen.status == "disabled":
            return _disabled(env, "resolution_plan", relpath)
        request, validate = plan_request(env, frozen)
        return _accept(
            env,
            relpath,
            provider,
            request,
            validate,
            base_dir=env.er_dir,
            max_invalid=frozen.max_invalid_responses,
            exhaustion=ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES,
            fields=lambda plan: {
                "search_ids": search_ids(plan),
                "plan": plan.model_dump(mode="json"),
            },
        )
    except ResearchUnavailable as exc:  # binding the snapshot, or a provider that searches
        raise block_research(env, "resolution_plan", exc) from None


# --- captures -------------------------------------------------------------------------------------


def run_captures(env: RevisionEnv, world: WorldAccess) -> StageResult:
    if not resolution_enabled(env):
        return _disabled(env, "resolution_captures", None)
    require(env, f"{env.er_dir}/plan.json", "resolution_captures", "resolution_plan")
    frozen = resolution_input(env, world.snapshot)
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
    if not resolution_enabled(env):
        return _disabled(env, "candidate_index", relpath)
    require(env, f"{env.er_dir}/plan.json", "candidate_index", "resolution_plan")
    if load_plan(env) is None:
        return _disabled(env, "candidate_index", relpath)
    index = compute_candidate_index(env)
    ref = env.package.write_json(relpath, index.model_dump(mode="json"))  # identical rewrite: no-op
    return StageResult("candidate_index", relpath, ref.sha256, not ref.created, "accepted")


# --- model call 2 and the resolution context -------------------------------------------------------------


def run_assessment(env: RevisionEnv, provider: Callable[[], Provider]) -> StageResult:
    relpath = f"{env.er_dir}/assessment.json"
    existing = _existing(env, "resolution_assessment", relpath)
    if existing:
        if existing.status == "accepted":
            ensure_resolution_context(env)  # a crash may have come between the two writes
        return existing
    if not resolution_enabled(env):
        return _disabled(env, "resolution_assessment", relpath)
    require(env, f"{env.er_dir}/candidates.json", "resolution_assessment", "candidate_index")
    frozen = resolution_input(env, None)
    index = load_candidate_index(env)
    plan = load_plan(env) if index is not None else None
    if index is None or plan is None:
        return _disabled(env, "resolution_assessment", relpath)
    request, validate = assessment_request(env, frozen, plan, index)
    result = _accept(
        env,
        relpath,
        provider,
        request,
        validate,
        base_dir=env.er_dir,
        max_invalid=frozen.max_invalid_responses,
        exhaustion=ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES,
        fields=lambda assessment: {"assessment": assessment.model_dump(mode="json")},
    )
    ensure_resolution_context(env)
    return result


def ensure_resolution_context(env: RevisionEnv) -> None:
    """Write context.json (the F/N/D aliases of the accepted assessment); identical = no-op."""
    context_doc = compute_resolution_context(env)
    env.package.write_json(f"{env.er_dir}/context.json", context_doc.model_dump(mode="json"))


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
    prompt = "resolved" if context_alias is not None else "unresolved"
    return _accept(
        env,
        relpath,
        provider,
        request,
        validate,
        base_dir=env.rev_dir,
        max_invalid=frozen.max_invalid_responses,
        exhaustion=ErrorCode.INTERPRETATION_INVALID_RESPONSES,
        fields=lambda output: {"prompt": prompt, "interpretation": output.model_dump(mode="json")},
    )
