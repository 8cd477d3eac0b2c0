"""Real later-expansion creatures the 3.3.5 catalog does not hold (issue 29: no selection for a
mention with no gold entry) through the ``interpret_cases`` job.

"Commander Durand" and "Dealer Vijaad" (Questie's Cataclysm / Mists of Pandaria NPC data) are
near spellings of the 3.3.5 "Commander Duron" and "Dealer Zijaad", and "rockshell snapclaw" (lower
case, as the recall merge's phrase lookup reads it) of "Muckshell Snapclaw". Run on a real
(temporary) Dagster instance with the embedded world DB and the heuristic provider, each is
searched, the capture holds the look-alike, and the accepted assessment selects none of them
(quality of the assessment's near-spelling rule, protocol v6); a reporter's misspelling in the
same report ("Muckshel Snapclaw") is still selected.
"""

import json
from pathlib import Path
from typing import Any

import dagster as dg

from tests.dagster.support import embedded_project_file, register
from vba_assets.definitions import JOB_NAME, build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.intake import import_report
from vba_assets.store import Workspace

REPORT = {
    "case_id": "BUG-LATER-NAMES",
    "title": "npcs broken on the new realm",
    "body": "Commander Durand does not talk to me. I cannot buy from Dealer Vijaad at all.\n"
    "the rockshell snapclaw is bugged, it evades. I also cannot kill Muckshel Snapclaw.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}
#: The 3.3.5 look-alikes: Commander Duron, Dealer Zijaad, Muckshell Snapclaw.
LOOK_ALIKES = {19229, 19535}
MUCKSHELL = 4402


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_later_names_near_catalog_names_are_not_selected_through_the_job(
    tmp_path: Path,
) -> None:
    project_file = embedded_project_file(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    report_file = tmp_path / "report.json"
    report_file.write_text(json.dumps(REPORT), encoding="utf-8")
    import_report(workspace, report_file)
    defs = build_definitions(
        project=ProjectResource(project_config=str(project_file)),
        world_db=WorldDatabaseResource(project_config=str(project_file)),
        llm=LlmResource(),
    )
    with dg.instance_for_test() as instance:
        register(instance, REPORT["case_id"])
        result = defs.resolve_job_def(JOB_NAME).execute_in_process(
            partition_key=f"{REPORT['case_id']}|0001", instance=instance
        )
        assert result.success
    resolution = workspace.case(REPORT["case_id"]).path(
        "analysis/interpretations/0001/entity-resolution"
    )
    captures = [_json(path) for path in (resolution / "captures").iterdir()]
    rows = {
        row["identity"]: row
        for capture in captures
        if "result" in capture
        for row in capture["result"]["rows"]
    }
    assert set(rows) >= LOOK_ALIKES  # searched and captured: the assessment decided
    assessment = _json(resolution / "assessment.json")["assessment"]["assessments"]
    candidates = _json(resolution / "candidates.json")
    selected_ids = {a["candidate_id"] for a in assessment if a["status"] == "selected"}
    identities = {
        candidate_id: candidate["identity"]
        for search in candidates["searches"]
        for candidate_id, candidate in zip(
            search["candidate_ids"], search["candidates"], strict=True
        )
    }
    chosen = {identities[candidate_id] for candidate_id in selected_ids}
    assert chosen == {MUCKSHELL}, (chosen, assessment)  # the misspelling is still selected
