"""Grounded zone tie-breaks and ties inside an exact-name capture (issue 29 item 4, protocol v6).

Fixtures are made-up reports over real rows of the demo world DB: two creatures are named
"Hearthsinger Forresten" (10558 has spawn markers in Stratholme, 30551 in The Culling of
Stratholme), two "Magistrate Barthilas" (10435 in Stratholme, 30994 without any marker), two are named
"Tirion Fordring" (1855 starts and ends "Redemption", 20349 gives no quest). The captures are
recorded by the real adapter (:func:`with_quest_relations`, which also records the zone markers);
the heuristic verdicts asserted here test quality (which entity a fact tells apart, and that none
is chosen without one), the forged verdicts test the controller's refusal.
"""

import tempfile
from pathlib import Path
from typing import Any

import pytest

from resources.world_db import WorldDatabase
from tests.unit.test_heuristic_assessment import case_doc, search
from vba_assets.config import embedded_project_config
from vba_assets.domain.prompting.pieces import text_of
from vba_assets.domain.prompting.search_pieces import search_pieces
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.context import build_candidate_index
from vba_assets.domain.resolution.models import (
    EXACT_NAME,
    CandidateIndex,
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
    SearchAssessmentOutput,
)
from vba_assets.domain.resolution.relation_facts import relation_capture_findings
from vba_assets.domain.resolution.rules import readable_sources, validate_assessment
from vba_assets.domain.stage_context import AssessmentStageContext, assessment_stage_context
from vba_assets.errors import ErrorCode
from vba_assets.heuristic.assessment import assess_search
from vba_assets.heuristic.candidate_names import helper_patterns
from vba_assets.pipeline.tiebreak_captures import with_quest_relations
from vba_assets.store import Workspace

V6 = protocol(6)
FORRESTEN = "Hearthsinger Forresten"
ZONE_BODY = f"{FORRESTEN} in Stratholme does not drop his lute when he dies."
PLAIN_BODY = f"{FORRESTEN} does not drop his lute when he dies."
MAGISTRATE = "Magistrate Barthilas"
TIRION = "Tirion Fordring"
QUEST_BODY = f"{TIRION} does not complete Redemption after I bring the items."


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> WorldDatabase:
    config = embedded_project_config(tmp_path_factory.mktemp("ws"))
    return WorldDatabase.from_config(config)


_DOCS: dict[str, dict[str, Any]] = {}


def case(body: str) -> dict[str, Any]:
    """The imported case.json of a made-up report with this body (cached per body)."""
    if body not in _DOCS:
        root = Path(tempfile.mkdtemp(prefix="zonetie-"))
        _DOCS[body] = case_doc(Workspace(root), f"ZONE-{len(_DOCS) + 1}", "Bug", body)
    return _DOCS[body]


def sources(body: str) -> dict[str, str]:
    return readable_sources(case(body))


def plan_for(body: str, term: str) -> ResolutionPlanOutput:
    proposed = search(case(body), term, "affected_subject", "creature_name")
    return ResolutionPlanOutput(searches=[proposed])


def contains_index(
    demo: WorldDatabase, body: str, term: str, row_limit: int = 8
) -> tuple[ResolutionPlanOutput, CandidateIndex, CaptureArtifact]:
    plan = plan_for(body, term)
    result = demo.contains_search("creature_name", term, row_limit)
    plain = CaptureArtifact(
        schema_version=2, search_id="Q1", search=plan.searches[0], result=result
    )
    capture = with_quest_relations(plain, demo, V6)
    return plan, build_candidate_index(plan, [("a" * 64, capture)]), capture


