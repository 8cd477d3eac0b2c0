"""Entity resolution end to end on the real demo world DB, with fixture model replies.

These prove the plumbing: grounding, literal captures, ranking, citations and the context aliases.
They do not measure a model's semantic quality.
"""

import json
from pathlib import Path

import pytest

from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context, mention
from tests.pipeline.support import (
    ER,
    QUEST,
    assess_exact,
    imported,
    interpret,
    plan_reply,
    project_config,
    run,
    write_report,
)
from vba_assets.errors import ErrorCode, ModelError
from vba_assets.intake import import_report
from vba_assets.store import Workspace

QUEST_NAMES = QUEST


def wolpertinger_script(case_doc: dict) -> ScriptedProvider:
    return ScriptedProvider(
        {
            "resolution_plan": [plan_reply(case_doc, QUEST_NAMES)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )


def test_wolpertinger_selects_the_db_identity_and_keeps_the_quest_giver_distinct(
    tmp_path: Path,
) -> None:
    workspace, package = imported(tmp_path)
    provider = wolpertinger_script(package.read_json("case.json"))
    report = run(workspace, "BUG-000020", project_config(tmp_path / "ws"), provider)

    assert [s.stage for s in report.stages] == [
        "resolution_plan",
        "resolution_captures",
        "candidate_index",
        "resolution_assessment",
        "interpretation",
    ]
    assert report.dispatches_this_run == 3  # plan, assessment, interpretation
    context = package.read_json(f"{ER}/context.json")
    by_term = {n["mentions"][0]["quote"]: n for n in context["selected"]}
    wild, goldark = by_term["Wild Wolpertinger"], by_term["Goldark Snipehunter"]
    # the DB supplied the identities; the fixture only proposed names from the quest text
    assert (wild["identity"], goldark["identity"]) == (23487, 23486)
    assert wild["role"] == "affected_subject" and goldark["role"] == "quest_giver"
    assert {wild["role_label"], goldark["role_label"]} == {
        "model_contextual_selection_not_causation"
    }
    # exact capture-row provenance: the pointer and the row lead back to the DB row
    digest = wild["capture_pointer"].rsplit("/", 1)[-1]
    capture = package.read_object(f"{ER}/captures", digest)
    assert capture["result"]["rows"][wild["capture_row"]]["identity"] == 23487
    assert (
        "LIKE" in capture["result"]["sql"] and "Wild Wolpertinger" not in capture["result"]["sql"]
    )
    interpretation = package.read_json("analysis/interpretations/0001/interpretation.json")
    body = interpretation["interpretation"]
    assert [e["ref"] for e in body["affected_subjects"]] == [wild["alias"]]
    assert [e["ref"] for e in body["context_entities"]] == [goldark["alias"]]
    assert interpretation["prompt"] == "resolved"


def test_an_accepted_revision_is_reused_without_model_call_or_query(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    first = run(
        workspace, "BUG-000020", project, wolpertinger_script(package.read_json("case.json"))
    )

    def no_db() -> None:
        raise AssertionError("a reused revision must not open the world DB")

    idle = ScriptedProvider({})
    again = run(workspace, "BUG-000020", project, idle, open_db=no_db)
    assert idle.calls == []
    assert again.dispatches_this_run == 0
    assert [s.sha256 for s in again.stages] == [s.sha256 for s in first.stages]
    assert all(s.reused for s in again.stages)


def test_an_ungrounded_term_is_rejected_recorded_and_corrected(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    case_doc = package.read_json("case.json")
    invented = plan_reply(case_doc, QUEST_NAMES[:1])
    invented["searches"][0]["term"] = "Wolpertinger King"  # not in the cited quote
    provider = ScriptedProvider(
        {
            "resolution_plan": [invented, plan_reply(case_doc, QUEST_NAMES[:1])],
            "resolution_assessment": [from_stage_context(assess_exact)],
        }
    )
    run(workspace, "BUG-000020", project_config(tmp_path / "ws"), provider, stop_after="resolution")
    rejected = package.read_json(f"{ER}/rejected/resolution_plan-1.json")
    assert rejected["issues"][0]["code"] == ErrorCode.PLAN_TERM_NOT_IN_QUOTE.value
    assert "does not occur in the cited quote" in rejected["issues"][0]["message"]
    assert json.loads(rejected["output_text"]) == invented
    events = [(e["event"], e.get("attempt")) for e in package.read_events("0001")]
    assert ("rejected", 1) in events and ("dispatched", 2) in events
    accepted = package.read_json(f"{ER}/dispatches/resolution_plan-2.json")
    assert accepted["outcome"] == "accepted"
    # the correction round carries the errors back to the model, each with its rule's code
    assert "Wolpertinger King" in json.dumps(accepted["request"])
    assert "PLAN_TERM_NOT_IN_QUOTE at /searches/0/term" in json.dumps(accepted["request"])
    assert provider.calls[:2] == [("resolution_plan", 1), ("resolution_plan", 3)]


def test_exhausted_corrections_block_the_case_and_keep_every_rejection(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws", max_invalid_responses=2)
    provider = ScriptedProvider({"resolution_plan": ["not json", {"searches": "nope"}]})
    with pytest.raises(ModelError) as excinfo:
        run(workspace, "BUG-000020", project, provider)
    assert excinfo.value.code is ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES
    assert not package.exists(f"{ER}/plan.json")
    assert package.list_dir(f"{ER}/rejected") == [
        f"{ER}/rejected/resolution_plan-1.json",
        f"{ER}/rejected/resolution_plan-2.json",
    ]
    blocked = [e for e in package.read_events("0001") if e["event"] == "blocked"]
    assert blocked[-1]["code"] == "ENTITY_RESOLUTION_INVALID_RESPONSES"
    # running again stays blocked without another request: review, then a new revision
    idle = ScriptedProvider({})
    with pytest.raises(ModelError):
        run(workspace, "BUG-000020", project, idle)
    assert idle.calls == []


def test_too_many_searches_are_refused(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    case_doc = package.read_json("case.json")
    project = project_config(tmp_path / "ws", max_searches=1)
    provider = ScriptedProvider(
        {
            "resolution_plan": [
                plan_reply(case_doc, QUEST_NAMES),
                plan_reply(case_doc, QUEST_NAMES[:1]),
            ],
            "resolution_assessment": [from_stage_context(assess_exact)],
        }
    )
    run(workspace, "BUG-000020", project, provider, stop_after="resolution")
    rejected = package.read_json(f"{ER}/rejected/resolution_plan-1.json")
    assert "at most 1" in rejected["issues"][0]["message"]
    assert len(package.read_json(f"{ER}/plan.json")["plan"]["searches"]) == 1


def test_a_truncated_search_cannot_produce_a_selection(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    report = write_report(
        tmp_path, "BUG-W1", "Wolf missing", "No Wolf near the camp since the patch."
    )
    import_report(workspace, report)
    case_doc = workspace.case("BUG-W1").read_json("case.json")
    plan = plan_reply(case_doc, [("Wolf", "creature_name", "affected_subject", "S2", "Wolf")])

    def select_first(context: dict) -> dict:
        search = context["searches"][0]
        assert search["truncated"] is True
        candidate = search["candidates"][0]
        return {
            "assessments": [
                {
                    "search_id": "Q1",
                    "status": "selected",
                    "candidate_id": candidate["candidate_id"],
                    "capture": "F1",
                    "capture_row": candidate["capture_row"],
                    "mention": search["mentions"][0],
                    "evidence": [{"source": "S2", "quote": "No Wolf near the camp"}],
                    "rationale": "fixture: picks the first candidate",
                }
            ]
        }

    provider = ScriptedProvider(
        {
            "resolution_plan": [plan],
            "resolution_assessment": [
                from_stage_context(select_first),
                from_stage_context(assess_exact),
            ],
            "interpretation": [from_stage_context(interpret)],
        }
    )
    run(workspace, "BUG-W1", project_config(tmp_path / "ws", max_candidates=3), provider)
    package = workspace.case("BUG-W1")
    rejected = package.read_json(f"{ER}/rejected/resolution_assessment-1.json")
    assert "truncated" in rejected["issues"][0]["message"]
    context = package.read_json(f"{ER}/context.json")
    assert context["selected"] == []
    assert context["unresolved"][0]["status"] == "truncated"
    body = package.read_json("analysis/interpretations/0001/interpretation.json")["interpretation"]
    assert [u["ref"] for u in body["unknowns"]] == ["D1"]
    captures = [package.read_json(c) for c in package.list_dir(f"{ER}/captures")]
    (own,) = [c for c in captures if "kind" not in c]  # v6 adds the exact-name capture beside it
    result = own["result"]
    assert result["truncated"] is True and len(result["rows"]) == 3
    assert [c["kind"] for c in captures if "kind" in c] == ["exact_name"]


def test_competing_candidates_stay_an_unknown(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path, "BUG-000022")
    case_doc = package.read_json("case.json")
    source = next(s for s in case_doc["sources"] if "Lieutenant Icehammer" in (s["text"] or ""))
    plan = plan_reply(
        case_doc,
        [
            (
                "Lieutenant Icehammer",
                "creature_name",
                "quest_giver",
                source["alias"],
                "Lieutenant Icehammer",
            )
        ],
    )

    def ambiguous(context: dict) -> dict:
        ids = [c["candidate_id"] for c in context["searches"][0]["candidates"]]
        return {
            "assessments": [
                {
                    "search_id": "Q1",
                    "status": "ambiguous",
                    "competing_candidate_ids": ids,
                    "rationale": "fixture: two entries share the exact name",
                }
            ]
        }

    provider = ScriptedProvider(
        {
            "resolution_plan": [plan],
            "resolution_assessment": [from_stage_context(ambiguous)],
            "interpretation": [from_stage_context(interpret)],
        }
    )
    run(workspace, "BUG-000022", project_config(tmp_path / "ws"), provider)
    unresolved = package.read_json(f"{ER}/context.json")["unresolved"]
    assert unresolved[0]["status"] == "ambiguous"
    assert {24634, 24665} <= set(unresolved[0]["candidate_identities"])


def test_an_unobserved_subject_is_a_scoped_empty_capture_and_an_unknown(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    body = "The Zzyzx Hopper never shows up at the Brewfest camp."
    import_report(workspace, write_report(tmp_path, "BUG-Z1", "Zzyzx Hopper missing", body))
    case_doc = workspace.case("BUG-Z1").read_json("case.json")
    provider = ScriptedProvider(
        {
            "resolution_plan": [
                plan_reply(
                    case_doc,
                    [("Zzyzx Hopper", "creature_name", "affected_subject", "S2", "Zzyzx Hopper")],
                )
            ],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )
    run(workspace, "BUG-Z1", project_config(tmp_path / "ws"), provider)
    package = workspace.case("BUG-Z1")
    capture = package.read_json(package.list_dir(f"{ER}/captures")[0])
    assert capture["result"]["rows"] == [] and capture["result"]["truncated"] is False
    notes = " ".join(capture["result"]["coverage_notes"]).lower()
    assert "snapshot" in notes and "absen" in notes  # a miss is scoped, never proof of absence
    context = package.read_json(f"{ER}/context.json")
    assert context["unresolved"][0]["status"] == "no_match"
    interpretation = package.read_json("analysis/interpretations/0001/interpretation.json")
    assert interpretation["interpretation"]["unknowns"][0]["ref"] == "D1"


def test_the_localized_catalog_resolves_a_german_name(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path, "BUG-000021")
    case_doc = package.read_json("case.json")
    source = next(
        s
        for s in case_doc["sources"]
        if "Wilde" in (s["text"] or "") or "Wilder" in (s["text"] or "")
    )
    quote = (
        "Wilder Wolpertinger" if "Wilder Wolpertinger" in source["text"] else "Wilden Wolpertinger"
    )
    plan = {
        "searches": [
            {
                "term": quote,
                "catalog": "creature_localized_name",
                "role": "affected_subject",
                "mentions": [mention(case_doc, source["alias"], quote)],
            }
        ]
    }
    provider = ScriptedProvider(
        {"resolution_plan": [plan], "resolution_assessment": [from_stage_context(assess_exact)]}
    )
    run(workspace, "BUG-000021", project_config(tmp_path / "ws"), provider, stop_after="resolution")
    candidates = package.read_json(f"{ER}/candidates.json")["searches"][0]["candidates"]
    assert 23487 in [c["identity"] for c in candidates]
