"""Misspelled and lower-case boss names (issue 29 item 5, recall) through the ``interpret_cases``
job.

A report that writes its bosses only in lower case or misspelled ("kalegos", "yogg saron",
"vezax") gave the planner no span to search before. Run on a real (temporary) Dagster instance
with the embedded world DB and the heuristic provider, the plan the controller accepted searches
each by a literal part of the report, and the capture of that search holds the boss (quality of
the plan and of the capture, not the assessment's selection).
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
    "case_id": "BUG-RECALL-LOWER",
    "title": "raid bugs this week",
    "body": "on the timewalking realm kalegos does not leave the platform after the fight. "
    "in ulduar yogg saron does not engage and we could not get past vezax either.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}
#: The boss each written form names: Kalecgos (24850 or its dragon form 24844), Yogg-Saron,
#: General Vezax.
EXPECTED = {"kalegos": {24850, 24844}, "yogg saron": {33288}, "vezax": {33271}}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_lower_case_and_misspelled_boss_names_are_searched_through_the_job(
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
    body = REPORT["body"]
    captures = [_json(path) for path in (resolution / "captures").iterdir()]
    searched = [c for c in captures if "result" in c and "search" in c]
    for written, identities in EXPECTED.items():
        covering = [c for c in searched if c["search"]["term"].casefold() in written.casefold()]
        assert covering, (written, [c["search"]["term"] for c in searched])
        assert all(c["search"]["term"] in body for c in covering)  # literal parts of the report
        rows = {row["identity"] for c in covering for row in c["result"]["rows"]}
        assert rows & identities, (written, rows)
