"""One entity per creature through the ``interpret_cases`` job and ``vba trial run`` (issue 29 item 2).

A made-up report names Cairne Bloodhoof (3057) in English and by his German localized name
``Cairne Bluthuf``, the latter next to a database URL with a ``?`` in it. The heuristic plans two
searches (the localized name, fetched by the link's identity, and the English name); both select
3057. Under protocol v6 (``merged_entities``) the resolution context has ONE N alias holding all
three mentions, the interpretation lists it once citing both names, and the observation sentence
with the URL is quoted whole (not split at the URL's ``?`` or ``.``). The job on a real (temporary)
Dagster instance and the CLI write the same bytes.
"""

import json
from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.support import embedded_project_file, register
from vba_assets.cli import main as vba
from vba_assets.definitions import JOB_NAME, build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource

CASE = "BUG-MERGE-1"
REV = "0001"
ER = f"analysis/interpretations/{REV}/entity-resolution"
URL_SENTENCE = (
    "On the German client Cairne Bluthuf (https://www.wowhead.com/npc=3057?lang=de) also offers "
    "nothing."
)
REPORT = {
    "case_id": CASE,
    "title": "Cairne Bloodhoof offers no quest",
    "body": f"Cairne Bloodhoof in Thunder Bluff has no quest marker. {URL_SENTENCE}\n"
    "Client 3.3.5a.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Thunder-Tester",
}
FILES = ("plan.json", "candidates.json", "assessment.json", "context.json")


def _project(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    project_file = embedded_project_file(folder)
    (folder / "report.json").write_text(json.dumps(REPORT), encoding="utf-8")
    assert vba(["import", "--project-config", str(project_file), str(folder / "report.json")]) == 0
    return project_file


def _check_one_entity(case_root: Path) -> None:
    context = json.loads((case_root / ER / "context.json").read_text(encoding="utf-8"))
    (entity,) = context["selected"]  # one N alias, not one per search
    assert (entity["alias"], entity["identity"], entity["name"]) == ("N1", 3057, "Cairne Bloodhoof")
    assert entity["search_id"] == "Q2" and entity["merged_search_ids"] == ["Q1"]
    assert [(m["source"], m["quote"]) for m in entity["mentions"]] == [
        ("S1", "Cairne Bloodhoof"),
        ("S2", "Cairne Bloodhoof"),
        ("S2", "Cairne Bluthuf"),
    ]
    assert [f["search_id"] for f in context["facts"]] == ["Q1", "Q2"]  # each search stays a fact
    doc = json.loads(
        (case_root / f"analysis/interpretations/{REV}/interpretation.json").read_text("utf-8")
    )
    output = doc["interpretation"]
    listed = [*output["affected_subjects"], *output["context_entities"]]
    assert [e["ref"] for e in listed] == ["N1"]
    assert {q["quote"] for q in listed[0]["mentions"]} == {"Cairne Bloodhoof", "Cairne Bluthuf"}
    statements = [o["statement"] for o in output["observations"]]
    assert f'body S2 says: "{URL_SENTENCE}"' in statements  # whole, with the URL's '?'
    lookups = [
        o["citations"] for o in output["observations"] if o["statement"].startswith("Lookup")
    ]
    assert lookups == [["F1", "N1"], ["F2", "N1"]]  # both searches' facts cite the one entity


@pytest.mark.slow
def test_english_and_german_names_are_one_entity_through_the_job_and_the_cli(
    tmp_path: Path,
) -> None:
    cli_config = _project(tmp_path / "cli")
    argv = ["trial", "run", "--project-config", str(cli_config), "--case-id", CASE]
    assert vba([*argv, "--stop-after", "interpretation"]) == 0
    cli_case = tmp_path / "cli" / "ws" / "cases" / CASE
    _check_one_entity(cli_case)

    dagster_config = _project(tmp_path / "dagster")
    defs = build_definitions(
        project=ProjectResource(project_config=str(dagster_config)),
        world_db=WorldDatabaseResource(project_config=str(dagster_config)),
        llm=LlmResource(),
    )
    with dg.instance_for_test() as instance:
        register(instance, CASE)
        result = defs.resolve_job_def(JOB_NAME).execute_in_process(
            partition_key=f"{CASE}|{REV}", instance=instance
        )
    assert result.success
    evaluations = result.get_asset_check_evaluations()
    assert evaluations and all(e.passed for e in evaluations), [
        (e.check_name, e.metadata) for e in evaluations if not e.passed
    ]
    dagster_case = tmp_path / "dagster" / "ws" / "cases" / CASE
    _check_one_entity(dagster_case)
    for name in FILES:
        assert (dagster_case / ER / name).read_bytes() == (cli_case / ER / name).read_bytes(), name
    interpretation = f"analysis/interpretations/{REV}/interpretation.json"
    assert (dagster_case / interpretation).read_bytes() == (cli_case / interpretation).read_bytes()
