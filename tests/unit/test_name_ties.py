"""Ties among rows of a full name that a short or partial term finds (issue 29 item 4, protocol v6).

Fixtures are made-up reports over real rows of the demo world DB: the term "Hearthsinger" (the
planner's part of a misspelled "Hearthsinger Forreston") finds the two rows named "Hearthsinger
Forresten" (10558 has spawn markers in Stratholme, 30551 in The Culling of Stratholme). No row is
named the term, so before this change no tie fact was recorded and the controller accepted a
selection of either row without a tie-break. The captures are recorded by the real adapter
(:func:`with_quest_relations`); the heuristic verdicts test quality (which row the zone tells apart,
and that none is chosen without it), the forged verdicts test the controller's refusal.
"""

from typing import Any

import pytest

from resources.world_db import WorldDatabase
from tests.unit.test_zone_tiebreaks import case, codes, context, heuristic, identity_of, sources
from vba_assets.config import embedded_project_config
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.context import build_candidate_index
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    CaptureArtifact,
    MentionCitation,
    ProposedSearch,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.resolution.relation_facts import relation_capture_findings
from vba_assets.domain.resolution.rules import readable_sources, validate_assessment
from vba_assets.domain.resolution.same_names import capture_ties
from vba_assets.domain.stage_context import CandidateView, SearchView
from vba_assets.errors import ErrorCode
from vba_assets.heuristic.candidate_names import helper_patterns
from vba_assets.heuristic.tiebreaks import find_tiebreak, spelling_group
from vba_assets.pipeline.tiebreak_captures import with_quest_relations

V6 = protocol(6)
TERM = "Hearthsinger"
WRITTEN = "Hearthsinger Forreston"
ZONE_BODY = f"{WRITTEN} in Stratholme does not drop his lute when he dies."
PLAIN_BODY = f"{WRITTEN} does not drop his lute when he dies."


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> WorldDatabase:
    config = embedded_project_config(tmp_path_factory.mktemp("ws"))
    return WorldDatabase.from_config(config)


def short_plan(body: str) -> ResolutionPlanOutput:
    """The term ``Hearthsinger`` cited by the whole misspelled mention (what the planner does)."""
    mentions = [
        MentionCitation(source=alias, quote=WRITTEN, start=i, end=i + len(WRITTEN))
        for alias, text in readable_sources(case(body)).items()
        for i in range(len(text))
        if text.startswith(WRITTEN, i)
    ]
    proposed = ProposedSearch(
        term=TERM, catalog="creature_name", role="affected_subject", mentions=mentions
    )
    return ResolutionPlanOutput(searches=[proposed])


def short_index(
    demo: WorldDatabase, body: str
) -> tuple[ResolutionPlanOutput, CandidateIndex, CaptureArtifact]:
    plan = short_plan(body)
    result = demo.contains_search("creature_name", TERM, 8)
    plain = CaptureArtifact(
        schema_version=2, search_id="Q1", search=plan.searches[0], result=result
    )
    capture = with_quest_relations(plain, demo, V6)
    return plan, build_candidate_index(plan, [("a" * 64, capture)]), capture


def test_the_capture_records_the_facts_of_a_same_name_group_that_is_not_the_term(
    demo: WorldDatabase,
) -> None:
    _, _, capture = short_index(demo, ZONE_BODY)
    assert not capture.result.truncated
    assert {row.name for row in capture.result.rows} == {"Hearthsinger Forresten"}
    assert capture_ties(capture.result.rows) == [10558, 30551]
    zones, relations = capture.zone_markers, capture.quest_relations
    assert zones is not None and zones.identities == [10558, 30551]
    assert relations is not None and relations.identities == [10558, 30551]
    named = {(r.identity, r.name) for r in zones.rows}
    assert (10558, "Stratholme") in named and (30551, "The Culling of Stratholme") in named
    assert relation_capture_findings(capture, True, "Q1", "c") == []
    # under v5 the same capture records nothing, and recorded facts are refused there
    plain = capture.model_copy(update={"zone_markers": None, "quest_relations": None})
    assert with_quest_relations(plain, demo, protocol(5)) == plain
    assert ErrorCode.CAPTURE_SEARCH_DIFFERS in [
        f.code for f in relation_capture_findings(capture, False, "Q1", "c")
    ]


def test_a_named_zone_selects_one_row_of_the_full_name_a_near_spelling_finds(
    demo: WorldDatabase,
) -> None:
    plan, index, capture = short_index(demo, ZONE_BODY)
    verdict = heuristic(ZONE_BODY, plan, index)
    assert verdict.status == "selected"
    assert identity_of(index, verdict.candidate_id) == 10558
    assert verdict.tiebreak is not None and verdict.tiebreak.fact == "zone"
    span = verdict.tiebreak.span
    assert sources(ZONE_BODY)[span.source][span.start : span.end] == "Stratholme"
    assert capture.zone_markers is not None and verdict.tiebreak.zone_row is not None
    row = capture.zone_markers.rows[verdict.tiebreak.zone_row]
    assert (row.identity, row.name) == (10558, "Stratholme")
    assert codes(verdict, plan, index, ZONE_BODY) == []


