"""Blocked revisions, read from the case packages' ``events.jsonl`` (read only; no Dagster).

A revision is blocked when its last ``blocked`` event (ARCHITECTURE 9: a DB outage, a provider's
Retry-After, exhausted corrections) was not followed by a ``resumed`` event naming it
(``after_block``, written by :func:`~vba_assets.pipeline.revision.refuse_early_resume` when a run
passes the block's ``retry_at``). A block without ``retry_at`` (exhausted corrections) is never
resumed: its revision waits for an operator, who reviews the rejected records and starts a new
revision; once the case has a later revision the old one is no longer listed.

``vba blocked`` prints :func:`blocked_revisions`; ``vba resume`` and the opt-in Dagster sensor
``resume_blocked_sensor`` resume those whose ``retry_at`` passed (:meth:`BlockedRevision.due`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from vba_assets.config import ProjectConfig
from vba_assets.domain.clock import format_timestamp, utc_now
from vba_assets.domain.stages import Stage
from vba_assets.errors import (
    BudgetExceeded,
    ErrorCode,
    InputError,
    ModelError,
    ResearchUnavailable,
    StoreError,
    VbaError,
)
from vba_assets.llm_config import LlmConfig, load_llm_config, model_name
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.pipeline.stage_budget import recorded_budget
from vba_assets.pipeline.trial import run_trial
from vba_assets.pipeline.usage import stage_usage
from vba_assets.store import CasePackage, Workspace
from vba_assets.store.layout import RevisionLayout


@dataclass(frozen=True)
class BlockedRevision:
    """One blocked revision: where it stopped, why, until when, and what it spent."""

    case_id: str
    revision: str
    stage: str
    code: str
    message: str
    blocked_at: str
    #: The last ``blocked`` event's ``seq`` (a resume names it; a run key can too).
    block_seq: int
    retry_at: datetime | None
    #: Model requests of the blocked stage so far, and how many of them were rejected.
    attempts: int
    corrections: int
    tokens_input: int
    tokens_output: int
    tokens_cache_read: int
    tokens_cache_write: int
    #: The folder of the stage's rejected records (absolute), when the stage has any.
    rejected_dir: str | None
    #: A ``STAGE_BUDGET_EXCEEDED`` block: the CPU budget in force when the stage stopped.
    cpu_budget_s: float | None = None

    @property
    def partition_key(self) -> str:
        return f"{self.case_id}|{self.revision}"

    @property
    def tokens(self) -> int:
        """Every token the stage's requests used (input, output and cache)."""
        return (
            self.tokens_input
            + self.tokens_output
            + self.tokens_cache_read
            + self.tokens_cache_write
        )

    def due(self, now: datetime) -> bool:
        """Whether a resume may run now: the block has a ``retry_at`` and it has passed."""
        return self.retry_at is not None and self.retry_at <= now

    def wait_s(self, now: datetime) -> float | None:
        """Seconds until ``retry_at`` (0 once passed; None for a block without one)."""
        if self.retry_at is None:
            return None
        return max(0.0, (self.retry_at - now).total_seconds())

    def to_json(self) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "revision": self.revision,
            "stage": self.stage,
            "code": self.code,
            "message": self.message,
            "blocked_at": self.blocked_at,
            "block_seq": self.block_seq,
            "retry_at": None if self.retry_at is None else format_timestamp(self.retry_at),
            "attempts": self.attempts,
            "corrections": self.corrections,
            "tokens": {
                "input": self.tokens_input,
                "output": self.tokens_output,
                "cache_read": self.tokens_cache_read,
                "cache_write": self.tokens_cache_write,
            },
            "rejected_dir": self.rejected_dir,
            "cpu_budget_s": self.cpu_budget_s,
        }


