"""The heuristic assessment over real captures of the demo world database."""

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from resources.world_db import WorldDatabase
from vba_assets.config import embedded_project_config
from vba_assets.domain.catalog.matching import MatchTier
from vba_assets.domain.protocol import current_protocol
from vba_assets.domain.resolution.context import build_candidate_index, search_ids
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    CaptureArtifact,
    MentionCitation,
    ProposedSearch,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
    SearchAssessmentOutput,
    SearchRole,
)
from vba_assets.domain.resolution.rules import readable_sources, validate_assessment, validate_plan
from vba_assets.domain.stage_context import (
    CandidateView,
    assessment_stage_context,
    plan_stage_context,
)
from vba_assets.heuristic.assessment import assess_searches
from vba_assets.heuristic.candidate_names import helper_patterns, is_helper
from vba_assets.heuristic.evidence import MAX_EVIDENCE_CHARS, evidence_quote
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.planning import plan_searches
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

#: The rules a new revision is judged by.
SPEC = current_protocol()

CATALOGS = embedded_project_config("unused").catalogs


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("ws"))


def case_doc(workspace: Workspace, case_id: str, title: str = "", body: str = "") -> dict[str, Any]:
    """A sample (by id) or a hand-written report, imported; its case.json."""
    folder = workspace.root / "cases" / case_id
    if not folder.exists():
        if case_id.startswith("BUG-"):
            import_report(workspace, sample_report_path(case_id))
        else:
            report = {"case_id": case_id, "title": title, "body": body}
            report["reported_at"] = "2026-09-24T21:47:12+02:00"
            path = Path(workspace.root, f"{case_id}.json")
            path.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
            import_report(workspace, path)
    return dict(json.loads((folder / "case.json").read_text(encoding="utf-8")))


def search(case: dict[str, Any], term: str, role: SearchRole, catalog: str) -> ProposedSearch:
    """A proposed search citing every occurrence of ``term`` in the readable sources."""
    mentions = [
        MentionCitation(source=alias, quote=term, start=index, end=index + len(term))
        for alias, text in readable_sources(case).items()
        for index in range(len(text))
        if text.startswith(term, index)
    ]
    return ProposedSearch(term=term, catalog=catalog, role=role, mentions=mentions[:8])


def resolve(
    case: dict[str, Any], plan: ResolutionPlanOutput, world: WorldDatabase, max_candidates: int = 8
) -> tuple[ResolutionAssessmentOutput, CandidateIndex]:
    """Capture every search on the real DB, index, assess, and check the controller's rules."""
    assert validate_plan(plan, case, CATALOGS, 8, SPEC) == []
    captures = []
    for search_id, proposed in zip(search_ids(plan), plan.searches, strict=True):
        result = world.contains_search(proposed.catalog, proposed.term, max_candidates)
        capture = CaptureArtifact(search_id=search_id, search=proposed, result=result)
        digest = hashlib.sha256(capture.model_dump_json().encode()).hexdigest()
        captures.append((digest, capture))
    index = build_candidate_index(plan, captures)
    assessment = assess_searches(assessment_stage_context(case, plan, index), CATALOGS)
    assert validate_assessment(assessment, index, plan, case, SPEC) == []
    return assessment, index


def verdict(
    assessment: ResolutionAssessmentOutput, index: CandidateIndex, term: str
) -> tuple[SearchAssessmentOutput, dict[str, Any]]:
    """The verdict for ``term`` and ``candidate id -> identity`` of its search."""
    search = next(s for s in index.searches if s.term == term)
    found = next(v for v in assessment.assessments if v.search_id == search.search_id)
    ids = {cid: c.identity for cid, c in zip(search.candidate_ids, search.candidates, strict=True)}
    return found, ids


def test_brewfest_selects_the_wild_wolpertinger_and_never_the_quest_giver_for_it(
    workspace: Workspace, world: WorldDatabase, names: NameIndex
) -> None:
    case = case_doc(workspace, "BUG-000020")
    plan = plan_searches(plan_stage_context(case, CATALOGS, 4), names)
    assessment, index = resolve(case, plan, world)
    wild, ids = verdict(assessment, index, "Wild Wolpertinger")
    assert wild.status == "selected" and ids[wild.candidate_id or ""] == 23487
    affected_ids = {
        s.search_id for s, p in zip(index.searches, plan.searches, strict=True)
        if p.role == "affected_subject"
    }  # fmt: skip
    for item in assessment.assessments:
        if item.search_id in affected_ids and item.status == "selected":
            search = next(s for s in index.searches if s.search_id == item.search_id)
            chosen = search.candidates[search.candidate_ids.index(item.candidate_id or "")]
            assert chosen.identity != 23486  # Goldark Snipehunter is context, never the target
    evidence = wild.evidence[0]
    assert wild.mention is not None and evidence.source == wild.mention.source
    assert len(evidence.quote) > len("Wild Wolpertinger")
    assert evidence.quote in readable_sources(case)[evidence.source]
    assert wild.rationale.startswith("heuristic: exact unique name match")


