"""Protocol v6: a boss written in lower case is selected from its exact-name capture
(:func:`vba_assets.heuristic.exact_coverage.written_as_name`), and a name that is a localized
row only as written is searched by the primary name of the same form in an English report
(:mod:`vba_assets.heuristic.separators`).

Made-up reports over the demo world DB and the packaged name index; quality tests (what is
selected or searched), every assessment and plan passing the controller's rules.
"""

from typing import Any

from resources.world_db import WorldDatabase
from tests.unit.test_exact_name_coverage import V6, resolve, workspace
from tests.unit.test_heuristic_assessment import case_doc, search
from tests.unit.test_heuristic_planning import CATALOGS
from vba_assets.domain.resolution.models import ResolutionPlanOutput
from vba_assets.domain.resolution.rules import validate_assessment, validate_plan
from vba_assets.domain.stage_context import plan_stage_context
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.planning import plan_searches
from vba_assets.store import Workspace

__all__ = ["workspace"]  # the fixture, imported for pytest


def _statuses(case: dict[str, Any], term: str, world: WorldDatabase) -> tuple[str, int | None]:
    plan = ResolutionPlanOutput(searches=[search(case, term, "affected_subject", "creature_name")])
    assessment, index = resolve(case, plan, world, exact=True)
    assert validate_assessment(assessment, index, plan, case, V6) == []
    (verdict,) = assessment.assessments
    own = index.searches[0]
    assert own.exact is not None and own.truncated
    found = own.candidate(verdict.candidate_id)
    return verdict.status, None if found is None else int(found.identity)


def test_a_boss_written_in_lower_case_is_selected_from_its_exact_capture(
    workspace: Workspace, world: WorldDatabase
) -> None:
    """ "onyxia" only in lower case: its exact-name capture holds the boss Onyxia (10184), so
    the lower-case mention is a name (a common word or a creature that is no boss still needs a
    capital letter: see tests/unit/test_exact_name_coverage.py)."""
    case = case_doc(
        workspace,
        "LOWER-ONYXIA",
        "raid boss stuck",
        "in the lair onyxia stays on the ground at 65% health and never breathes.",
    )
    assert _statuses(case, "onyxia", world) == ("selected", 10184)


def test_an_english_report_searches_the_primary_spelling_of_a_localized_form(
    workspace: Workspace, names: NameIndex
) -> None:
    """ "Edwin Van Cleef" is, as written, only a localized row of Edwin VanCleef (639): in an
    English report it is searched as "Edwin VanCleef" in the primary catalog, corrected from
    the written span (before: the localized catalog, weak evidence in English)."""
    case = case_doc(
        workspace,
        "SEPARATOR-VANCLEEF",
        "Deadmines boss",
        "Edwin Van Cleef does not summon his Blackguards at half health.",
    )
    context = plan_stage_context(case, CATALOGS, 4)
    plan = plan_searches(context, names, True)
    assert validate_plan(plan, case, CATALOGS, 4, V6) == []
    (found,) = [s for s in plan.searches if s.term == "Edwin VanCleef"]
    assert found.catalog == "creature_name"
    assert found.corrected_from is not None and found.corrected_from.quote == "Edwin Van Cleef"
