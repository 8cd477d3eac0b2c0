"""``vba trial run``: one case, headless, through the same stage functions as the assets."""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig
from vba_assets.domain.case.ids import validate_revision
from vba_assets.domain.catalog.world import ReadOnlyWorldDatabase
from vba_assets.domain.clock import utc_now
from vba_assets.domain.llm.contract import Provider
from vba_assets.domain.llm.policy import DispatchBudget
from vba_assets.domain.stages import STOP_POINTS, Stage
from vba_assets.errors import ErrorCode, InputError
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.providers import provider_factory
from vba_assets.pipeline.recorder import count_dispatch_records
from vba_assets.pipeline.registry import specs_until
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stage_budget import run_within_budget
from vba_assets.pipeline.stage_runs import StageResult, StageRun, WorldAccess
from vba_assets.store import Workspace
from vba_assets.store.layout import CASE_JSON, PACKAGE_JSON

StopAfter = Literal["case", "resolution", "interpretation"]


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
            out.append(f"  {stage_line(stage)}")
        out.append(
            f"  model requests: {self.dispatches_this_run} this run, "
            f"{self.dispatches_total} recorded for the revision"
        )
        notices = dict.fromkeys(
            str(s.metadata["frozen_setting"])
            for s in self.stages
            if s.metadata.get("frozen_setting")
        )
        out += [f"  note: {notice}" for notice in notices]
        return out


def stage_line(stage: StageResult) -> str:
    """``<stage> <status> done|reused <sha256 prefix>``: one row of the report."""
    state = "reused" if stage.reused else "done"
    return f"{stage.stage.value:<22} {stage.status:<9} {state:<7} {stage.sha256[:16]}"


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
    open_db: Callable[[], ReadOnlyWorldDatabase] | None = None,
    provider: Provider | None = None,
    clock: Callable[[], datetime] = utc_now,
    progress: Callable[[str], None] | None = None,
) -> TrialReport:
    """Run the stages of one revision after the case, up to ``stop_after`` (which includes
    resolution); every stage of :data:`~vba_assets.pipeline.registry.STAGE_SPECS` in order.

    ``open_db`` and ``provider`` override the configured world DB and model provider (tests, eval).
    ``progress`` gets one line per stage as it finishes (its report row and its seconds).
    """
    if stop_after not in STOP_POINTS:
        raise InputError(
            ErrorCode.REPORT_INVALID_FIELD, f"--stop-after must be one of {list(STOP_POINTS)}"
        )
    package = workspace.case(case_id)
    package.read_bytes(CASE_JSON)  # ARTIFACT_MISSING names the case if it was never imported
    if package_id is not None:
        recorded = package.read_json(PACKAGE_JSON).get("package_id")
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
    specs = [s for s in specs_until(STOP_POINTS[stop_after]) if s.stage is not Stage.CASE]
    if not specs:
        return report
    world = WorldAccess(open_db or (lambda: WorldDatabase.from_config(project)))
    run = StageRun(
        env,
        world,
        (lambda: provider) if provider is not None else provider_factory(env, world),
    )
    try:
        with package.lock(env.revision):
            for spec in specs:
                started = time.monotonic()
                report.stages.append(run_within_budget(spec, run))
                if progress is not None:
                    seconds = time.monotonic() - started
                    progress(f"{stage_line(report.stages[-1])} ({seconds:.1f} s)")
    finally:
        world.close()
        report.dispatches_this_run = env.budget.used
        report.dispatches_total = count_dispatch_records(package, env.layout)
    return report