def revision_block(package: CasePackage, revision: str) -> BlockedRevision | None:
    """The pending block of one revision, or None."""
    events = package.read_events(revision)
    blocks = [e for e in events if e["event"] == "blocked"]
    if not blocks:
        return None
    last = blocks[-1]
    seq = int(last["seq"])
    if any(e["event"] == "resumed" and e.get("after_block") == seq for e in events):
        return None
    layout = RevisionLayout(revision)
    stage_name = str(last.get("stage", ""))
    stage = next((s for s in Stage if s.value == stage_name), None)
    usage = stage_usage(package, layout, stage) if stage is not None and stage.calls_model else None
    rejected_dir = None
    if stage is not None and stage.calls_model:
        relpath = layout.rejected_dir(stage)
        if package.list_dir(relpath):
            rejected_dir = str(package.path(relpath))
    retry_at = last.get("retry_at")
    return BlockedRevision(
        case_id=package.case_id,
        revision=revision,
        stage=stage_name,
        code=str(last.get("code", "")),
        message=str(last.get("message", "")),
        blocked_at=str(last.get("at", "")),
        block_seq=seq,
        retry_at=datetime.fromisoformat(retry_at) if isinstance(retry_at, str) else None,
        attempts=usage.requests if usage else 0,
        corrections=usage.corrections if usage else 0,
        tokens_input=usage.input_tokens if usage else 0,
        tokens_output=usage.output_tokens if usage else 0,
        tokens_cache_read=usage.cache_read_tokens if usage else 0,
        tokens_cache_write=usage.cache_write_tokens if usage else 0,
        rejected_dir=rejected_dir,
        cpu_budget_s=(
            recorded_budget(last) if last.get("code") == ErrorCode.STAGE_BUDGET_EXCEEDED else None
        ),
    )


def blocked_revisions(workspace: Workspace, case_id: str | None = None) -> list[BlockedRevision]:
    """Every pending block of the workspace (or of one case), in case then revision order.

    A block without ``retry_at`` is left out once its case has a later revision (the operator's
    answer to it).
    """
    found = []
    for cid in [case_id] if case_id else workspace.case_ids():
        package = workspace.case(cid)
        revisions = package.revisions()
        for revision in revisions:
            block = revision_block(package, revision)
            if block is None:
                continue
            if block.retry_at is None and revision != revisions[-1]:
                continue  # superseded by a new revision
            found.append(block)
    return found


def blocked_lines(blocks: list[BlockedRevision], now: datetime) -> list[str]:
    """``vba blocked``: one line per blocked revision, then the rejected-records folder."""
    if not blocks:
        return ["no blocked revision"]
    lines = []
    for b in blocks:
        wait = b.wait_s(now)
        when = (
            f"CPU budget {b.cpu_budget_s:g} s spent (raise [budget] stage_cpu_s, then `vba resume`)"
            if b.cpu_budget_s is not None
            else "no retry_at (review the rejected records, then `vba revision new`)"
            if wait is None
            else f"retry_at {format_timestamp(b.retry_at)}"  # type: ignore[arg-type]
            + (" (due: `vba resume`)" if wait == 0 else f" (in {wait:.0f} s)")
        )
        lines.append(
            f"{b.case_id} {b.revision} {b.stage} {b.code} {when}; attempts {b.attempts} "
            f"(corrections {b.corrections}), tokens {b.tokens}"
        )
        if b.rejected_dir:
            lines.append(f"  rejected records: {b.rejected_dir}")
    return lines


