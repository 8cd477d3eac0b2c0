"""One analysis revision of one case: frozen inputs, paths and lifecycle blocks (ARCHITECTURE 4, 9).

A revision is an immutable analysis attempt. Its inputs are frozen in ``input.json`` (interpretation)
and ``entity-resolution/input.json`` the first time it runs; every later run uses the frozen values.
A run whose current configuration differs from the frozen one is refused (``REVISION_FROZEN``, or
``ENTITY_RESOLUTION_BINDING_CHANGED`` for catalogs and snapshot while captures are unfinished): a new
revision (``vba revision new``) is the only way to re-analyse with a new prompt, model, catalog or
snapshot.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from vba_assets.config import ProjectConfig
from vba_assets.domain.catalog.world import SnapshotBinding
from vba_assets.domain.llm.policy import DispatchBudget, RetryPolicy
from vba_assets.domain.llm.schemas import SchemaDialect
from vba_assets.domain.prompting.prompts import CURRENT_PROMPT_VERSION
from vba_assets.domain.resolution.models import ResolutionInput
from vba_assets.errors import ErrorCode, ModelError, ResearchUnavailable, StoreError, VbaError
from vba_assets.llm_config import LlmConfig
from vba_assets.store import CasePackage, content_hash, format_timestamp

#: New revisions freeze protocol v2 (the output schema travels in the user message).
CURRENT_PROTOCOL_VERSION: Literal[2] = 2
#: ARCHITECTURE 9: a DB outage may be resumed no earlier than this.
RESEARCH_RETRY_DELAY = timedelta(seconds=60)


class InterpretationInput(BaseModel):
    """``analysis/interpretations/<NNNN>/input.json``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = 1
    case_id: str
    revision: str
    case_sha256: str
    reported_at: str
    reported_at_offset: str | None
    protocol_version: Literal[1, 2]
    prompt_version: str
    provider: str
    model: str
    parameters: dict[str, Any]
    schema_dialect: SchemaDialect
    retry: RetryPolicy
    max_invalid_responses: int
    entity_resolution: Literal["enabled", "disabled"]