def exact_index(
    demo: WorldDatabase, body: str, term: str
) -> tuple[ResolutionPlanOutput, CandidateIndex, CaptureArtifact]:
    """A truncated contains capture (row limit 1) completed by its exact-name capture."""
    plan = plan_for(body, term)
    own = CaptureArtifact(
        schema_version=2,
        search_id="Q1",
        search=plan.searches[0],
        result=demo.contains_search("creature_name", term, 1),
    )
    assert own.result.truncated
    exact = CaptureArtifact(
        schema_version=2,
        search_id="Q1",
        search=plan.searches[0],
        result=demo.exact_name_search("creature_name", term, 8),
        kind=EXACT_NAME,
        completes="a" * 64,
    )
    enriched = with_quest_relations(exact, demo, V6)
    index = build_candidate_index(plan, [("a" * 64, own)], {"Q1": ("b" * 64, enriched)})
    return plan, index, enriched


def context(body: str, plan: ResolutionPlanOutput, index: CandidateIndex) -> AssessmentStageContext:
    return assessment_stage_context(case(body), plan, index)


def heuristic(body: str, plan: ResolutionPlanOutput, index: CandidateIndex) -> Any:
    (view,) = context(body, plan, index).searches
    catalogs = embedded_project_config("/tmp/unused").catalogs
    return assess_search(view, sources(body), helper_patterns(catalogs), "en", tiebreaks=True)


def codes(
    verdict: SearchAssessmentOutput | dict[str, Any],
    plan: ResolutionPlanOutput,
    index: CandidateIndex,
    body: str,
) -> list[ErrorCode]:
    data = verdict if isinstance(verdict, dict) else verdict.model_dump(mode="json")
    assessment = ResolutionAssessmentOutput.model_validate({"assessments": [data]})
    return [f.code for f in validate_assessment(assessment, index, plan, case(body), V6)]


def identity_of(index: CandidateIndex, candidate_id: str | None) -> int | str | None:
    candidate = index.searches[0].candidate(candidate_id)
    return None if candidate is None else candidate.identity


def test_the_capture_records_the_tied_rows_zones_with_their_names(demo: WorldDatabase) -> None:
    _, _, capture = contains_index(demo, ZONE_BODY, FORRESTEN)
    zones = capture.zone_markers
    assert zones is not None and zones.identities == [10558, 30551]
    assert "creature_spawn_markers" in zones.sql and "'" not in zones.sql
    named = {(r.identity, r.zone_id, r.locale, r.name) for r in zones.rows}
    assert (10558, 2017, "enUS", "Stratholme") in named
    assert (30551, 4100, "enUS", "The Culling of Stratholme") in named
    assert relation_capture_findings(capture, True, "Q1", "c") == []
    forged = capture.model_copy(
        update={"zone_markers": zones.model_copy(update={"identities": [10558]})}
    )
    assert [f.code for f in relation_capture_findings(forged, True, "Q1", "c")] == [
        ErrorCode.CAPTURE_SEARCH_DIFFERS,
        ErrorCode.CAPTURE_IDENTITY_DIFFERS,  # 30551's rows in markers of [10558]
    ]


