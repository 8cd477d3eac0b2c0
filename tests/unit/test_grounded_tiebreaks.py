"""Grounded tie-breaks of same-name rows (issue 29 item 4, protocol v6): the controller's rule, the
heuristic's choice, the v1-v5 assessment schema that stays as it was, and the relation query.

The fixtures are made up in the shape of the demo data (two "Chef Jessen" entries, one of which
starts "Soothing Turtle Bisque"); the heuristic verdicts asserted here test quality (which entity
a fact tells apart, and that none is chosen without one), not only plumbing.
"""

from pathlib import Path
from typing import Any

import pytest

from resources.world_db import WorldDatabase
from vba_assets.config import DEMO_ALLOWLIST, embedded_project_config
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.world import (
    CatalogRow,
    QuestRelationRow,
    RelationResult,
    SearchResult,
    SnapshotBinding,
)
from vba_assets.domain.llm.schemas import provider_schema
from vba_assets.domain.prompting.validators import assessment_validator
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.context import build_candidate_index
from vba_assets.domain.resolution.legacy import ResolutionAssessmentOutput as LegacyAssessment
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
    SearchAssessmentOutput,
)
from vba_assets.domain.resolution.relation_facts import relation_capture_findings
from vba_assets.domain.resolution.rules import validate_assessment
from vba_assets.domain.stage_context import CandidateView, SearchView
from vba_assets.errors import ErrorCode
from vba_assets.heuristic.assessment import assess_search
from vba_assets.heuristic.candidate_names import helper_patterns
from vba_assets.pipeline.tiebreak_captures import with_quest_relations

V5, V6 = protocol(5), protocol(6)
SNAPSHOT = SnapshotBinding(label="t", backend="sqlite", schema_fingerprint="0" * 64)
CATALOGS = [
    CatalogConfig(
        name="creature_name",
        entity_type="creature",
        table="creature_template",
        identity_column="entry",
        name_column="name",
        data_columns=["subname"],
        helper_name_patterns=[r"\btrigger\b"],
    )
]
QUEST_BODY = "Chef Jessen does not accept Soothing Turtle Bisque. The dialog closes."
PLAIN_BODY = "Chef Jessen stands inside the wall of the inn."


def case(body: str) -> dict[str, Any]:
    return {"sources": [{"alias": "S1", "readable": True, "text": body}]}


def relations(*rows: tuple[int, str, int, str | None, str]) -> RelationResult:
    return RelationResult(
        identities=[2430, 20378],
        sql="SELECT ... FROM creature_queststarter ... WHERE creature_queststarter.id IN (?, ?)",
        parameters={"identities_1": 2430, "identities_2": 20378, "row_limit": 1001},
        snapshot=SNAPSHOT,
        row_limit=1000,
        truncated=False,
        rows=[
            QuestRelationRow(identity=i, relation=r, quest=q, locale=loc, title=t)
            for i, r, q, loc, t in rows
        ],
        coverage_notes=["quest relations"],
    )


BISQUE = relations(
    (2430, "starts", 1218, None, "Soothing Turtle Bisque"),
    (2430, "starts", 1218, "deDE", "Beruhigende Schildkrötensuppe"),
)


def resolved(
    body: str, quest_relations: RelationResult | None, subname: str | None = None
) -> tuple[ResolutionPlanOutput, CandidateIndex]:
    start = body.index("Chef Jessen")
    mention = {"source": "S1", "quote": "Chef Jessen", "start": start, "end": start + 11}
    search = {
        "term": "Chef Jessen",
        "catalog": "creature_name",
        "role": "affected_subject",
        "mentions": [mention],
    }
    plan = ResolutionPlanOutput.model_validate({"searches": [search]})
    result = SearchResult(
        catalog="creature_name",
        entity_type="creature",
        catalog_kind="name",
        term="Chef Jessen",
        sql="SELECT ...",
        parameters={"term": "Chef Jessen"},
        snapshot=SNAPSHOT,
        row_limit=8,
        truncated=False,
        rows=[
            CatalogRow(identity=2430, name="Chef Jessen", data={"subname": None}),
            CatalogRow(identity=20378, name="Chef Jessen", data={"subname": subname}),
        ],
        coverage_notes=["contains"],
    )
    capture = CaptureArtifact(
        schema_version=2,
        search_id="Q1",
        search=plan.searches[0],
        result=result,
        quest_relations=quest_relations,
    )
    return plan, build_candidate_index(plan, [("a" * 64, capture)])