def test_localized_exact_name_is_selected(workspace: Workspace, world: WorldDatabase) -> None:
    case = case_doc(workspace, "BUG-000021")
    plan = ResolutionPlanOutput(
        searches=[
            search(case, "Wilder Wolpertinger", "affected_subject", "creature_localized_name")
        ]
    )
    assessment, index = resolve(case, plan, world)
    wild, ids = verdict(assessment, index, "Wilder Wolpertinger")
    assert wild.status == "selected" and ids[wild.candidate_id or ""] == 23487


def test_shared_name_never_selects_the_trigger(
    workspace: Workspace, world: WorldDatabase, names: NameIndex
) -> None:
    case = case_doc(workspace, "BUG-000022")
    plan = plan_searches(plan_stage_context(case, CATALOGS, 4), names)
    assessment, index = resolve(case, plan, world)
    icehammer, ids = verdict(assessment, index, "Lieutenant Icehammer")
    assert icehammer.status == "ambiguous" and icehammer.candidate_id is None
    assert [ids[c] for c in icehammer.competing_candidate_ids] == [24634, 24665, 27994]
    yavus, ids = verdict(assessment, index, "Harpoon Master Yavus")
    assert yavus.status == "selected" and ids[yavus.candidate_id or ""] == 24644


@pytest.mark.parametrize(("max_candidates", "why"), [(8, "truncated"), (50, "11 candidates")])
def test_many_exact_entries_stay_ambiguous(
    workspace: Workspace, world: WorldDatabase, max_candidates: int, why: str
) -> None:
    case = case_doc(workspace, "THRALL-1", "Thrall", "I talked to Thrall in Orgrimmar, no quest.")
    plan = ResolutionPlanOutput(searches=[search(case, "Thrall", "quest_giver", "creature_name")])
    assessment, index = resolve(case, plan, world, max_candidates)
    thrall, _ = verdict(assessment, index, "Thrall")
    assert thrall.status == "ambiguous" and why in thrall.rationale
    assert thrall.competing_candidate_ids and all(
        index.searches[0].candidates[index.searches[0].candidate_ids.index(c)].name == "Thrall"
        for c in thrall.competing_candidate_ids
    )


def test_no_candidate_is_no_match_and_similar_names_stay_ambiguous(
    workspace: Workspace, world: WorldDatabase
) -> None:
    case = case_doc(workspace, "BUG-000024")
    plan = ResolutionPlanOutput(
        searches=[
            search(case, "Glodrak Huntsnipper", "quest_giver", "creature_name"),
            search(case, "Glodrak", "quest_giver", "creature_name"),
        ]
    )
    assessment, index = resolve(case, plan, world)
    missing, _ = verdict(assessment, index, "Glodrak Huntsnipper")
    assert missing.status == "no_match" and missing.competing_candidate_ids == []
    similar, ids = verdict(assessment, index, "Glodrak")
    assert similar.status == "ambiguous"
    assert [ids[c] for c in similar.competing_candidate_ids] == [24657]
    assert "whole_phrase" in similar.rationale


def test_a_technical_helper_entry_is_never_selected(
    workspace: Workspace, world: WorldDatabase
) -> None:
    case = case_doc(
        workspace, "HELPER-1", "Black Temple", "I can't find the Akama Event Trigger anywhere."
    )
    plan = ResolutionPlanOutput(
        searches=[search(case, "Akama Event Trigger", "affected_subject", "creature_name")]
    )
    assessment, index = resolve(case, plan, world)
    helper, ids = verdict(assessment, index, "Akama Event Trigger")
    assert helper.status == "ambiguous" and "helper-name pattern" in helper.rationale
    assert [ids[c] for c in helper.competing_candidate_ids] == [23496]


def test_localized_catalogs_inherit_the_primary_helper_patterns() -> None:
    patterns = helper_patterns(CATALOGS)
    candidate = CandidateView(
        candidate_id="Q1-C1",
        identity=1,
        name="Akama Event Trigger",
        tier=MatchTier.EXACT_LOCALIZED_NAME,
        catalog="creature_localized_name",
        catalog_kind="localized_name",
        capture_row=0,
        data={},
    )
    assert is_helper(candidate, patterns)
    assert not is_helper(candidate.model_copy(update={"name": "Wilder Wolpertinger"}), patterns)
    via_other_name = candidate.model_copy(
        update={"name": "Wilder Auslöser", "other_names": ["Wild Bunny"]}
    )
    assert is_helper(via_other_name, patterns)


def test_a_bare_name_is_not_evidence(workspace: Workspace, world: WorldDatabase) -> None:
    case = case_doc(workspace, "BARE-1", "Wild Wolpertinger", "Wild Wolpertinger")
    plan = ResolutionPlanOutput(
        searches=[search(case, "Wild Wolpertinger", "affected_subject", "creature_name")]
    )
    assessment, index = resolve(case, plan, world)
    bare, _ = verdict(assessment, index, "Wild Wolpertinger")
    assert bare.status == "ambiguous" and "bare name" in bare.rationale


