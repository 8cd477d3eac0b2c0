"""A report that links a creature, materialized through the project's own ``interpret_cases`` job.

The path the mission names (UI materialization, backfills) once failed here at
``resolution_captures`` with ``AttributeError: 'WorldDatabaseResource' object has no attribute
'identity_search'`` while every CLI test passed: the Dagster resource forwarded a hand-picked subset
of the database's methods. The resource now yields the database itself (typed by the domain's
``ReadOnlyWorldDatabase`` Protocol); this test runs the job of :func:`build_definitions` on a real
(temporary) Dagster instance with the embedded world DB and the heuristic provider.
"""

import json
from pathlib import Path

import dagster as dg

from tests.dagster.support import embedded_project_file, register
from vba_assets.definitions import JOB_NAME, build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.intake import import_report
from vba_assets.store import Workspace

REPORT = {
    "case_id": "BUG-LINKED-1",
    "title": "Mankrik has no quest marker",
    "body": "[Mankrik](https://www.wowhead.com/npc=3432) in the Crossroads has no quest marker "
    "and offers me nothing, although I have not done Lost in Battle yet.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Orgrimmar-Tester",
}


def test_a_linked_report_selects_the_linked_creature_through_the_job(tmp_path: Path) -> None:
    project_file = embedded_project_file(tmp_path)
    report_file = tmp_path / "report.json"
    report_file.write_text(json.dumps(REPORT), encoding="utf-8")
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, report_file)
    defs = build_definitions(
        project=ProjectResource(project_config=str(project_file)),
        world_db=WorldDatabaseResource(project_config=str(project_file)),
        llm=LlmResource(),
    )
    with dg.instance_for_test() as instance:
        register(instance, "BUG-LINKED-1")
        result = defs.resolve_job_def(JOB_NAME).execute_in_process(
            partition_key="BUG-LINKED-1|0001", instance=instance
        )
    assert result.success
    resolution = workspace.case("BUG-LINKED-1").path(
        "analysis/interpretations/0001/entity-resolution"
    )
    context = json.loads((resolution / "context.json").read_text(encoding="utf-8"))
    assert [(n["identity"], n["name"]) for n in context["selected"]] == [(3432, "Mankrik")]
    (capture_file,) = (resolution / "captures").iterdir()
    capture = json.loads(capture_file.read_text(encoding="utf-8"))
    assert capture["result"]["identity"] == 3432  # fetched by the link's identity
