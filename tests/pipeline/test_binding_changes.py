"""A changed snapshot or catalog at any unfinished stage is refused before anything is spent.

The revision is frozen with the demo world DB (snapshot label ``demo-wotlk-3.3.5``) and both
catalogs. Then each stage in turn is left unfinished and run again under a changed binding: the
snapshot label of the world DB, or the catalogs of the project config. Each attempt must fail with
``ENTITY_RESOLUTION_BINDING_CHANGED`` having sent no model request and made no catalog query,
and leave no new file. A config that no longer enables entity resolution is refused with
``ENTITY_RESOLUTION_SETTING_CHANGED``; a revision frozen without it is never enriched, and says so.
"""

from pathlib import Path
from typing import Any

import pytest

from resources.world_db import WorldDatabase
from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.layout import REV1
from tests.pipeline.support import (
    LLM,
    QUEST,
    assess_exact,
    imported,
    interpret,
    plan_reply,
    project_config,
)
from tests.pipeline.tamper import package_files
from vba_assets.config import ProjectConfig
from vba_assets.domain.llm.policy import DispatchBudget
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.pipeline.registry import STAGE_SPECS, stage_spec
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stage_runs import StageResult, StageRun, WorldAccess
from vba_assets.pipeline.trial import run_trial
from vba_assets.store import CasePackage

CASE = "BUG-000020"


class CountingWorld:
    """The demo world DB, counting every catalog query (a snapshot binding is not a query)."""

    def __init__(self, project: ProjectConfig) -> None:
        self.database = WorldDatabase.from_config(project)
        self.queries = 0

    def snapshot_binding(self) -> Any:
        return self.database.snapshot_binding()

    def contains_search(self, *args: Any) -> Any:
        self.queries += 1
        return self.database.contains_search(*args)

    def fetch_by_identity(self, *args: Any) -> Any:
        self.queries += 1
        return self.database.fetch_by_identity(*args)

    def close(self) -> None:
        self.database.close()


def script(case_doc: dict[str, Any]) -> ScriptedProvider:
    return ScriptedProvider(
        {
            "resolution_plan": [plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )


def run_stage(
    package: CasePackage,
    project: ProjectConfig,
    stage: Stage,
    provider: ScriptedProvider,
    world: CountingWorld,
    max_dispatches: int = 6,
) -> StageResult:
    env = RevisionEnv(
        package=package,
        revision="0001",
        project=project,
        llm=LLM,
        budget=DispatchBudget(max_dispatches=max_dispatches),
    )
    run = StageRun(env, WorldAccess(lambda: world), lambda: provider)
    with package.lock("0001"):
        return stage_spec(stage).run(run)


def changed(project: ProjectConfig, root: Path, change: str) -> ProjectConfig:
    if change == "snapshot":
        return project.model_copy(
            update={
                "database": project.database.model_copy(update={"snapshot_label": "demo-other"})
            }
        )
    resolution = project.entity_resolution
    assert resolution is not None
    return project.model_copy(
        update={
            "entity_resolution": resolution.model_copy(update={"catalogs": project.catalogs[:1]})
        }
    )


UNFINISHED = [
    Stage.RESOLUTION_PLAN,
    Stage.RESOLUTION_CAPTURES,
    Stage.RESOLUTION_ASSESSMENT,
    Stage.INTERPRETATION,
]


@pytest.mark.parametrize("change", ["snapshot", "catalogs"])
@pytest.mark.parametrize("unfinished", UNFINISHED, ids=lambda stage: stage.value)
def test_a_changed_binding_at_an_unfinished_stage_is_refused_before_anything_is_spent(
    tmp_path: Path, unfinished: Stage, change: str
) -> None:
    _workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    case_doc = package.read_json("case.json")
    provider = script(case_doc)
    world = CountingWorld(project)
    # everything before the unfinished stage, with the binding it was frozen with
    stages = [spec.stage for spec in STAGE_SPECS if spec.stage is not Stage.CASE]
    before = stages[: stages.index(unfinished)]
    if unfinished is Stage.RESOLUTION_PLAN:  # frozen, then stopped before its model call
        with pytest.raises(Exception) as stopped:
            run_stage(package, project, unfinished, provider, world, max_dispatches=0)
        assert "LLM_MAX_DISPATCHES" in str(stopped.value)
        assert package.exists(REV1.input) and not package.exists(REV1.plan)
    for stage in before:
        run_stage(package, project, stage, provider, world)
    files, calls, queries = package_files(package.root), list(provider.calls), world.queries

    other_world = CountingWorld(changed(project, tmp_path, change))
    with pytest.raises(StoreError) as refused:
        run_stage(package, changed(project, tmp_path, change), unfinished, provider, other_world)

    assert refused.value.code is ErrorCode.ENTITY_RESOLUTION_BINDING_CHANGED
    assert ("snapshot binding" if change == "snapshot" else "catalogs") in refused.value.message
    assert provider.calls == calls  # no model request
    assert other_world.queries == 0 and world.queries == queries  # no catalog query
    assert package_files(package.root) == files  # nothing written but the log
    world.close()
    other_world.close()


def test_accepted_stages_are_reused_under_any_binding(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    run_trial(
        workspace, CASE, "0001", project, LLM, stop_after="interpretation", max_dispatches=6,
        provider=script(package.read_json("case.json")),
    )  # fmt: skip
    for change in ("snapshot", "catalogs"):
        report = run_trial(
            workspace, CASE, "0001", changed(project, tmp_path, change), LLM,
            stop_after="interpretation", max_dispatches=0, provider=ScriptedProvider({}),
        )  # fmt: skip
        assert all(stage.reused for stage in report.stages)


def test_a_config_without_entity_resolution_is_refused_for_an_unfinished_resolved_revision(
    tmp_path: Path,
) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    provider = script(package.read_json("case.json"))
    run_trial(
        workspace, CASE, "0001", project, LLM, stop_after="resolution", max_dispatches=6,
        provider=provider,
    )  # fmt: skip
    calls = list(provider.calls)
    with pytest.raises(StoreError) as refused:
        run_trial(
            workspace, CASE, "0001", project_config(tmp_path / "ws", resolution=False), LLM,
            stop_after="interpretation", max_dispatches=6, provider=provider,
        )  # fmt: skip
    assert refused.value.code is ErrorCode.ENTITY_RESOLUTION_SETTING_CHANGED
    assert "frozen with entity resolution enabled" in refused.value.message
    assert provider.calls == calls
    assert not package.exists(REV1.interpretation)


def test_a_revision_frozen_without_resolution_is_not_enriched_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace, package = imported(tmp_path)
    provider = script(package.read_json("case.json"))
    run_trial(
        workspace, CASE, "0001", project_config(tmp_path / "ws", resolution=False), LLM,
        stop_after="resolution", max_dispatches=6, provider=provider,
    )  # fmt: skip
    report = run_trial(
        workspace, CASE, "0001", project_config(tmp_path / "ws"), LLM,
        stop_after="interpretation", max_dispatches=6, provider=provider,
    )  # fmt: skip
    assert [s.status for s in report.stages[:4]] == ["disabled"] * 4
    assert package.read_json(REV1.interpretation)["prompt"] == "unresolved"
    notices = {s.metadata.get("frozen_setting") for s in report.stages}
    assert any(n and n.startswith("ENTITY_RESOLUTION_SETTING_CHANGED") for n in notices)
    assert any("ENTITY_RESOLUTION_SETTING_CHANGED" in line for line in report.lines())
    assert not package.list_dir(REV1.captures_dir)
