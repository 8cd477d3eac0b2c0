"""``vba trial run``: one case, headless, through the same stage functions as the assets."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig
from vba_assets.domain.case.ids import validate_revision
from vba_assets.domain.llm.contract import Provider
from vba_assets.domain.llm.policy import DispatchBudget
from vba_assets.errors import ErrorCode, InputError
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.providers import provider_factory, recorded_dispatches
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
from vba_assets.store import Workspace

StopAfter = Literal["case", "resolution", "interpretation"]
STOP_AFTER: tuple[StopAfter, ...] = ("case", "resolution", "interpretation")


@dataclass
class TrialReport:
    case_id: str
    revision: str
    stop_after: StopAfter
    stages: list[StageResult] = field(default_factory=list)
    dispatches_this_run: int = 0
    dispatches_total: int = 0

    def lines(self) -> list[str]:
        out = [f"{self.case_id} revision {self.revision} (stop after {self.stop_after})"]
        for stage in self.stages:
            state = "reused" if stage.reused else "done"
            out.append(f"  {stage.stage:<22} {stage.status:<9} {state:<7} {stage.sha256[:16]}")
        out.append(
            f"  model requests: {self.dispatches_this_run} this run, "
            f"{self.dispatches_total} recorded for the revision"
        )
        return out


def run_trial(
    workspace: Workspace,
    case_id: str,
    revision: str,
    project: ProjectConfig,
    llm: LlmConfig,
    *,
    stop_after: StopAfter,
    max_dispatches: int,
    package_id: str | None = None,
    open_db: Callable[[], Any] | None = None,
    provider: Provider | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> TrialReport:
    """Run the stages of one revision up to ``stop_after`` (which includes resolution).

    ``open_db`` and ``provider`` override the configured world DB and model provider (tests, eval).
    """
    if stop_after not in STOP_AFTER:
        raise InputError(
            ErrorCode.REPORT_INVALID_FIELD, f"--stop-after must be one of {STOP_AFTER}"
        )
    package = workspace.case(case_id)
    package.read_bytes("case.json")  # ARTIFACT_MISSING names the case if it was never imported
    if package_id is not None:
        recorded = package.read_json("package.json").get("package_id")
        if recorded != package_id:
            raise InputError(
                ErrorCode.INVALID_PACKAGE_ID,
                f"case {case_id} is package {recorded!r}, not {package_id!r}",
            )
    env = RevisionEnv(
        package=package,
        revision=validate_revision(revision),
        project=project,
        llm=llm,
        budget=DispatchBudget(max_dispatches=max_dispatches),
        clock=clock,
    )
    report = TrialReport(case_id, revision, stop_after)
    if stop_after == "case":
        return report
    world = WorldAccess(open_db or (lambda: WorldDatabase.from_config(project)))
    make_provider = (lambda: provider) if provider is not None else None
    provider_for = make_provider or provider_factory(env, llm, project, world)
    try:
        with package.lock(env.revision):
            report.stages.append(run_plan(env, provider_for, world))
            report.stages.append(run_captures(env, world))
            report.stages.append(run_candidate_index(env))
            report.stages.append(run_assessment(env, provider_for))
            if stop_after == "interpretation":
                report.stages.append(run_interpretation(env, provider_for))
    finally:
        world.close()
        report.dispatches_this_run = env.budget.used
        report.dispatches_total = len(recorded_dispatches(env))
    return report