def view(plan: ResolutionPlanOutput, index: CandidateIndex) -> SearchView:
    (search,) = index.searches
    return SearchView(
        search_id="Q1",
        term=search.term,
        catalog=search.catalog,
        role=search.role,
        mentions=list(plan.searches[0].mentions),
        capture_alias=search.capture_alias,
        truncated=search.truncated,
        candidates=[
            CandidateView(
                candidate_id=cid,
                identity=c.identity,
                name=c.name,
                tier=c.tier,
                catalog=c.catalog,
                catalog_kind=c.catalog_kind,
                capture_row=c.source_index,
                data=c.data,
            )
            for cid, c in zip(search.candidate_ids, search.candidates, strict=True)
        ],
        quest_relations=search.quest_relations,
    )


def heuristic(
    body: str, plan: ResolutionPlanOutput, index: CandidateIndex
) -> SearchAssessmentOutput:
    return assess_search(
        view(plan, index), {"S1": body}, helper_patterns(CATALOGS), "en", tiebreaks=True
    )


def codes(
    verdict: SearchAssessmentOutput | dict[str, Any],
    plan: ResolutionPlanOutput,
    index: CandidateIndex,
    body: str,
    spec: Any = V6,
) -> list[ErrorCode]:
    data = verdict if isinstance(verdict, dict) else verdict.model_dump(mode="json")
    assessment = ResolutionAssessmentOutput.model_validate({"assessments": [data]})
    return [f.code for f in validate_assessment(assessment, index, plan, case(body), spec)]


def test_a_named_quest_breaks_the_tie_and_the_controller_accepts_it() -> None:
    plan, index = resolved(QUEST_BODY, BISQUE)
    verdict = heuristic(QUEST_BODY, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    chosen = {c: i for c, i in zip(index.searches[0].candidate_ids, [2430, 20378], strict=True)}
    assert chosen[verdict.candidate_id or ""] == 2430
    tiebreak = verdict.tiebreak
    assert (tiebreak.fact, tiebreak.relation_row) == ("quest", 0)
    assert QUEST_BODY[tiebreak.span.start : tiebreak.span.end] == "Soothing Turtle Bisque"
    assert codes(verdict, plan, index, QUEST_BODY) == []


def test_a_localized_quest_title_breaks_the_tie_too() -> None:
    body = "Chef Jessen nimmt Beruhigende Schildkrötensuppe nicht an."
    plan, index = resolved(body, BISQUE)
    verdict = heuristic(body, plan, index)
    assert verdict.tiebreak is not None and verdict.tiebreak.relation_row == 1
    assert codes(verdict, plan, index, body) == []


def test_without_a_grounded_fact_the_tie_stays_ambiguous_and_a_bare_selection_is_refused() -> None:
    plan, index = resolved(PLAIN_BODY, BISQUE)
    verdict = heuristic(PLAIN_BODY, plan, index)
    assert verdict.status == "ambiguous" and len(verdict.competing_candidate_ids) == 2
    bare = {
        "search_id": "Q1",
        "status": "selected",
        "candidate_id": "Q1-C1",
        "capture": "F1",
        "capture_row": index.searches[0].candidates[0].source_index,
        "mention": plan.searches[0].mentions[0].model_dump(),
        "evidence": [{"source": "S1", "quote": PLAIN_BODY}],
        "rationale": "the first one",
    }
    assert codes(bare, plan, index, PLAIN_BODY) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]
    assert codes(bare, plan, index, PLAIN_BODY, V5) == []  # v1-v5 are judged as before