def test_without_a_zone_the_full_name_stays_ambiguous(demo: WorldDatabase) -> None:
    plan, index, _ = short_index(demo, PLAIN_BODY)
    verdict = heuristic(PLAIN_BODY, plan, index)
    assert verdict.status == "ambiguous"
    competing = {identity_of(index, c) for c in verdict.competing_candidate_ids}
    assert competing == {10558, 30551}


def _forged(verdict: Any, **update: Any) -> dict[str, Any]:
    data: dict[str, Any] = verdict.model_dump(mode="json")
    data.update(update)
    return data


def test_the_controller_refuses_a_selection_among_same_name_rows_without_a_grounded_tiebreak(
    demo: WorldDatabase,
) -> None:
    plan, index, capture = short_index(demo, ZONE_BODY)
    good = heuristic(ZONE_BODY, plan, index)
    assert good.status == "selected" and good.tiebreak is not None
    ungrounded = ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED
    # no tie-break at all: the name is shared, though it is not the term
    assert ungrounded in codes(_forged(good, tiebreak=None), plan, index, ZONE_BODY)
    # the other row of the name, citing the same zone row: the row is not its own
    other = next(c for c in index.searches[0].candidate_ids if c != good.candidate_id)
    other_row = index.searches[0].candidate(other)
    assert other_row is not None and other_row.identity == 30551
    forged = _forged(good, candidate_id=other, capture_row=other_row.source_index)
    assert ungrounded in codes(forged, plan, index, ZONE_BODY)
    # the other row citing its own zone row, which the report does not write
    assert capture.zone_markers is not None
    own = next(i for i, r in enumerate(capture.zone_markers.rows) if r.identity == 30551)
    tiebreak = dict(good.model_dump(mode="json")["tiebreak"], zone_row=own)
    forged = _forged(
        good, candidate_id=other, capture_row=other_row.source_index, tiebreak=tiebreak
    )
    assert ungrounded in codes(forged, plan, index, ZONE_BODY)
    # under v5 the rule does not exist: the selection without a tie-break is judged as before
    assessment = ResolutionAssessmentOutput.model_validate(
        {"assessments": [_forged(good, tiebreak=None)]}
    )
    found = validate_assessment(assessment, index, plan, case(ZONE_BODY), protocol(5))
    assert ungrounded not in [f.code for f in found]


def _view(demo: WorldDatabase, body: str) -> SearchView:
    plan, index, _ = short_index(demo, body)
    (view,) = context(body, plan, index).searches
    return view


def _with(view: SearchView, *candidates: CandidateView) -> SearchView:
    return view.model_copy(update={"candidates": [*view.candidates, *candidates]})


def test_a_numbered_copy_of_the_name_is_no_rival_but_another_near_name_is(
    demo: WorldDatabase,
) -> None:
    """Quality: ``Name (1)`` (a script copy) scores close to the name itself and does not keep
    the group from its tie-break; a different near name does (the margin of rule 4)."""
    view = _view(demo, ZONE_BODY)
    base = view.candidates[0]
    assert spelling_group(view) is not None

    def extra(name: str) -> CandidateView:
        return base.model_copy(
            update={"candidate_id": "Q1-C9", "identity": 99999, "name": name, "capture_row": 9}
        )

    group = spelling_group(_with(view, extra("Hearthsinger Forresten (1)")))
    assert group is not None and group.name == "Hearthsinger Forresten"
    assert spelling_group(_with(view, extra("Hearthsinger Forrestin"))) is None


def test_a_level_one_row_of_the_name_is_never_chosen_by_a_fact(demo: WorldDatabase) -> None:
    """Quality: a link to the Stratholme row selects it; the same link to a level-1 copy of the
    name (a script dummy) does not."""
    body = f"{WRITTEN} (npc=10558) does not drop his lute when he dies."
    view = _view(demo, body)
    patterns = helper_patterns(embedded_project_config("/tmp/unused").catalogs)
    group = spelling_group(view)
    assert group is not None
    found = find_tiebreak(view, sources(body), patterns, ("link",), group)
    assert found is not None and found[0].identity == 10558 and found[1].fact == "link"
    dummy = view.model_copy(
        update={
            "candidates": [
                c.model_copy(update={"data": {**c.data, "maxlevel": 1}})
                if c.identity == 10558
                else c
                for c in view.candidates
            ]
        }
    )
    assert find_tiebreak(dummy, sources(body), patterns, ("link",), group) is None
