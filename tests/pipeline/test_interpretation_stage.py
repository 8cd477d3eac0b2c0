"""The interpretation stage: rule violations are corrected or exhaust the budget; dates never drift."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.pipeline.support import (
    LLM,
    QUEST,
    assess_exact,
    imported,
    interpret,
    plan_reply,
    project_config,
    run,
)
from vba_assets.errors import ErrorCode, ModelError
from vba_assets.pipeline.trial import run_trial

REV_DIR = "analysis/interpretations/0001"


def drops_the_quest_giver(context: dict) -> dict:
    reply = interpret(context)
    reply["context_entities"] = []  # N2 (Goldark Snipehunter) silently lost
    return reply


def script(case_doc: dict, *interpretations: object) -> ScriptedProvider:
    return ScriptedProvider(
        {
            "resolution_plan": [plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": list(interpretations),
        }
    )


def test_a_lost_selected_entity_is_rejected_and_corrected(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    provider = script(
        package.read_json("case.json"),
        from_stage_context(drops_the_quest_giver),
        from_stage_context(interpret),
    )
    report = run(workspace, "BUG-000020", project_config(tmp_path / "ws"), provider)
    assert report.dispatches_this_run == 4  # plan, assessment, two interpretation attempts
    rejected = package.read_json(f"{REV_DIR}/rejected/interpretation-1.json")
    assert [(i["code"], i.get("subject")) for i in rejected["issues"]] == [
        (ErrorCode.INTERPRETATION_SELECTION_NOT_RETAINED.value, "N2")
    ]
    accepted = package.read_json(f"{REV_DIR}/interpretation.json")
    assert [e["ref"] for e in accepted["interpretation"]["context_entities"]] == ["N2"]
    assert accepted["accepted_dispatch"] == "dispatches/interpretation-2.json"


def test_exhausted_interpretation_corrections_block_the_case(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws", max_invalid_responses=2)
    bad = from_stage_context(drops_the_quest_giver)
    with pytest.raises(ModelError) as excinfo:
        run(workspace, "BUG-000020", project, script(package.read_json("case.json"), bad, bad))
    assert excinfo.value.code is ErrorCode.INTERPRETATION_INVALID_RESPONSES
    assert not package.exists(f"{REV_DIR}/interpretation.json")
    assert package.exists("analysis/interpretations/0001/entity-resolution/context.json")
    blocked = [e for e in package.read_events("0001") if e["event"] == "blocked"]
    assert blocked[-1]["code"] == "INTERPRETATION_INVALID_RESPONSES"


def _interpret_on(day: datetime, tmp_path: Path) -> list[dict]:
    workspace, package = imported(tmp_path, "BUG-000021")  # German: "gestern Abend", "letzte Woche"
    run_trial(
        workspace,
        "BUG-000021",
        "0001",
        project_config(tmp_path / "ws"),
        LLM,
        stop_after="interpretation",
        max_dispatches=6,
        clock=lambda: day,  # the pipeline's only clock: events, blocks and retries
    )
    body = package.read_json(f"{REV_DIR}/interpretation.json")["interpretation"]
    return body["time_references"]


def test_the_same_case_on_different_days_resolves_the_same_dates(tmp_path: Path) -> None:
    first = _interpret_on(datetime(2026, 9, 30, 8, 0, tzinfo=UTC), tmp_path / "a")
    second = _interpret_on(datetime(2027, 3, 1, 23, 0, tzinfo=UTC), tmp_path / "b")
    assert first, "the German sample has relative dates to resolve"
    assert first == second
    assert all(t["anchor"] == "reported_at" for t in first)
