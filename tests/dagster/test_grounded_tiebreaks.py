"""Grounded tie-breaks (issue 29 item 4, protocol v6) through the ``interpret_cases`` job.

The demo world DB holds two creatures named "Chef Jessen": 2430 starts the quest "Soothing Turtle
Bisque", 20378 starts none. Name equality cannot tell them apart. A report that names the quest
breaks the tie (the quest relations are recorded in the search's capture and the verdict cites the
relation row and the report span); the same name without a grounded fact stays ambiguous. Both run
on a real (temporary) Dagster instance with the embedded world DB and the heuristic provider,
whose replies here test quality (the selection), not only plumbing.
"""

import json
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from resources.world_db import WorldDatabase
from tests.dagster.support import embedded_project_file, register
from vba_assets.definitions import JOB_NAME, build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.intake import import_report
from vba_assets.pipeline.verification import verify_revision
from vba_assets.store import Workspace

QUEST = {
    "case_id": "BUG-TIE-QUEST",
    "title": "Chef Jessen quest broken",
    "body": "Chef Jessen does not accept Soothing Turtle Bisque when I bring the turtle meat. "
    "The dialog just closes.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Tester",
}
NO_FACT = {
    "case_id": "BUG-TIE-NONE",
    "title": "Chef Jessen stands inside a wall",
    "body": "Chef Jessen stands inside the wall of the inn and cannot be clicked.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Tester",
}


def _run(tmp_path: Path, *reports: dict[str, Any]) -> Workspace:
    project_file = embedded_project_file(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    for report in reports:
        report_file = tmp_path / f"{report['case_id']}.json"
        report_file.write_text(json.dumps(report), encoding="utf-8")
        import_report(workspace, report_file)
    defs = build_definitions(
        project=ProjectResource(project_config=str(project_file)),
        world_db=WorldDatabaseResource(project_config=str(project_file)),
        llm=LlmResource(),
    )
    with dg.instance_for_test() as instance:
        register(instance, *(report["case_id"] for report in reports))
        for report in reports:
            result = defs.resolve_job_def(JOB_NAME).execute_in_process(
                partition_key=f"{report['case_id']}|0001", instance=instance
            )
            assert result.success
    return workspace


def _resolution(workspace: Workspace, case_id: str) -> Path:
    return workspace.case(case_id).path("analysis/interpretations/0001/entity-resolution")


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def verify_without_database(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, *case_ids: str
) -> None:
    """Revision 0001 of each case verifies while every world-database query fails: replay and
    verification read the recorded captures, never the database."""

    def unavailable(*args: object, **kwargs: object) -> None:
        raise AssertionError("the world database was queried during verification")

    for name in ("contains_search", "exact_name_search", "quest_relations", "zone_markers"):
        monkeypatch.setattr(WorldDatabase, name, unavailable)
    for case_id in case_ids:
        report = verify_revision(workspace.case(case_id), "0001")
        assert report.ok, report.findings


def _jessen_capture(resolution: Path) -> dict[str, Any]:
    captures = [_json(path) for path in (resolution / "captures").iterdir()]
    (capture,) = [c for c in captures if c["search"]["term"] == "Chef Jessen"]
    assert isinstance(capture, dict)
    return capture


def test_a_named_quest_breaks_a_same_name_tie_and_no_fact_keeps_it_ambiguous(
    tmp_path: Path,
) -> None:
    workspace = _run(tmp_path, QUEST, NO_FACT)

    # (a) the quest the report names tells 2430 apart, cited with its relation row and span
    resolution = _resolution(workspace, "BUG-TIE-QUEST")
    capture = _jessen_capture(resolution)
    relations = capture["quest_relations"]
    assert relations["identities"] == [2430, 20378]
    assert "creature_queststarter" in relations["sql"] and "'" not in relations["sql"]
    assert not relations["truncated"]
    assessment = _json(resolution / "assessment.json")["assessment"]["assessments"]
    (verdict,) = [v for v in assessment if "tiebreak" in v]
    tiebreak = verdict["tiebreak"]
    assert verdict["status"] == "selected"
    assert tiebreak["fact"] == "quest"
    assert tiebreak["span"]["quote"] == "Soothing Turtle Bisque"
    body = QUEST["body"]
    assert body[tiebreak["span"]["start"] : tiebreak["span"]["end"]] == "Soothing Turtle Bisque"
    row = relations["rows"][tiebreak["relation_row"]]
    assert (row["identity"], row["relation"], row["title"]) == (
        2430,
        "starts",
        "Soothing Turtle Bisque",
    )
    context = _json(resolution / "context.json")
    assert (2430, "Chef Jessen") in [(n["identity"], n["name"]) for n in context["selected"]]
    dispatches = sorted(p.name for p in (resolution / "dispatches").iterdir())
    assert [d for d in dispatches if d.endswith(".json") and "manifest" not in d] == [
        "resolution_assessment-1.json",
        "resolution_plan-1.json",
    ]

    # (b) the same name with no grounded fact stays ambiguous (both identities competing)
    resolution = _resolution(workspace, "BUG-TIE-NONE")
    capture = _jessen_capture(resolution)
    assert capture["quest_relations"]["identities"] == [2430, 20378]
    context = _json(resolution / "context.json")
    assert not [n for n in context["selected"] if n["name"] == "Chef Jessen"]
    (unresolved,) = [d for d in context["unresolved"] if d["term"] == "Chef Jessen"]
    assert unresolved["status"] == "ambiguous"
    assert sorted(unresolved["candidate_identities"]) == [2430, 20378]