def resume_blocked(
    workspace: Workspace,
    case_id: str,
    project: ProjectConfig,
    llm_config: str | None,
    max_dispatches: int,
    *,
    clock: Callable[[], datetime] = utc_now,
) -> str:
    """``vba resume``: run the stages of the case's blocked revision once its ``retry_at`` passed.

    ``llm_config`` None is the default LLM config, what ``vba trial run`` uses without
    ``--llm-config`` (the heuristic provider): enough for a revision started with it; one started
    with another provider or model needs its own config, and is refused with that said.

    Refuses (and runs nothing) when the case has no pending block, when the block has no
    ``retry_at`` (exhausted corrections: a new revision is the answer), when no ``llm_config``
    is given for a revision frozen with another provider, or before ``retry_at`` (with the time
    to wait, as the stage itself refuses an early resume). A budget block
    (``STAGE_BUDGET_EXCEEDED``, no ``retry_at``) resumes once the configured budget is larger than
    the recorded one. Returns the summary.

    Raises:
        InputError: no blocked revision, or a block that cannot be resumed.
        StoreError: ``REVISION_FROZEN``: no ``llm_config`` for a non-default provider.
        ModelError, ResearchUnavailable: ``retry_at`` has not passed (``wait_s`` in the detail).
        BudgetExceeded: a budget block, and the budget was not raised.
    """
    blocks = blocked_revisions(workspace, case_id)
    if not blocks:
        raise InputError(ErrorCode.INVALID_REVISION, f"{case_id} has no blocked revision")
    block = blocks[-1]
    now = clock()
    if block.cpu_budget_s is not None:
        _refuse_unraised(block, project)
    elif block.retry_at is None:
        raise ModelError(
            ErrorCode(block.code),
            f"{case_id} revision {block.revision} is blocked by {block.code} without retry_at: "
            f"review the rejected records ({block.rejected_dir or 'none'}), then "
            f"`vba revision new --case-id {case_id}`",
        )
    llm = load_llm_config(Path(llm_config) if llm_config else None)
    if llm_config is None:
        _refuse_default_for_another_provider(workspace.case(case_id), block.revision, llm)
    if block.retry_at is not None and not block.due(now):
        research = block.code == ErrorCode.RESEARCH_UNAVAILABLE.value
        error: type[VbaError] = ResearchUnavailable if research else ModelError
        raise error(
            ErrorCode(block.code),
            f"{case_id} revision {block.revision} ({block.stage}) is blocked by {block.code} until "
            f"{format_timestamp(block.retry_at)}; wait {block.wait_s(now):.0f} s before resuming",
            retry_at=format_timestamp(block.retry_at),
            wait_s=round(block.wait_s(now) or 0.0, 1),
        )
    report = run_trial(  # the stage records the resume (vba_assets.pipeline.stage_budget)
        workspace,
        case_id,
        block.revision,
        project,
        llm,
        stop_after="interpretation",
        max_dispatches=max_dispatches,
        clock=clock,
    )
    return "\n".join(
        [f"resumed {case_id} revision {block.revision} at {block.stage}", *report.lines()]
    )


def _refuse_default_for_another_provider(
    package: CasePackage, revision: str, default: LlmConfig
) -> None:
    """Without ``--llm-config`` only a revision frozen with the default provider resumes."""
    frozen = load_frozen(package, revision).interpretation
    if (frozen.provider, frozen.model) == (default.provider, model_name(default)):
        return
    raise StoreError(
        ErrorCode.REVISION_FROZEN,
        f"{package.case_id} revision {revision} was started with provider {frozen.provider!r} "
        f"model {frozen.model!r}; resume it with `--llm-config` naming that LLM config (without "
        f"it: the default provider {default.provider!r})",
        case_id=package.case_id,
        revision=revision,
    )


def _refuse_unraised(block: BlockedRevision, project: ProjectConfig) -> None:
    """A budget block resumes only with a larger budget (the same text takes the same work)."""
    recorded = block.cpu_budget_s or 0.0
    if project.budget.stage_cpu_s <= recorded:
        raise BudgetExceeded(
            ErrorCode.STAGE_BUDGET_EXCEEDED,
            f"{block.case_id} revision {block.revision} ({block.stage}) stopped at its CPU budget "
            f"of {recorded:g} s; the configured budget is {project.budget.stage_cpu_s:g} s. Raise "
            "[budget] stage_cpu_s in the project config, then resume",
            cpu_budget_s=project.budget.stage_cpu_s,
            recorded_cpu_budget_s=recorded,
        )