def test_a_quest_both_entities_give_breaks_nothing() -> None:
    shared = relations(
        (2430, "starts", 1218, None, "Soothing Turtle Bisque"),
        (20378, "ends", 1218, None, "Soothing Turtle Bisque"),
    )
    plan, index = resolved(QUEST_BODY, shared)
    assert heuristic(QUEST_BODY, plan, index).status == "ambiguous"
    start = QUEST_BODY.index("Soothing")
    forged = {
        "search_id": "Q1",
        "status": "selected",
        "candidate_id": "Q1-C1",
        "capture": "F1",
        "capture_row": index.searches[0].candidates[0].source_index,
        "mention": plan.searches[0].mentions[0].model_dump(),
        "evidence": [{"source": "S1", "quote": QUEST_BODY}],
        "rationale": "the quest",
        "tiebreak": {
            "fact": "quest",
            "span": {
                "source": "S1",
                "quote": "Soothing Turtle Bisque",
                "start": start,
                "end": start + 22,
            },
            "relation_row": 0,
        },
    }
    assert index.searches[0].candidates[0].identity == 2430  # row 0's entity, yet not apart
    assert codes(forged, plan, index, QUEST_BODY) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]


def test_a_link_breaks_the_tie() -> None:
    body = "Chef Jessen (https://www.wowhead.com/npc=20378) has no vendor window."
    plan, index = resolved(body, None)
    verdict = heuristic(body, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    assert verdict.tiebreak.fact == "link" and "npc=20378" in verdict.tiebreak.span.quote
    (chosen,) = [c for c in index.searches[0].candidates if c.identity == 20378]
    assert verdict.capture_row == chosen.source_index
    assert codes(verdict, plan, index, body) == []


def test_a_link_crossing_an_invisible_character_breaks_no_tie() -> None:
    """Found by tests/integration/test_perturbed_reports.py: a link with a zero-width or bidi
    character inside was offered as the tie-break span, and the controller refused it
    (CITATION_INVISIBLE_CHARACTER) until the case blocked."""
    body = "Chef Jessen (htt\u200ep://www.wowhead.com/npc=20378) has no vendor window."
    plan, index = resolved(body, None)
    verdict = heuristic(body, plan, index)
    assert verdict.status == "ambiguous" and verdict.tiebreak is None
    assert codes(verdict, plan, index, body) == []


def test_a_subname_breaks_the_tie() -> None:
    body = "Chef Jessen <Cooking Supplies> sells nothing."
    plan, index = resolved(body, None, subname="Cooking Supplies")
    verdict = heuristic(body, plan, index)
    assert verdict.tiebreak is not None and verdict.tiebreak.fact == "data_column"
    assert verdict.tiebreak.column == "subname"
    assert codes(verdict, plan, index, body) == []


def test_protocols_1_to_5_keep_their_assessment_schema_and_refuse_a_tiebreak() -> None:
    assert "tiebreak" not in str(provider_schema(LegacyAssessment))
    assert "tiebreak" in str(provider_schema(ResolutionAssessmentOutput))
    plan, index = resolved(QUEST_BODY, BISQUE)
    reply = {"assessments": [heuristic(QUEST_BODY, plan, index).model_dump(mode="json")]}
    old = assessment_validator(case(QUEST_BODY), plan, index, V5)(reply)
    assert isinstance(old, list) and old[0].code is ErrorCode.LLM_OUTPUT_SCHEMA
    new = assessment_validator(case(QUEST_BODY), plan, index, V6)(reply)
    assert isinstance(new, ResolutionAssessmentOutput)
    # a verdict without the new field keeps its bytes
    plain = {k: v for k, v in reply["assessments"][0].items() if k != "tiebreak"}
    assert "tiebreak" not in SearchAssessmentOutput.model_validate(plain).model_dump(mode="json")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> WorldDatabase:
    config = embedded_project_config(tmp_path_factory.mktemp("ws"))
    return WorldDatabase.from_config(config)


def test_the_relation_query_of_the_demo_db(demo: WorldDatabase, tmp_path: Path) -> None:
    found = demo.quest_relations([20378, 2430], 1000)
    assert found is not None and found.identities == [2430, 20378]
    assert {(r.identity, r.relation, r.title) for r in found.rows if r.locale is None} >= {
        (2430, "starts", "Soothing Turtle Bisque")
    }
    assert all(r.identity == 2430 for r in found.rows)  # 20378 gives no quest
    assert found.parameters["row_limit"] == 1001 and "'" not in found.sql
    small = demo.quest_relations([2430], 1)
    assert small is not None and small.truncated and len(small.rows) == 1
    config = embedded_project_config(tmp_path)
    creature_only = config.database.model_copy(
        update={"allowlist": [t for t in DEMO_ALLOWLIST if not t.startswith("quest_")]}
    )
    assert WorldDatabase(creature_only, config.catalogs).quest_relations([2430], 10) is None


def test_the_capture_holds_relations_only_under_v6_and_for_a_tie(demo: WorldDatabase) -> None:
    plan, _ = resolved(QUEST_BODY, None)
    result = demo.contains_search("creature_name", "Chef Jessen", 8)
    capture = CaptureArtifact(
        schema_version=2, search_id="Q1", search=plan.searches[0], result=result
    )
    assert with_quest_relations(capture, demo, V5) is capture
    assert "quest_relations" not in capture.model_dump(mode="json")
    with_facts = with_quest_relations(capture, demo, V6)
    assert with_facts.quest_relations is not None
    assert with_facts.quest_relations.identities == [2430, 20378]
    unique = demo.contains_search("creature_name", "Mankrik", 8)
    single = capture.model_copy(update={"result": unique})
    assert with_quest_relations(single, demo, V6).quest_relations is None


def test_the_provenance_check_of_a_capture_s_relations(demo: WorldDatabase) -> None:
    plan, _ = resolved(QUEST_BODY, None)
    result = demo.contains_search("creature_name", "Chef Jessen", 8)
    plain = CaptureArtifact(
        schema_version=2, search_id="Q1", search=plan.searches[0], result=result
    )
    capture = with_quest_relations(plain, demo, V6)
    assert relation_capture_findings(capture, True, "Q1", "c") == []
    assert relation_capture_findings(plain, False, "Q1", "c") == []
    assert [f.code for f in relation_capture_findings(capture, False, "Q1", "c")] == [
        ErrorCode.CAPTURE_SEARCH_DIFFERS,  # zone markers in a revision of a protocol before v6
        ErrorCode.CAPTURE_SEARCH_DIFFERS,  # relations in a revision of a protocol before v6
    ]
    assert capture.quest_relations is not None
    other = capture.quest_relations.model_copy(update={"identities": [20378]})
    assert [
        f.code
        for f in relation_capture_findings(
            capture.model_copy(update={"quest_relations": other}), True, "Q1", "c"
        )
    ] == [ErrorCode.CAPTURE_SEARCH_DIFFERS, ErrorCode.CAPTURE_IDENTITY_DIFFERS]


def test_the_word_boss_breaks_a_tie_when_one_alone_has_the_boss_rank() -> None:
    body = "Sunwell Plateau boss by boss: Chef Jessen is not scripted."
    plan, index = resolved(body, None)
    ranks = {2430: 3, 20378: 0}
    search = index.searches[0]
    candidates = [
        c.model_copy(update={"data": {"rank": ranks[int(c.identity)]}}) for c in search.candidates
    ]
    index = index.model_copy(
        update={"searches": [search.model_copy(update={"candidates": candidates})]}
    )
    verdict = heuristic(body, plan, index)
    assert verdict.tiebreak is not None and verdict.tiebreak.column == "rank"
    assert verdict.tiebreak.span.quote == "boss"
    (chosen,) = [c for c in candidates if c.identity == 2430]
    assert verdict.capture_row == chosen.source_index
    assert codes(verdict, plan, index, body) == []
    both = [c.model_copy(update={"data": {"rank": 3}}) for c in search.candidates]
    index = index.model_copy(update={"searches": [search.model_copy(update={"candidates": both})]})
    assert heuristic(body, plan, index).status == "ambiguous"
