"""Protocol v6: a boss's short form selected from a complete capture
(:mod:`vba_assets.heuristic.short_forms`).

Made-up reports, each search captured on the embedded demo world DB and assessed with the v6
rules; every assessment passes the controller's rules. These test quality (what is selected).
"""

import hashlib
from typing import Any

from resources.world_db import WorldDatabase
from tests.unit.test_heuristic_assessment import CATALOGS, SPEC, case_doc, search, workspace
from vba_assets.domain.resolution.context import build_candidate_index, search_ids
from vba_assets.domain.resolution.models import (
    CaptureArtifact,
    ResolutionPlanOutput,
    SearchAssessmentOutput,
)
from vba_assets.domain.resolution.rules import validate_assessment, validate_plan
from vba_assets.domain.stage_context import assessment_stage_context
from vba_assets.heuristic.assessment import assess_searches
from vba_assets.store import Workspace

__all__ = ["workspace"]  # the fixture, imported for pytest


def _verdict(
    case: dict[str, Any], term: str, world: WorldDatabase, tiebreaks: bool = True
) -> tuple[SearchAssessmentOutput, dict[str, Any]]:
    """The verdict on a search for ``term`` (every occurrence cited) and its candidates' ids."""
    plan = ResolutionPlanOutput(searches=[search(case, term, "affected_subject", "creature_name")])
    assert validate_plan(plan, case, CATALOGS, 8, SPEC) == []
    captures = []
    for search_id, proposed in zip(search_ids(plan), plan.searches, strict=True):
        result = world.contains_search(proposed.catalog, proposed.term, 8)
        capture = CaptureArtifact(search_id=search_id, search=proposed, result=result)
        digest = hashlib.sha256(capture.model_dump_json().encode()).hexdigest()
        captures.append((digest, capture))
    index = build_candidate_index(plan, captures)
    context = assessment_stage_context(case, plan, index)
    assessment = assess_searches(context, CATALOGS, tiebreaks)
    assert validate_assessment(assessment, index, plan, case, SPEC) == []
    found = index.searches[0]
    ids = {cid: c.identity for cid, c in zip(found.candidate_ids, found.candidates, strict=True)}
    return assessment.assessments[0], ids


def test_the_only_boss_holding_the_word_is_selected_with_v6_only(
    workspace: Workspace, world: WorldDatabase
) -> None:
    """ "Morogrim" is a whole word of one captured name only, a boss's (Morogrim Tidewalker,
    21213): selected with the v6 rules, ambiguous before ("a similar name alone")."""
    case = case_doc(
        workspace,
        "SHORT-MOROGRIM",
        "Pack evades",
        "When we were doing Morogrim trash, one mob got stuck under the floor and the pack evaded.",
    )
    chosen, ids = _verdict(case, "Morogrim", world)
    assert chosen.status == "selected" and chosen.candidate_id is not None
    assert ids[chosen.candidate_id] == 21213
    assert chosen.mention is not None and chosen.mention.quote == "Morogrim"
    before, _ = _verdict(case, "Morogrim", world, tiebreaks=False)
    assert before.status == "ambiguous"


def test_a_short_form_two_bosses_share_stays_ambiguous(
    workspace: Workspace, world: WorldDatabase
) -> None:
    """ "Kazzak" is a whole word of Lord Kazzak's and Doom Lord Kazzak's names: no selection."""
    case = case_doc(
        workspace, "SHORT-KAZZAK", "World boss", "There is no issue with Kazzak, he spawns fine."
    )
    verdict, ids = _verdict(case, "Kazzak", world)
    assert verdict.status == "ambiguous"
    assert len({ids[c] for c in verdict.competing_candidate_ids}) >= 2


def test_a_short_form_the_report_writes_inside_a_longer_name_is_not_selected(
    workspace: Workspace, world: WorldDatabase
) -> None:
    """The title's "Majordomo" is a whole word of one boss's name (Majordomo Executus), but the
    body writes "majordomo staghelm", a later expansion's boss: the title is that one's short
    form, and nothing is selected."""
    case = case_doc(
        workspace,
        "SHORT-MAJORDOMO",
        "[Raid] Majordomo",
        "The boss majordomo staghelm resets after changing from cat to scorpion form.",
    )
    verdict, _ = _verdict(case, "Majordomo", world)
    assert verdict.status == "ambiguous"


def test_a_dropped_title_of_one_name_is_selected_and_a_one_word_tail_is_not(
    workspace: Workspace, world: WorldDatabase
) -> None:
    """ "Inquisitor Whitemane" ends one name only, High Inquisitor Whitemane's (3977, an elite,
    no boss): a dropped title, selected with the v6 rules. "Whitemane" alone, one word of a name
    that is no boss's, is not."""
    body = "Inquisitor Whitemane does not resurrect Scarlet Commander Mograine in phase two."
    case = case_doc(workspace, "SHORT-TITLE", "Cathedral", body)
    chosen, ids = _verdict(case, "Inquisitor Whitemane", world)
    assert chosen.status == "selected" and chosen.candidate_id is not None
    assert ids[chosen.candidate_id] == 3977
    single = case_doc(workspace, "SHORT-ONE-WORD", "Cathedral", body.replace("Inquisitor ", ""))
    verdict, _ = _verdict(single, "Whitemane", world)
    assert verdict.status != "selected"