def test_a_named_zone_breaks_the_tie_and_the_controller_accepts_it(demo: WorldDatabase) -> None:
    plan, index, capture = contains_index(demo, ZONE_BODY, FORRESTEN)
    verdict = heuristic(ZONE_BODY, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    assert identity_of(index, verdict.candidate_id) == 10558
    tiebreak = verdict.tiebreak
    assert tiebreak.fact == "zone"
    assert sources(ZONE_BODY)[tiebreak.span.source][tiebreak.span.start : tiebreak.span.end] == (
        "Stratholme"
    )
    assert capture.zone_markers is not None and tiebreak.zone_row is not None
    row = capture.zone_markers.rows[tiebreak.zone_row]
    assert (row.identity, row.name) == (10558, "Stratholme")
    assert codes(verdict, plan, index, ZONE_BODY) == []


def test_without_a_named_zone_the_tie_stays_ambiguous(demo: WorldDatabase) -> None:
    plan, index, _ = contains_index(demo, PLAIN_BODY, FORRESTEN)
    verdict = heuristic(PLAIN_BODY, plan, index)
    assert verdict.status == "ambiguous" and verdict.tiebreak is None
    assert len(verdict.competing_candidate_ids) == 2


def _forged(
    index: CandidateIndex, plan: ResolutionPlanOutput, body: str, identity: int, **tie: Any
) -> Any:
    """A selection of ``identity`` citing "Stratholme" as its zone tie-break."""
    search = index.searches[0]
    (other,) = [c for c in search.candidates if c.identity == identity]
    cid = search.candidate_ids[search.candidates.index(other)]
    ((alias, text),) = [(a, t) for a, t in sources(body).items() if "Stratholme" in t]
    start = text.index("Stratholme")
    return {
        "search_id": "Q1",
        "status": "selected",
        "candidate_id": cid,
        "capture": "F1",
        "capture_row": other.source_index,
        "mention": plan.searches[0].mentions[0].model_dump(),
        "evidence": [{"source": alias, "quote": text}],
        "rationale": "the zone",
        "tiebreak": {
            "fact": "zone",
            "span": {"source": alias, "quote": "Stratholme", "start": start, "end": start + 10},
            **tie,
        },
    }


def test_the_controller_refuses_a_forged_zone_tiebreak(demo: WorldDatabase) -> None:
    plan, index, capture = contains_index(demo, ZONE_BODY, FORRESTEN)
    assert capture.zone_markers is not None
    stratholme = next(i for i, r in enumerate(capture.zone_markers.rows) if r.name == "Stratholme")
    # 30551 has no markers in Stratholme: citing 10558's zone row for it is refused
    forged = _forged(index, plan, ZONE_BODY, 30551, zone_row=stratholme)
    assert codes(forged, plan, index, ZONE_BODY) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]
    # no zone row at all
    assert codes(_forged(index, plan, ZONE_BODY, 10558), plan, index, ZONE_BODY) == [
        ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED
    ]
    # a zone both tied rows have markers in breaks nothing
    shared = capture.zone_markers.model_copy(
        update={
            "rows": [
                *capture.zone_markers.rows,
                capture.zone_markers.rows[stratholme].model_copy(update={"identity": 30551}),
            ]
        }
    )
    both = capture.model_copy(update={"zone_markers": shared})
    index2 = build_candidate_index(plan, [("a" * 64, both)])
    verdict = heuristic(ZONE_BODY, plan, index2)
    assert verdict.status == "ambiguous"
    right = _forged(index2, plan, ZONE_BODY, 10558, zone_row=stratholme)
    assert codes(right, plan, index2, ZONE_BODY) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]


def test_a_same_name_row_without_any_marker_keeps_the_tie(demo: WorldDatabase) -> None:
    """30994 has no spawn marker anywhere (and is no level-1 row): it may stand in Stratholme too,
    so the zone tells nothing apart, and the controller refuses a selection of 10435 by it."""
    body = f"{MAGISTRATE} in Stratholme does not open the service gate when I talk to him."
    plan, index, capture = contains_index(demo, body, MAGISTRATE)
    assert capture.zone_markers is not None
    assert {r.identity for r in capture.zone_markers.rows} == {10435}
    assert heuristic(body, plan, index).status == "ambiguous"
    row = next(i for i, r in enumerate(capture.zone_markers.rows) if r.name == "Stratholme")
    forged = _forged(index, plan, body, 10435, zone_row=row)
    assert codes(forged, plan, index, body) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]


def test_a_zone_name_inside_a_longer_word_is_refused(demo: WorldDatabase) -> None:
    body = f"{FORRESTEN} near Stratholmeish ruins does not drop his lute."
    plan, index, capture = contains_index(demo, body, FORRESTEN)
    assert heuristic(body, plan, index).status == "ambiguous"
    assert capture.zone_markers is not None
    row = next(i for i, r in enumerate(capture.zone_markers.rows) if r.name == "Stratholme")
    forged = _forged(index, plan, body, 10558, zone_row=row)
    assert codes(forged, plan, index, body) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]


