"""Roles by what fails (issue 29 item 1) through the ``interpret_cases`` job.

Two made-up reports run on a real (temporary) Dagster instance with the embedded world DB and the
heuristic provider, whose replies here test quality (the roles the plan gives, the interpretation
that cites them), not only plumbing:

* a list shares its failure: "tame Qirot or a Hive'Zara Wasp" when the title says the wasp cannot
  be tamed (before issue 29 item 1, Qirot was context: it had no cue of its own);
* a failure said through a pronoun ("you cannot click him again") and an exception ("except
  Brother Keltan") in one report.
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

LIST = {
    "case_id": "BUG-ROLE-LIST",
    "title": "[BM Hunter] Can't tame a Wasp",
    "body": "I've tamed others. But when I tried to tame Qirot or a Hive'Zara Wasp my tame "
    "ability said I was targetting an invalid target.",
    "reported_at": "2026-12-07T12:00:00+00:00",
    "reporter": "Tester",
}
PRONOUN = {
    "case_id": "BUG-ROLE-PRONOUN",
    "title": "Icecrown gunship",
    "body": "All npcs on the deck are friendly to the Horde (except Brother Keltan). The "
    "Kor'kron Primalist does not heal. While Kor'kron Battle-Mage is fighting the adds you "
    "cannot click him again.",
    "reported_at": "2026-12-07T12:00:00+00:00",
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


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _revision(workspace: Workspace, case_id: str) -> Path:
    return workspace.case(case_id).path("analysis/interpretations/0001")


def _roles(workspace: Workspace, case_id: str) -> dict[str, str]:
    """Name -> role of the selected entities of the revision's resolution context."""
    context = _json(_revision(workspace, case_id) / "entity-resolution" / "context.json")
    return {entity["name"]: entity["role"] for entity in context["selected"]}


def _cited_subjects(workspace: Workspace, case_id: str) -> dict[str, list[str]]:
    """Selected name -> the quotes the interpretation cites it with as an affected subject."""
    revision = _revision(workspace, case_id)
    context = _json(revision / "entity-resolution" / "context.json")
    names = {entity["alias"]: entity["name"] for entity in context["selected"]}
    interpretation = _json(revision / "interpretation.json")["interpretation"]
    return {
        names[subject["ref"]]: [mention["quote"] for mention in subject["mentions"]]
        for subject in interpretation["affected_subjects"]
        if subject["ref"] in names
    }


def test_list_items_and_pronouns_make_affected_subjects_through_the_job(tmp_path: Path) -> None:
    workspace = _run(tmp_path, LIST, PRONOUN)

    # (a) both items of the list fail, and the interpretation cites each as affected
    assert _roles(workspace, "BUG-ROLE-LIST") == {
        "Qirot": "affected_subject",
        "Hive'Zara Wasp": "affected_subject",
    }
    assert _cited_subjects(workspace, "BUG-ROLE-LIST") == {
        "Qirot": ["Qirot"],
        "Hive'Zara Wasp": ["Hive'Zara Wasp"],
    }

    # (b) the exception is context; the creature said to fail through "him" is affected beside
    # the one with a failure of its own
    assert _roles(workspace, "BUG-ROLE-PRONOUN") == {
        "Brother Keltan": "other_context",
        "Kor'kron Primalist": "affected_subject",
        "Kor'kron Battle-Mage": "affected_subject",
    }
    cited = _cited_subjects(workspace, "BUG-ROLE-PRONOUN")
    assert sorted(cited) == ["Kor'kron Battle-Mage", "Kor'kron Primalist"]
    assert cited["Kor'kron Battle-Mage"] == ["Kor'kron Battle-Mage"]