@dataclass
class RevisionEnv:
    """Everything a stage needs; built per invocation by the asset or the trial runner."""

    package: CasePackage
    revision: str
    project: ProjectConfig
    llm: LlmConfig
    budget: DispatchBudget
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    @property
    def rev_dir(self) -> str:
        return self.package.revision_dir(self.revision)

    @property
    def er_dir(self) -> str:
        return f"{self.rev_dir}/entity-resolution"

    def case_doc(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.package.read_json("case.json")
        return doc


def model_name(llm: LlmConfig) -> str:
    return llm.model or f"vba-{llm.provider}"


def schema_dialect(llm: LlmConfig) -> SchemaDialect:
    """The schema transform the configured provider needs (frozen with the revision)."""
    return "anthropic" if llm.provider == "anthropic" else "json_schema"


def interpretation_input(env: RevisionEnv) -> InterpretationInput:
    """The frozen input of the revision, written on first use (event ``started``)."""
    relpath = f"{env.rev_dir}/input.json"
    if env.package.exists(relpath):
        return InterpretationInput.model_validate(env.package.read_json(relpath))
    _refuse_unknown_revision(env)
    case_doc = env.case_doc()
    frozen = InterpretationInput(
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
        max_invalid_responses=(
            env.project.entity_resolution.max_invalid_responses
            if env.project.entity_resolution
            else 3
        ),
        entity_resolution="enabled" if env.project.entity_resolution else "disabled",
    )
    env.package.write_json(relpath, frozen.model_dump(mode="json"))
    env.package.append_event(env.revision, "started", input=relpath, case_sha256=frozen.case_sha256)
    return frozen


def _refuse_unknown_revision(env: RevisionEnv) -> None:
    """Only 0001 starts by itself; later revisions exist once ``vba revision new`` created them.

    The revision dimension is shared by all cases, so a partition ``<case>|0003`` can exist in
    Dagster for a case that never had a third revision: running it must not invent one.
    """
    if env.revision == "0001":
        return
    events = (
        env.package.read_events(env.revision)
        if env.package.exists(f"{env.rev_dir}/events.jsonl")
        else []
    )
    if not any(event["event"] == "created" for event in events):
        raise StoreError(
            ErrorCode.REVISION_UNKNOWN,
            f"{env.package.case_id} has no revision {env.revision}; create it with "
            f"`vba revision new --case-id {env.package.case_id}`",
            case_id=env.package.case_id,
            revision=env.revision,
        )


def refuse_changed_model(env: RevisionEnv) -> None:
    """A request may be sent only by the provider and model the revision froze."""
    frozen = interpretation_input(env)
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


def resolution_input(
    env: RevisionEnv, snapshot: Callable[[], SnapshotBinding] | None
) -> ResolutionInput:
    """The frozen entity-resolution input; ``snapshot`` binds the DB on first use."""
    relpath = f"{env.er_dir}/input.json"
    frozen_interpretation = interpretation_input(env)
    if env.package.exists(relpath):
        return ResolutionInput.model_validate(env.package.read_json(relpath))
    config = env.project.entity_resolution
    if config is None or frozen_interpretation.entity_resolution == "disabled":
        frozen = ResolutionInput(
            status="disabled",
            protocol_version=frozen_interpretation.protocol_version,
            prompt_version=frozen_interpretation.prompt_version,
            case_sha256=frozen_interpretation.case_sha256,
            catalogs=[],
            snapshot=None,
            max_searches=0,
            max_candidates=0,
            max_invalid_responses=frozen_interpretation.max_invalid_responses,
        )
    else:
        if snapshot is None:
            raise ValueError("an enabled entity resolution needs the world DB to freeze its input")
        frozen = ResolutionInput(
            status="enabled",
            protocol_version=frozen_interpretation.protocol_version,
            prompt_version=frozen_interpretation.prompt_version,
            case_sha256=frozen_interpretation.case_sha256,
            catalogs=[c.model_dump(mode="json") for c in config.catalogs],
            snapshot=snapshot(),
            max_searches=config.max_searches,
            max_candidates=config.max_candidates,
            max_invalid_responses=config.max_invalid_responses,
        )
    env.package.write_json(relpath, frozen.model_dump(mode="json"))
    return frozen


def check_binding(env: RevisionEnv, frozen: ResolutionInput, current: SnapshotBinding) -> None:
    """Refuse to continue unfinished captures against other catalogs or another snapshot."""
    catalogs_now = (
        [c.model_dump(mode="json") for c in env.project.entity_resolution.catalogs]
        if env.project.entity_resolution
        else []
    )
    changes = []
    if content_hash(catalogs_now) != content_hash(frozen.catalogs):
        changes.append("catalogs")
    if frozen.snapshot is not None and current != frozen.snapshot:
        changes.append("snapshot binding")
    if changes:
        raise StoreError(
            ErrorCode.ENTITY_RESOLUTION_BINDING_CHANGED,
            f"revision {env.revision} of {env.package.case_id}: the {' and '.join(changes)} "
            "changed while entity resolution is unfinished; restore them or start a new revision",
            changed=changes,
            frozen_snapshot=frozen.snapshot.model_dump() if frozen.snapshot else None,
            current_snapshot=current.model_dump(),
        )


# --- lifecycle blocks ---------------------------------------------------------------------------


def block(env: RevisionEnv, stage: str, error: VbaError, retry_at: datetime | None = None) -> None:
    """Record ``blocked`` with the code (and ``retry_at``) so the UI and a resume can see it."""
    fields: dict[str, object] = {"stage": stage, "code": error.code.value, "message": error.message}
    if retry_at is not None:
        fields["retry_at"] = format_timestamp(retry_at)
    env.package.append_event(env.revision, "blocked", **fields)


def block_research(env: RevisionEnv, stage: str, error: ResearchUnavailable) -> ResearchUnavailable:
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


def refuse_early_resume(env: RevisionEnv, stage: str) -> None:
    """A resume before a block's recorded ``retry_at`` is refused with the time to wait.

    After it, the resume is recorded (event ``resumed``) and the stage continues.
    """
    events = env.package.read_events(env.revision)
    blocks = [e for e in events if e["event"] == "blocked" and e.get("stage") == stage]
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
            f"{stage} of {env.package.case_id} revision {env.revision} is blocked by {cause} "
            f"until {format_timestamp(retry_at)}; wait {wait_s:.0f} s before resuming",
            retry_at=format_timestamp(retry_at),
            wait_s=round(wait_s, 1),
        )
    env.package.append_event(env.revision, "resumed", stage=stage, after_block=last_block["seq"])