def test_a_tie_inside_an_exact_name_capture_is_broken_by_the_named_quest(
    demo: WorldDatabase,
) -> None:
    plan, index, exact = exact_index(demo, QUEST_BODY, TIRION)
    coverage = index.searches[0].exact
    assert coverage is not None and not coverage.unique
    assert exact.quest_relations is not None and exact.quest_relations.identities == [1855, 20349]
    assert exact.zone_markers is not None
    verdict = heuristic(QUEST_BODY, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    assert verdict.capture == coverage.capture_alias
    assert identity_of(index, verdict.candidate_id) == 1855
    assert verdict.tiebreak.fact == "quest"
    span = verdict.tiebreak.span
    assert sources(QUEST_BODY)[span.source][span.start : span.end] == "Redemption"
    assert codes(verdict, plan, index, QUEST_BODY) == []
    # the same selection without its tie-break is the exact rule's refusal, as before
    bare = verdict.model_dump(mode="json")
    del bare["tiebreak"]
    assert codes(bare, plan, index, QUEST_BODY) == [ErrorCode.ASSESSMENT_EXACT_NOT_UNIQUE]


def test_an_exact_name_tie_without_a_fact_stays_ambiguous(demo: WorldDatabase) -> None:
    body = f"{TIRION} offers nothing when I talk to him."
    plan, index, _ = exact_index(demo, body, TIRION)
    assert heuristic(body, plan, index).status == "ambiguous"


def test_sqlite_zone_facts_hold_their_contract(demo: WorldDatabase, tmp_path: Path) -> None:
    found = demo.zone_markers([30551, 10558], 1000)
    assert found is not None and found.identities == [10558, 30551]
    assert found.parameters["row_limit"] == 1001 and not found.truncated
    keys = [(r.identity, r.zone_id, r.locale or "") for r in found.rows]
    assert keys == sorted(keys)
    cut = demo.zone_markers([10558, 30551], 1)
    assert cut is not None and cut.truncated and len(cut.rows) == 1
    assert demo.zone_markers([], 10) is None


def test_a_localized_quest_breaks_an_exact_name_tie_whose_mentions_are_bare(
    demo: WorldDatabase,
) -> None:
    """The shape of a French report: the creature is only named in a list item, the quest by its
    frFR title; the tie-break's span is the selection's evidence."""
    body = "Quête : Rédemption\n\n- Maleterres de l'est\n- Tirion Fordring\n"
    plan, index, exact = exact_index(demo, body, TIRION)
    verdict = heuristic(body, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    assert identity_of(index, verdict.candidate_id) == 1855
    assert exact.quest_relations is not None and verdict.tiebreak.relation_row is not None
    row = exact.quest_relations.rows[verdict.tiebreak.relation_row]
    assert (row.identity, row.quest, row.title) == (1855, 5742, "Rédemption")
    assert [e.quote for e in verdict.evidence] == ["Rédemption"]
    assert codes(verdict, plan, index, body) == []


def test_the_assessment_request_shows_the_zones_and_the_exact_capture_facts(
    demo: WorldDatabase,
) -> None:
    """Plumbing: a real model sees the zone rows (with their row numbers) and, for a tie inside
    an exact-name capture, that capture's quest relations and zones."""
    plan, index, _ = contains_index(demo, ZONE_BODY, FORRESTEN)
    (search,) = context(ZONE_BODY, plan, index).searches
    text = text_of(search_pieces(search, 0))
    assert "Spawn-marker zones" in text
    assert '"Stratholme" (enUS, row ' in text and "identity 10558" in text
    plan, index, _ = exact_index(demo, QUEST_BODY, TIRION)
    (search,) = context(QUEST_BODY, plan, index).searches
    text = text_of(search_pieces(search, 0))
    assert "grounded tiebreak from this capture's quest relations or zones" in text
    assert '"Redemption"' in text and "identity 20349 has spawn markers" in text