def test_evidence_is_the_sentence_or_line_verbatim_and_bounded() -> None:
    text = "Hi.\nWild Wolpertinger\nNone of them are in the hills. Odd!"
    mention = MentionCitation(source="S2", quote="Wild Wolpertinger", start=4, end=21)
    quote = evidence_quote(text, mention, ["Wild Wolpertinger"])
    assert quote == "Wild Wolpertinger\nNone of them are in the hills. Odd!"
    long_text = "I looked " + "very " * 150 + "hard for the Wild Wolpertinger " + "x " * 200 + "."
    start = long_text.index("Wild Wolpertinger")
    mention = MentionCitation(source="S2", quote="Wild Wolpertinger", start=start, end=start + 17)
    quote = evidence_quote(long_text, mention, ["Wild Wolpertinger"])
    assert quote is not None and len(quote) <= MAX_EVIDENCE_CHARS
    assert "Wild Wolpertinger" in quote and quote in long_text


@pytest.mark.parametrize(
    "line",
    [
        "### Bloodlord Mandokir",
        "[b]Bloodlord Mandokir[/b]",
        "<strong>Bloodlord Mandokir</strong><br>",
        "- Bloodlord Mandokir!",
        "> **Bloodlord Mandokir**",
    ],
)
def test_a_line_with_markup_around_the_bare_name_is_not_evidence(line: str) -> None:
    # The controller ignores case, punctuation and spacing (ASSESSMENT_EVIDENCE_NAME_ONLY): such a
    # line holds only the name, so the next line is taken with it.
    text = f"{line}\nHe never leaves his raptor."
    start = text.index("Bloodlord")
    mention = MentionCitation(source="S2", quote="Bloodlord Mandokir", start=start, end=start + 18)
    assert evidence_quote(text, mention, ["Bloodlord Mandokir"]) == text
    assert evidence_quote(line, mention, ["Bloodlord Mandokir"]) is None


def test_assessment_is_deterministic(
    workspace: Workspace, world: WorldDatabase, names: NameIndex
) -> None:
    case = case_doc(workspace, "BUG-000025")
    plan = plan_searches(plan_stage_context(case, CATALOGS, 4), names)
    first, _ = resolve(case, plan, world)
    again, _ = resolve(json.loads(json.dumps(case)), plan, world)
    assert first.model_dump_json() == again.model_dump_json()
    assert [v.status for v in first.assessments] == ["selected"] * 4


def test_a_localized_match_in_another_language_than_the_report_is_not_selected(
    workspace: Workspace, world: WorldDatabase
) -> None:
    # "Panzallena" is the esES/esMX name of 345 only: plain ASCII, so in an English report it is
    # weak evidence; in a Spanish report it is the report's own language.
    english = case_doc(
        workspace, "LOC-EN-1", "Respawn", "Panzallena at the lake has not respawned for an hour."
    )
    spanish = case_doc(
        workspace,
        "LOC-ES-1",
        "Reaparición",
        "Panzallena no reaparece en el lago desde hace una hora.",
    )
    verdicts = {}
    for case in (english, spanish):
        plan = ResolutionPlanOutput(
            searches=[search(case, "Panzallena", "affected_subject", "creature_localized_name")]
        )
        assessment, index = resolve(case, plan, world)
        verdicts[case["case_id"]] = verdict(assessment, index, "Panzallena")
    weak, weak_ids = verdicts["LOC-EN-1"]
    assert weak.status == "ambiguous" and "localized" in weak.rationale
    assert [weak_ids[c] for c in weak.competing_candidate_ids] == [345]
    strong, strong_ids = verdicts["LOC-ES-1"]
    assert strong.status == "selected" and strong_ids[strong.candidate_id or ""] == 345


def test_an_untranslated_localized_row_never_decides_an_english_shared_name(
    workspace: Workspace, world: WorldDatabase, names: NameIndex
) -> None:
    # Two English entries are named "Arcanist Adurin"; one deDE row kept that spelling.
    case = case_doc(
        workspace, "LOC-EN-2", "Vendor", "Arcanist Adurin in Dalaran shows me an empty window."
    )
    plan = plan_searches(plan_stage_context(case, CATALOGS, 4), names)
    assessment, index = resolve(case, plan, world)
    adurin, ids = verdict(assessment, index, "Arcanist Adurin")
    assert adurin.status == "ambiguous"
    assert sorted(ids[c] for c in adurin.competing_candidate_ids) == [31305, 31579]


def test_a_name_with_a_final_period_is_selected(
    workspace: Workspace, world: WorldDatabase, names: NameIndex
) -> None:
    case = case_doc(
        workspace, "PERIOD-1", "Quest", "Torkus Jr. gave me his quest, but nothing ever drops."
    )
    plan = plan_searches(plan_stage_context(case, CATALOGS, 4), names)
    assessment, index = resolve(case, plan, world)
    torkus, ids = verdict(assessment, index, "Torkus Jr.")
    assert torkus.status == "selected" and ids[torkus.candidate_id or ""] == 23365
