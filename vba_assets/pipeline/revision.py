"""Running one revision: its environment, freezing its inputs, refusals and lifecycle blocks.

A revision is an immutable analysis attempt (ARCHITECTURE 4, 9). :func:`freeze_revision` is the
only writer of its frozen inputs (``input.json``, ``entity-resolution/input.json``) and of its
``started`` event; reading them is :func:`vba_assets.pipeline.frozen_revision.load_frozen`. A run whose
current configuration differs from the frozen one is refused before anything is sent or queried
(``REVISION_FROZEN`` for the provider and model; ``ENTITY_RESOLUTION_BINDING_CHANGED`` for the
catalogs and the snapshot, at every unfinished stage of a revision with entity resolution;
``ENTITY_RESOLUTION_SETTING_CHANGED`` when the config no longer enables it): a new revision
(``vba revision new``) is the only way to re-analyse with a new prompt, model, catalog or snapshot.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from vba_assets.config import ProjectConfig
from vba_assets.domain.canonical import content_hash
from vba_assets.domain.catalog.world import SnapshotBinding
from vba_assets.domain.clock import format_timestamp, utc_now
from vba_assets.domain.frozen_inputs import InterpretationInput, ResolutionInput
from vba_assets.domain.llm.policy import DispatchBudget
from vba_assets.domain.prompting.prompts import CURRENT_PROMPT_VERSION
from vba_assets.domain.protocol import CURRENT_PROTOCOL_VERSION
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, ModelError, ResearchUnavailable, StoreError, VbaError
from vba_assets.llm_config import LlmConfig, model_name, schema_dialect
from vba_assets.pipeline.frozen_revision import FrozenRevision, load_frozen
from vba_assets.store import CasePackage
from vba_assets.store.layout import (
    FIRST_REPORT_VERSION,
    PACKAGE_JSON,
    RevisionLayout,
    version_record,
)
from vba_assets.store.versions import REPORT_VERSION_FIELD

#: ARCHITECTURE 9: a DB outage may be resumed no earlier than this.
RESEARCH_RETRY_DELAY = timedelta(seconds=60)
#: The first revision of a case starts by itself; later ones exist once created.
FIRST_REVISION = "0001"


@dataclass
class RevisionEnv:
    """Everything a stage run needs; built per invocation by the asset or the trial runner."""

    package: CasePackage
    revision: str
    project: ProjectConfig
    llm: LlmConfig
    budget: DispatchBudget
    clock: Callable[[], datetime] = field(default=utc_now)

    @property
    def layout(self) -> RevisionLayout:
        return RevisionLayout(self.revision)

    def frozen(self) -> FrozenRevision:
        """The read-only view of this revision (see :func:`load_frozen`)."""
        return load_frozen(self.package, self.revision)


# --- freezing -------------------------------------------------------------------------------------


def freeze_revision(
    env: RevisionEnv, snapshot: Callable[[], SnapshotBinding] | None
) -> FrozenRevision:
    """Freeze the revision's inputs from the current configuration, once; return the view.

    The only writer of both ``input.json`` files and of the ``started`` event. Files already
    written are kept (a rerun or a resume completes whatever a crash left unwritten). ``snapshot``
    binds the world DB and is called only when an enabled entity resolution is frozen.

    Raises:
        StoreError: ``REVISION_UNKNOWN`` for a revision after ``0001`` that was never created.
    """
    rev = env.frozen()
    layout, package = rev.layout, env.package
    if not rev.started:
        _refuse_unknown_revision(env)
        frozen = _interpretation_input(env)
        if not package.exists(layout.er_input):
            package.write_json(layout.er_input, _resolution_input(env, frozen, snapshot))
        package.write_json(layout.input, frozen)
    elif rev.resolution is None:  # written second before this release: complete it
        package.write_json(layout.er_input, _resolution_input(env, rev.interpretation, snapshot))
    if not any(event["event"] == "started" for event in package.read_events(env.revision)):
        package.append_event(env.revision, "started", **started_fields(env.frozen()))
    return env.frozen()


def started_fields(rev: FrozenRevision) -> dict[str, object]:
    """The ``started`` event of a frozen revision: both inputs and ``package.json`` by sha256."""
    package, layout = rev.package, rev.layout
    fields: dict[str, object] = {
        "input": layout.input,
        "case_sha256": rev.interpretation.case_sha256,
        "input_sha256": package.artifact_ref(layout.input).sha256,
        "resolution_input_sha256": package.artifact_ref(layout.er_input).sha256,
        "package_sha256": package.artifact_ref(PACKAGE_JSON).sha256,
    }
    if rev.report_version != FIRST_REPORT_VERSION:  # the chained line binds the version too
        fields[REPORT_VERSION_FIELD] = rev.report_version
        fields["version_sha256"] = package.artifact_ref(version_record(rev.report_version)).sha256
    return fields


def _interpretation_input(env: RevisionEnv) -> InterpretationInput:
    case_doc = env.package.read_json(env.frozen().case_relpath)
    resolution = env.project.entity_resolution
    return InterpretationInput(
        case_id=env.package.case_id,
        revision=env.revision,
        case_sha256=content_hash(case_doc),
        reported_at=case_doc["reported_at"],
        reported_at_offset=case_doc.get("reported_at_offset"),
        protocol_version=CURRENT_PROTOCOL_VERSION,
        prompt_version=CURRENT_PROMPT_VERSION,
        provider=env.llm.provider,
        model=model_name(env.llm),
        parameters={"max_tokens": env.llm.max_tokens, "temperature": env.llm.temperature},
        schema_dialect=schema_dialect(env.llm),
        retry=env.llm.retry,
        max_invalid_responses=resolution.max_invalid_responses if resolution else 3,
        entity_resolution="enabled" if resolution else "disabled",
    )


def _resolution_input(
    env: RevisionEnv,
    frozen: InterpretationInput,
    snapshot: Callable[[], SnapshotBinding] | None,
) -> ResolutionInput:
    config = env.project.entity_resolution
    common = {
        "protocol_version": frozen.protocol_version,
        "prompt_version": frozen.prompt_version,
        "case_sha256": frozen.case_sha256,
    }
    if config is None or frozen.entity_resolution == "disabled":
        return ResolutionInput(
            status="disabled",
            catalogs=[],
            snapshot=None,
            max_searches=0,
            max_candidates=0,
            max_invalid_responses=frozen.max_invalid_responses,
            **common,
        )
    if snapshot is None:
        raise ValueError("an enabled entity resolution needs the world DB to freeze its input")
    return ResolutionInput(
        status="enabled",
        catalogs=[c.model_dump(mode="json") for c in config.catalogs],
        snapshot=snapshot(),
        max_searches=config.max_searches,
        max_candidates=config.max_candidates,
        max_invalid_responses=config.max_invalid_responses,
        **common,
    )


def _refuse_unknown_revision(env: RevisionEnv) -> None:
    """Only 0001 starts by itself; later revisions exist once ``vba revision new`` created them."""
    if env.revision == FIRST_REVISION:
        return
    if not any(event["event"] == "created" for event in env.package.read_events(env.revision)):
        raise StoreError(
            ErrorCode.REVISION_UNKNOWN,
            f"{env.package.case_id} has no revision {env.revision}; create it with "
            f"`vba revision new --case-id {env.package.case_id}`",
            case_id=env.package.case_id,
            revision=env.revision,
        )


# --- refusals -------------------------------------------------------------------------------------


def refuse_changed_model(env: RevisionEnv, rev: FrozenRevision) -> None:
    """A request may be sent only by the provider and model the revision froze."""
    frozen = rev.interpretation
    if env.llm.provider == "replay":
        return  # replay answers from the recorded dispatches of whatever the revision froze
    current = (env.llm.provider, model_name(env.llm))
    if current != (frozen.provider, frozen.model):
        raise StoreError(
            ErrorCode.REVISION_FROZEN,
            f"revision {env.revision} of {env.package.case_id} was started with provider "
            f"{frozen.provider!r} model {frozen.model!r}; the current LLM config says "
            f"{current[0]!r} model {current[1]!r}. Use `vba revision new` to analyse again.",
            case_id=env.package.case_id,
            revision=env.revision,
        )


def check_binding(env: RevisionEnv, rev: FrozenRevision, current: SnapshotBinding) -> None:
    """Refuse to continue an unfinished stage against other catalogs or another snapshot."""
    frozen = rev.resolution
    if frozen is None or frozen.status != "enabled":
        return
    changes = _catalog_changes(env, rev)
    if frozen.snapshot is not None and current != frozen.snapshot:
        changes.append("snapshot binding")
    if changes:
        raise StoreError(
            ErrorCode.ENTITY_RESOLUTION_BINDING_CHANGED,
            f"revision {env.revision} of {env.package.case_id}: the {' and '.join(changes)} "
            "changed while entity resolution is unfinished; nothing was sent or queried. Restore "
            "them or start a new revision (`vba revision new`)",
            case_id=env.package.case_id,
            revision=env.revision,
            changed=changes,
            frozen_snapshot=frozen.snapshot.model_dump() if frozen.snapshot else None,
            current_snapshot=current.model_dump(),
        )


def _catalog_changes(env: RevisionEnv, rev: FrozenRevision) -> list[str]:
    frozen = rev.resolution
    assert frozen is not None
    catalogs_now = [c.model_dump(mode="json") for c in env.project.catalogs]
    return ["catalogs"] if content_hash(catalogs_now) != content_hash(frozen.catalogs) else []


def refuse_changed_binding(
    env: RevisionEnv, rev: FrozenRevision, snapshot: Callable[[], SnapshotBinding]
) -> None:
    """Before any model call or query of an unfinished stage of a revision with entity resolution:
    the current config must still enable it with the frozen catalogs, and the world DB must still
    be the frozen snapshot (the catalogs are compared first, so a catalog change is refused even
    while the DB is down; ``snapshot`` raises ``ResearchUnavailable`` when it is down)."""
    if not rev.resolution_enabled:
        return
    refuse_changed_setting(env, rev)
    if _catalog_changes(env, rev):
        check_binding(env, rev, _frozen_snapshot(rev))  # raises naming the catalogs
    check_binding(env, rev, snapshot())


def _frozen_snapshot(rev: FrozenRevision) -> SnapshotBinding:
    frozen = rev.resolution
    assert frozen is not None and frozen.snapshot is not None
    return frozen.snapshot


def setting_notice(env: RevisionEnv, rev: FrozenRevision) -> str | None:
    """``ENTITY_RESOLUTION_SETTING_CHANGED: ...`` when the revision froze another entity-resolution
    setting than the current config has (None when they agree or the revision is not started)."""
    if not rev.started:
        return None
    configured = env.project.entity_resolution is not None
    if configured == rev.resolution_enabled:
        return None
    frozen = "enabled" if rev.resolution_enabled else "disabled"
    now = "enables" if configured else "disables"
    consequence = (
        "it stays without entity resolution (started revisions are never enriched)"
        if not rev.resolution_enabled
        else "its unfinished stages are refused until the config enables it again"
    )
    return (
        f"{ErrorCode.ENTITY_RESOLUTION_SETTING_CHANGED.value}: revision {env.revision} of "
        f"{env.package.case_id} was frozen with entity resolution {frozen}; the current config "
        f"{now} it, so {consequence}. Use `vba revision new` to analyse with the current setting"
    )


def refuse_changed_setting(env: RevisionEnv, rev: FrozenRevision) -> None:
    """An unfinished stage of a revision frozen with entity resolution needs it configured."""
    if rev.resolution_enabled and env.project.entity_resolution is None:
        notice = setting_notice(env, rev)
        assert notice is not None
        raise StoreError(
            ErrorCode.ENTITY_RESOLUTION_SETTING_CHANGED,
            notice.split(": ", 1)[1],
            case_id=env.package.case_id,
            revision=env.revision,
        )


# --- lifecycle blocks ---------------------------------------------------------------------------


def block(
    env: RevisionEnv,
    stage: Stage,
    error: VbaError,
    retry_at: datetime | None = None,
    **extra: object,
) -> None:
    """Record ``blocked`` with the code (and ``retry_at``, and ``extra`` fields: what a resume
    compares) so the UI and a resume can see it."""
    fields: dict[str, object] = {
        **extra,
        "stage": stage.value,
        "code": error.code.value,
        "message": error.message,
    }
    if retry_at is not None:
        fields["retry_at"] = format_timestamp(retry_at)
    env.package.append_event(env.revision, "blocked", **fields)


def block_research(
    env: RevisionEnv, stage: Stage, error: ResearchUnavailable
) -> ResearchUnavailable:
    """Record a DB outage with its 60 s safety delay and return the error to raise."""
    retry_at = env.clock() + RESEARCH_RETRY_DELAY
    block(env, stage, error, retry_at)
    error.detail["retry_at"] = format_timestamp(retry_at)
    return error


#: Blocks that carry a ``retry_at``: how each is refused when resumed too early.
_TIMED_BLOCKS: dict[str, tuple[type[VbaError], str]] = {
    ErrorCode.RESEARCH_UNAVAILABLE.value: (ResearchUnavailable, "a database outage"),
    ErrorCode.LLM_PROVIDER_RETRY_PENDING.value: (ModelError, "a provider retry"),
}


def refuse_early_resume(env: RevisionEnv, stage: Stage) -> None:
    """A resume before a block's recorded ``retry_at`` is refused with the time to wait.

    After it, the resume is recorded (event ``resumed``) and the stage continues.
    """
    events = env.package.read_events(env.revision)
    blocks = [e for e in events if e["event"] == "blocked" and e.get("stage") == stage.value]
    if not blocks or blocks[-1].get("code") not in _TIMED_BLOCKS or "retry_at" not in blocks[-1]:
        return
    last_block = blocks[-1]
    if any(e["event"] == "resumed" and e["seq"] > last_block["seq"] for e in events):
        return
    error_type, cause = _TIMED_BLOCKS[last_block["code"]]
    retry_at = datetime.fromisoformat(last_block["retry_at"])
    wait_s = (retry_at - env.clock()).total_seconds()
    if wait_s > 0:
        raise error_type(
            ErrorCode(last_block["code"]),
            f"{stage.value} of {env.package.case_id} revision {env.revision} is blocked by {cause} "
            f"until {format_timestamp(retry_at)}; wait {wait_s:.0f} s before resuming",
            retry_at=format_timestamp(retry_at),
            wait_s=round(wait_s, 1),
        )
    env.package.append_event(
        env.revision, "resumed", stage=stage.value, after_block=last_block["seq"]
    )
