"""The stages of one revision, shared by the Dagster assets, ``vba trial run`` and ``vba eval``.

Each stage reuses its accepted artifact when it exists (no model call, no query, same bytes, so the
same Dagster data version); otherwise it computes, validates and publishes it through the store. The
caller holds the revision lock. Stages never touch case.json. Every run function takes a
:class:`StageRun`; :mod:`vba_assets.pipeline.registry` lists them in order.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from vba_assets.domain.canonical import content_hash
from vba_assets.domain.catalog.world import (
    CatalogSearch,
    ReadOnlyWorldDatabase,
    SearchResult,
    SnapshotBinding,
)
from vba_assets.domain.llm.call import run_stage
from vba_assets.domain.llm.contract import Provider
from vba_assets.domain.llm.policy import StagePolicy
from vba_assets.domain.prompting.requests import request_items_for
from vba_assets.domain.resolution.batched import batched_origins, planned_searches
from vba_assets.domain.resolution.captures import exact_row_limit
from vba_assets.domain.resolution.models import ProposedSearch
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, ModelError, ResearchUnavailable, StoreError
from vba_assets.pipeline import capture_runs
from vba_assets.pipeline.artifacts import (
    DISABLED_REASON,
    accepted_document,
    accepted_event_fields,
    compute_candidate_index,
    compute_resolution_context,
    disabled_document,
    load_captures,
    load_plan,
)
from vba_assets.pipeline.completion import complete_records
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.revision import (
    RevisionEnv,
    block,
    block_research,
    freeze_revision,
    refuse_changed_binding,
    refuse_changed_model,
    refuse_early_resume,
    setting_notice,
)
from vba_assets.pipeline.stage_requests import (
    BuiltRequest,
    interpretation_context,
    rebuild_request,
)
from vba_assets.pipeline.tiebreak_captures import with_quest_relations
from vba_assets.store.layout import CASE_JSON, version_record

__all__ = ["DISABLED_REASON"]


class WorldAccess:
    """The world DB as the stages need it: lazily opened, so reuse and replay need no DB."""

    def __init__(self, open_db: Callable[[], ReadOnlyWorldDatabase]) -> None:
        self._open_db = open_db
        self._db: ReadOnlyWorldDatabase | None = None

    def db(self) -> ReadOnlyWorldDatabase:
        if self._db is None:
            self._db = self._open_db()
        return self._db

    def search(self) -> CatalogSearch:
        return self.db()

    def snapshot(self) -> SnapshotBinding:
        return self.db().snapshot_binding()

    @property
    def opened(self) -> bool:
        return self._db is not None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def search_once(world: WorldAccess, search: ProposedSearch, max_candidates: int) -> SearchResult:
    """Run one accepted search: a literal contains search, or (protocol v4) the fetch of the
    identity an identity-reference search names, recorded as a capture the same way."""
    db = world.db()
    if search.reference is not None:
        return db.identity_search(
            search.catalog, search.reference.identity, search.term, max_candidates
        )
    return db.contains_search(search.catalog, search.term, max_candidates)


@dataclass
class StageRun:
    """What one stage invocation may use: the revision, the world DB and a lazy provider."""

    env: RevisionEnv
    world: WorldAccess
    provider: Callable[[], Provider]
    #: Set once :func:`prepare` completed the records under this run's lock (see there).
    records_complete: bool = False

    def frozen(self) -> FrozenRevision:
        return self.env.frozen()


@dataclass
class StageResult:
    """What a stage produced: the artifact, its hash (the data version) and a UI summary."""

    stage: Stage
    relpath: str | None
    sha256: str
    reused: bool
    status: str
    metadata: dict[str, Any] = field(default_factory=dict)


def _disabled(run: StageRun, stage: Stage) -> StageResult:
    doc = disabled_document(stage)
    relpath = run.env.layout.artifact(stage)
    notice = setting_notice(run.env, run.frozen())
    metadata = {"frozen_setting": notice} if notice else {}
    if relpath is None:
        return StageResult(stage, None, content_hash(doc), True, "disabled", metadata)
    ref = run.env.package.write_json(relpath, doc)
    return StageResult(stage, relpath, ref.sha256, not ref.created, "disabled", metadata)


def prepare(run: StageRun) -> None:
    """Before a stage does anything: complete the records a crash left unwritten
    (:func:`~vba_assets.pipeline.completion.complete_records`; the caller holds the lock).

    Once per :class:`StageRun`: its caller holds the revision lock for every stage it runs, so after
    the first completion only this process writes, and a stage that fails raises out of the lock.
    """
    if run.records_complete:
        return
    complete_records(run.frozen())
    run.records_complete = True


def require(run: StageRun, relpath: str, stage: Stage, missing_stage: Stage) -> None:
    """Refuse (and write nothing) when an earlier stage has not produced its artifact yet."""
    env = run.env
    if not env.package.exists(relpath):
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{stage.value} of {env.package.case_id} revision {env.revision} needs "
            f"{missing_stage.value} first ({relpath} does not exist); materialize the upstream "
            "assets",
            case_id=env.package.case_id,
            revision=env.revision,
            missing=relpath,
        )


def _existing(run: StageRun, stage: Stage) -> StageResult | None:
    relpath = run.env.layout.artifact(stage)
    if relpath is None or not run.env.package.exists(relpath):
        return None
    ref = run.env.package.artifact_ref(relpath)
    doc = run.env.package.read_json(relpath)
    notice = setting_notice(run.env, run.frozen())
    metadata = {"frozen_setting": notice} if notice else {}
    return StageResult(
        stage, relpath, ref.sha256, True, str(doc.get("status", "accepted")), metadata
    )


def _accept(
    run: StageRun,
    rev: FrozenRevision,
    stage: Stage,
    built: BuiltRequest,
    *,
    max_invalid: int,
    exhaustion: ErrorCode,
) -> StageResult:
    """Run a model stage through the correction loop and publish its accepted artifact."""
    env = run.env
    request, validate = built
    refuse_early_resume(env, stage)  # a pending block keeps its retry_at
    try:  # before anything is sent: the frozen catalogs and snapshot, then the frozen model
        refuse_changed_binding(env, rev, run.world.snapshot)
    except ResearchUnavailable as exc:
        raise block_research(env, stage, exc) from None
    refuse_changed_model(env, rev)  # only here: reusing accepted artifacts never needs the model
    items = request_items_for(request, rev.prompts)
    policy = StagePolicy(
        max_invalid_responses=max_invalid,
        exhaustion_code=exhaustion,
        retry=rev.interpretation.retry,
    )
    recorder = PackageRecorder(env.package, env.layout, stage, items)
    try:
        outcome = run_stage(
            request,
            run.provider(),
            validate,
            recorder,
            policy,
            env.budget,
            clock=env.clock,
            spec=rev.spec,
        )
    except ModelError as exc:  # exhaustion, retry pending, provider failure, budget
        retry_at = exc.detail.get("retry_at")
        block(env, stage, exc, datetime.fromisoformat(retry_at) if retry_at else None)
        raise
    relpath = env.layout.artifact(stage)
    assert relpath is not None
    if outcome.reused:  # accepted before a crash killed the run: its manifest may be missing
        recorder.complete_files(outcome.accepted)
    doc = accepted_document(rev, stage, outcome.value, outcome.accepted)
    ref = env.package.write_json(relpath, doc)
    fields = accepted_event_fields(rev, stage, outcome.accepted.attempt)
    env.package.append_event(env.revision, "accepted", **fields)
    return StageResult(stage, relpath, ref.sha256, False, "accepted")


# --- the case --------------------------------------------------------------------------------------


def run_case(run: StageRun) -> StageResult:
    """The revision's ``case.json`` as imported (read only: the CaseBuilder ran at import): the
    top-level one, or ``reports/<VVVV>/case.json`` for a revision of a later report version."""
    package = run.env.package
    relpath = run.frozen().case_relpath
    ref = package.artifact_ref(relpath)
    case_doc = package.read_json(relpath)  # refuses a non-canonical (edited) case.json
    package.read_json(version_record(run.frozen().report_version))
    sources = case_doc.get("sources", [])
    readable = [s["alias"] for s in sources if s.get("readable")]
    metadata = {
        "case_id": package.case_id,
        "revision": run.env.revision,
        "sources": len(sources),
        "readable_sources": ", ".join(readable) or "none",
    }
    if relpath != CASE_JSON:
        metadata["report_version"] = run.frozen().report_version
    return StageResult(Stage.CASE, relpath, ref.sha256, True, "accepted", metadata)


# --- model call 1 -------------------------------------------------------------------------------


def run_plan(run: StageRun) -> StageResult:
    stage = Stage.RESOLUTION_PLAN
    prepare(run)
    existing = _existing(run, stage)
    if existing:
        return existing
    env = run.env
    refuse_early_resume(env, stage)
    try:
        rev = freeze_revision(env, run.world.snapshot)
        if not rev.resolution_enabled:
            return _disabled(run, stage)
        frozen = rev.resolution
        assert frozen is not None
        return _accept(
            run,
            rev,
            stage,
            rebuild_request(rev, stage),
            max_invalid=frozen.max_invalid_responses,
            exhaustion=ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES,
        )
    except ResearchUnavailable as exc:  # binding the snapshot, or a provider that searches
        raise block_research(env, stage, exc) from None


# --- captures -------------------------------------------------------------------------------------


def run_captures(run: StageRun) -> StageResult:
    stage, env = Stage.RESOLUTION_CAPTURES, run.env
    prepare(run)
    require(run, env.layout.plan, stage, Stage.RESOLUTION_PLAN)
    rev = run.frozen()
    plan = load_plan(rev)
    if not rev.resolution_enabled or plan is None:
        return _disabled(run, stage)
    frozen = rev.resolution
    assert frozen is not None
    searches = planned_searches(plan, rev.spec.batched_exact_names)  # v6: batched names too
    ids = [search_id for search_id, _ in searches]
    done = load_captures(rev)
    executed = 0
    if capture_runs.pending(rev, searches, done):
        refuse_early_resume(env, stage)
        try:
            refuse_changed_binding(env, rev, run.world.snapshot)
            executed = capture_runs.execute(
                env,
                rev,
                searches,
                done,
                lambda search: search_once(run.world, search, frozen.max_candidates),
                lambda capture: with_quest_relations(capture, run.world.db(), rev.spec),  # v6
                lambda search: run.world.db().exact_name_search(
                    search.catalog, search.term, exact_row_limit(frozen.max_candidates)
                ),
                batched=batched_origins(plan, rev.spec.batched_exact_names).keys(),
            )
        except ResearchUnavailable as exc:
            raise block_research(env, stage, exc) from None
    manifest = capture_runs.manifest(rev, ids, done)
    return StageResult(
        stage,
        None,
        content_hash(manifest),
        not executed,
        "accepted",
        {"captures": manifest, "executed": executed},
    )


# --- candidate index --------------------------------------------------------------------------------


def run_candidate_index(run: StageRun) -> StageResult:
    stage, env = Stage.CANDIDATE_INDEX, run.env
    prepare(run)
    require(run, env.layout.plan, stage, Stage.RESOLUTION_PLAN)
    rev = run.frozen()
    plan = load_plan(rev)
    if not rev.resolution_enabled or plan is None:
        return _disabled(run, stage)
    index = compute_candidate_index(rev, plan)
    ref = env.package.write_json(env.layout.candidates, index.model_dump(mode="json"))
    return StageResult(stage, ref.relpath, ref.sha256, not ref.created, "accepted")


# --- model call 2 and the resolution context -------------------------------------------------------------


def run_assessment(run: StageRun) -> StageResult:
    stage, env = Stage.RESOLUTION_ASSESSMENT, run.env
    prepare(run)
    existing = _existing(run, stage)
    if existing:
        if existing.status == "accepted":
            ensure_resolution_context(run.frozen())  # a crash may have come between the writes
        return existing
    require(run, env.layout.candidates, stage, Stage.CANDIDATE_INDEX)
    rev = run.frozen()
    if not rev.resolution_enabled or load_plan(rev) is None:
        return _disabled(run, stage)
    frozen = rev.resolution
    assert frozen is not None
    result = _accept(
        run,
        rev,
        stage,
        rebuild_request(rev, stage),
        max_invalid=frozen.max_invalid_responses,
        exhaustion=ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES,
    )
    ensure_resolution_context(rev)
    return result


def ensure_resolution_context(rev: FrozenRevision) -> None:
    """Write context.json (the F/N/D aliases of the accepted assessment); identical = no-op."""
    context = compute_resolution_context(rev)
    rev.package.write_json(rev.layout.context, context.model_dump(mode="json"))


# --- model call 3 --------------------------------------------------------------------------------


def run_interpretation(run: StageRun) -> StageResult:
    stage = Stage.INTERPRETATION
    prepare(run)
    existing = _existing(run, stage)
    if existing:
        return existing
    rev = run.frozen()
    interpretation_context(rev)  # ARTIFACT_MISSING while the resolution is unfinished
    return _accept(
        run,
        rev,
        stage,
        rebuild_request(rev, stage),
        max_invalid=rev.interpretation.max_invalid_responses,
        exhaustion=ErrorCode.INTERPRETATION_INVALID_RESPONSES,
    )
