"""Running a stage within its CPU budget for text work, and resuming one that overran it.

Both the Dagster assets and ``vba trial run`` (so ``vba resume`` and ``vba eval`` too) run a stage
through :func:`run_within_budget`: the stage's text work checks the budget cooperatively
(:mod:`vba_assets.domain.text_budget`); past it the stage stops with ``STAGE_BUDGET_EXCEEDED``,
recorded as a ``blocked`` event that names the budget in force (``cpu_budget_s``). Nothing the
stage wrote before is lost (its records are append-only and a resume continues from them).

Such a block has no ``retry_at``: waiting changes nothing, since the same text takes the same
work. It is resumable once the configured ``[budget] stage_cpu_s`` is larger than the recorded
one; until then every run of the stage (a re-materialization, ``vba resume``) is refused at once,
before any work, so a sensor or a retry loop cannot burn the budget again and again.
"""

from typing import Any

from vba_assets.domain.text_budget import stage_budget
from vba_assets.errors import BudgetExceeded, ErrorCode
from vba_assets.pipeline.registry import StageSpec
from vba_assets.pipeline.revision import RevisionEnv, block
from vba_assets.pipeline.stage_runs import StageResult, StageRun


def pending_budget_block(env: RevisionEnv, stage: str) -> dict[str, Any] | None:
    """The stage's last ``STAGE_BUDGET_EXCEEDED`` block when no ``resumed`` event followed it."""
    events = env.package.read_events(env.revision)
    blocks = [e for e in events if e["event"] == "blocked" and e.get("stage") == stage]
    if not blocks or blocks[-1].get("code") != ErrorCode.STAGE_BUDGET_EXCEEDED.value:
        return None
    last = blocks[-1]
    if any(e["event"] == "resumed" and e["seq"] > last["seq"] for e in events):
        return None
    return last


def recorded_budget(event: dict[str, Any]) -> float:
    """The ``cpu_budget_s`` a budget block recorded (0 when it is missing or not a number)."""
    value = event.get("cpu_budget_s")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def refuse_unraised_budget(env: RevisionEnv, stage: str) -> None:
    """Refuse a stage whose budget block stands while the budget was not raised; once it was,
    record the resume (event ``resumed``) and let the stage run."""
    last = pending_budget_block(env, stage)
    if last is None:
        return
    cpu_s = env.project.budget.stage_cpu_s
    before = recorded_budget(last)
    if cpu_s <= before:
        raise BudgetExceeded(
            ErrorCode.STAGE_BUDGET_EXCEEDED,
            f"{stage} of {env.package.case_id} revision {env.revision} stopped at its CPU budget "
            f"of {before:g} s, and the budget is still {cpu_s:g} s; raise [budget] stage_cpu_s in "
            "the project config, then resume",
            stage=stage,
            cpu_budget_s=cpu_s,
            recorded_cpu_budget_s=before,
        )
    env.package.append_event(env.revision, "resumed", stage=stage, after_block=last["seq"])


def run_within_budget(spec: StageSpec, run: StageRun) -> StageResult:
    """``spec.run(run)`` with the configured CPU budget; an overrun is recorded as a block and
    raised (:class:`~vba_assets.errors.BudgetExceeded`). The caller holds the revision lock."""
    env = run.env
    cpu_s = env.project.budget.stage_cpu_s
    refuse_unraised_budget(env, spec.name)
    try:
        with stage_budget(spec.name, cpu_s):
            return spec.run(run)
    except BudgetExceeded as exc:
        block(env, spec.stage, exc, cpu_budget_s=cpu_s, cpu_spent_s=exc.detail.get("cpu_spent_s"))
        raise


__all__ = ["pending_budget_block", "refuse_unraised_budget", "run_within_budget"]
