"""Identity references end to end (protocol v4): a real report with database links, the real
heuristic provider (its name index, never the DB), the real demo world DB for the captures, then
replay and verification elsewhere with neither API nor DB."""

import shutil
from pathlib import Path
from typing import Any

from resources.llm.heuristic import HeuristicProvider
from resources.llm.heuristic_index import packaged_name_index
from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context, mention
from tests.pipeline.support import ER, interpret, project_config, run, write_report
from vba_assets.config import DEMO_CATALOGS
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.stage_context import AssessmentStageContext
from vba_assets.errors import ErrorCode
from vba_assets.heuristic.assessment import assess_searches
from vba_assets.intake import import_report
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.verification import verify_revision
from vba_assets.store import Workspace

CATALOGS = [CatalogConfig.model_validate(c) for c in DEMO_CATALOGS]
BODY = (
    "[//]: # ([NPC] Magistrix Erona)\n"
    "**Description**: [Wild Wolpertinger](https://www.wowhead.com/npc=23487/wild-wolpertinger) "
    "can't be caught with the net.\n"
    "Goldark Snipehunter (https://www.wowhead.com/npc=3432) gave me the quest.\n"
)


def _imported(tmp_path: Path) -> tuple[Workspace, Any]:
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, write_report(tmp_path, "LINK-0001", "Brewfest quest", BODY))
    return workspace, workspace.case("LINK-0001")


def _heuristic_assessment(context: dict[str, Any]) -> dict[str, Any]:
    fields = {k: v for k, v in context.items() if k != "protocol_version"}
    stage = AssessmentStageContext.model_validate(fields)
    return assess_searches(stage, CATALOGS).model_dump(mode="json")


def test_a_linked_name_is_selected_and_replays_and_verifies_without_db(tmp_path: Path) -> None:
    workspace, package = _imported(tmp_path)
    provider = HeuristicProvider(CATALOGS, packaged_name_index())
    first = run(workspace, "LINK-0001", project_config(tmp_path / "ws"), provider)  # type: ignore[arg-type]
    plan = package.read_json(f"{ER}/plan.json")["plan"]
    wild = next(s for s in plan["searches"] if s["term"] == "Wild Wolpertinger")
    assert wild["reference"]["identity"] == 23487
    assert all("Magistrix" not in s["term"] for s in plan["searches"])  # a template comment
    context = package.read_json(f"{ER}/context.json")
    assert {n["identity"] for n in context["selected"]} >= {23487}
    capture = next(
        package.read_object(f"{ER}/captures", relpath.rsplit("/", 1)[-1].removesuffix(".json"))
        for relpath in package.list_dir(f"{ER}/captures")
        if b'"identity":23487' in package.read_bytes(relpath)
    )
    assert "LIKE" not in capture["result"]["sql"] and capture["result"]["identity"] == 23487

    other = Workspace(tmp_path / "elsewhere")
    shutil.copytree(package.root, other.cases_dir / "LINK-0001")
    moved = other.case("LINK-0001")
    report = verify_revision(moved, "0001")
    assert report.ok and report.findings == [], report.findings

    def no_db() -> None:
        raise AssertionError("replay and verification never open the world database")

    again = run(
        other,
        "LINK-0001",
        project_config(tmp_path / "elsewhere"),
        ScriptedProvider({}),
        llm=LlmConfig(provider="replay"),
        open_db=no_db,
    )
    assert again.dispatches_this_run == 0
    assert [s.sha256 for s in again.stages] == [s.sha256 for s in first.stages]


def test_a_link_that_disagrees_is_refused_as_a_selection_and_kept_as_an_unknown(
    tmp_path: Path,
) -> None:
    workspace, package = _imported(tmp_path)
    case_doc = package.read_json("case.json")
    goldark = {
        "term": "Goldark Snipehunter",
        "catalog": "creature_name",
        "role": "quest_giver",
        "mentions": [mention(case_doc, "S2", "Goldark Snipehunter")],
        "reference": {
            "identity": 3432,  # Mankrik: not who the report names
            "link": mention(case_doc, "S2", "https://www.wowhead.com/npc=3432"),
        },
    }

    def select_anyway(context: dict[str, Any]) -> dict[str, Any]:
        search = context["searches"][0]
        m = search["mentions"][0]
        return {
            "assessments": [
                {
                    "search_id": "Q1",
                    "status": "selected",
                    "candidate_id": "Q1-C1",
                    "capture": search["capture_alias"],
                    "capture_row": 0,
                    "mention": m,
                    "evidence": [{"source": "S2", "quote": "gave me the quest"}],
                    "rationale": "fixture: selects the link whatever it names",
                }
            ]
        }

    provider = ScriptedProvider(
        {
            "resolution_plan": [{"searches": [goldark]}],
            "resolution_assessment": [
                from_stage_context(select_anyway),
                from_stage_context(_heuristic_assessment),
            ],
            "interpretation": [from_stage_context(interpret)],
        }
    )
    run(workspace, "LINK-0001", project_config(tmp_path / "ws"), provider)
    records = [
        package.read_json(relpath)
        for relpath in package.list_dir(f"{ER}/dispatches")
        if "resolution_assessment" in relpath and not relpath.endswith(".manifest.json")
    ]
    outcomes = sorted((r["attempt"], r["outcome"]) for r in records)
    assert outcomes == [(1, "rejected"), (2, "accepted")]
    first = next(r for r in records if r["attempt"] == 1)
    assert ErrorCode.ASSESSMENT_LINK_DISAGREES.value in {i["code"] for i in first["issues"]}
    context = package.read_json(f"{ER}/context.json")
    assert context["selected"] == []
    (d1,) = context["unresolved"]
    assert (d1["status"], d1["linked_identity"], d1["linked_names"]) == (
        "link_disagrees",
        3432,
        ["Mankrik"],
    )
    body = package.read_json("analysis/interpretations/0001/interpretation.json")
    assert [u["ref"] for u in body["interpretation"]["unknowns"]] == ["D1"]
