"""An edited GitHub issue is a new revision of its case, run through ``interpret_cases``.

Revision ``0001`` interprets the issue as first imported (it links Mankrik); the issue's body is
then edited to link Hogger and imported again: report version ``0002`` and revision ``0002``
that freezes it. The inbox sensor's partition list holds both revisions, the job (the project's
own, on a real temporary instance, embedded world DB, heuristic provider) runs ``0002`` and
selects what the edited report says, ``0001`` keeps every byte and both revisions verify.
"""

import copy
import json
from pathlib import Path

import dagster as dg

from tests.dagster.support import embedded_project_file, register
from tests.fakes.github_issue import REPO, rest_issue
from vba_assets.definitions import JOB_NAME, build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.sensors import build_inbox_sensor, workspace_partitions
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import Workspace
from vba_assets.store.versions import revision_report_version
from vba_assets.tracker.github_issues import SkippedIssue, case_id_for, map_issue
from vba_assets.tracker.issue_import import import_github_issues

ISSUE = rest_issue(
    77,
    "Quest giver has no quest marker",
    "[Mankrik](https://www.wowhead.com/npc=3432) in the Crossroads has no quest marker "
    "and offers me nothing, although I have not done Lost in Battle yet.",
    at="2026-11-30T18:00:00Z",
)
CASE = case_id_for(REPO, 77)


def _selected(workspace: Workspace, revision: str) -> list[tuple[int, str]]:
    folder = workspace.case(CASE).path(f"analysis/interpretations/{revision}/entity-resolution")
    context = json.loads((folder / "context.json").read_text(encoding="utf-8"))
    return [(n["identity"], n["name"]) for n in context["selected"]]


def _files(root: Path, below: str) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in (root / below).rglob("*") if p.is_file()
    }


def test_an_edited_issue_is_a_new_partition_that_interprets_the_edited_report(
    tmp_path: Path,
) -> None:
    project_file = embedded_project_file(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    assert [r.status for _, r in import_github_issues(workspace, [(ISSUE, [])]).imported] == [
        "imported"
    ]
    defs = build_definitions(
        project=ProjectResource(project_config=str(project_file)),
        world_db=WorldDatabaseResource(project_config=str(project_file)),
        llm=LlmResource(),
    )
    job = defs.resolve_job_def(JOB_NAME)
    with dg.instance_for_test() as instance:
        register(instance, CASE)
        assert job.execute_in_process(partition_key=f"{CASE}|0001", instance=instance).success
        assert _selected(workspace, "0001") == [(3432, "Mankrik")]
        package = workspace.case(CASE)
        first = _files(package.root, "analysis/interpretations/0001")
        top = {name: package.read_bytes(name) for name in ("case.json", "package.json")}

        edited = copy.deepcopy(ISSUE)
        edited["body"] = (
            "Sorry, wrong name: [Hogger](https://www.wowhead.com/npc=448) in Elwynn Forest "
            "does not attack me and cannot be killed for the quest."
        )
        edited["updated_at"] = "2026-12-01T09:00:00Z"
        outcome = import_github_issues(workspace, [(edited, [])])
        assert [(r.status, r.report_version, r.revision) for _, r in outcome.revised] == [
            ("revised", "0002", "0002")
        ]
        partitions = [(c, r) for c, r, _ in workspace_partitions(workspace)]
        assert partitions == [(CASE, "0001"), (CASE, "0002")]
        register(instance, CASE, revision="0002")
        result = job.execute_in_process(partition_key=f"{CASE}|0002", instance=instance)
        assert result.success
        case_event = next(
            e
            for e in result.get_asset_materialization_events()
            if e.asset_key == dg.AssetKey("case")
        )
        meta = case_event.materialization.metadata
        assert meta["report_version"] == dg.TextMetadataValue("0002")

    assert _selected(workspace, "0002") == [(448, "Hogger")]
    frozen = json.loads(package.read_bytes("analysis/interpretations/0002/input.json"))
    assert frozen["case_sha256"] == package.artifact_ref("reports/0002/case.json").sha256
    manifest = json.loads(
        package.read_bytes(
            "analysis/interpretations/0002/dispatches/interpretation-1.manifest.json"
        )
    )
    case_items = [i["source"] for i in manifest["items"] if "case.json" in i["source"]]
    assert case_items and all(s.startswith("reports/0002/case.json#/") for s in case_items)
    # nothing of revision 0001 or of the first report version changed
    assert _files(package.root, "analysis/interpretations/0001") == first
    assert {name: package.read_bytes(name) for name in top} == top
    report = verify_case(package)
    assert [r.revision for r in report.revisions] == ["0001", "0002"]
    assert [f.line() for f in report.all_findings() if f.is_error] == []


def test_the_inbox_sensor_imports_an_edited_report_as_a_revision_and_requests_its_run(
    tmp_path: Path,
) -> None:
    """The edited issue's report dropped in the inbox: the sensor's one evaluation imports it as
    revision 0002, registers ``<case>|0002`` and requests its run (0001, never started, too)."""
    project_file = embedded_project_file(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    import_github_issues(workspace, [(ISSUE, [])])
    edited = {**ISSUE, "title": "Quest giver has no quest marker at night"}
    mapped = map_issue(edited)
    assert not isinstance(mapped, SkippedIssue)
    workspace.inbox_dir.mkdir(parents=True)
    (workspace.inbox_dir / "edited.json").write_bytes(mapped.report_json)
    sensor = build_inbox_sensor(JOB_NAME)
    resources = {"project": ProjectResource(project_config=str(project_file)), "llm": LlmResource()}
    with dg.instance_for_test() as instance:
        register(instance, CASE)
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            result = sensor(context)
    assert isinstance(result, dg.SensorResult)
    added = [k for r in result.dynamic_partitions_requests or [] for k in r.partition_keys]
    assert added == [f"{CASE}|0002"]
    assert sorted(r.run_key for r in result.run_requests or []) == [
        f"start:{CASE}|0001",
        f"start:{CASE}|0002",
    ]
    assert revision_report_version(workspace.case(CASE), "0002") == "0002"
