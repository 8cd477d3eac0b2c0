"""Names written with other separators (protocol v6, :mod:`vba_assets.heuristic.separators`).

Small made-up reports and the packaged name index; the plans test quality (what is searched and
with which ``corrected_from``), and every plan passes the controller's rules of protocol 6.
"""

from tests.unit.test_heuristic_planning import CATALOGS, Reports, reports
from vba_assets.domain.protocol import current_protocol
from vba_assets.domain.resolution.models import ResolutionPlanOutput
from vba_assets.domain.resolution.rules import validate_plan
from vba_assets.domain.stage_context import plan_stage_context
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.planning import plan_searches

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)


def _plans(
    case: dict[str, object], names: NameIndex
) -> tuple[ResolutionPlanOutput, ResolutionPlanOutput]:
    """The plan without and with protocol v6 corrections (each valid for protocol 6)."""
    context = plan_stage_context(case, CATALOGS, 4)
    plans = []
    for corrected in (False, True):
        plan = plan_searches(context, names, corrected)
        assert validate_plan(plan, case, CATALOGS, 4, current_protocol()) == []
        plans.append(plan)
    return plans[0], plans[1]


def test_a_name_written_with_a_space_is_searched_by_the_catalog_spelling(
    reports: Reports, names: NameIndex
) -> None:
    """ "Yogg Saron" (Yogg-Saron) was searched by the literal stretch "Saron" (a truncated
    capture); with corrections it is searched as "Yogg-Saron", corrected from the written span,
    and the lower-case "yogg saron" is cited too."""
    case = reports.text(
        "SEPARATOR-YOGG",
        "Yogg Saron resets in phase 3",
        "In phase 3 Yogg Saron resets when the brain room closes; yogg saron heals to full.",
    )
    plain, corrected = _plans(case, names)
    assert "Yogg-Saron" not in [s.term for s in plain.searches]
    search = next(s for s in corrected.searches if s.term == "Yogg-Saron")
    assert search.corrected_from is not None and search.corrected_from.quote == "Yogg Saron"
    assert {m.quote for m in search.mentions} == {"Yogg Saron", "yogg saron"}
    assert not any(s.term == "Saron" for s in corrected.searches)


def test_lower_case_and_apostrophe_free_spellings_of_bosses(
    reports: Reports, names: NameIndex
) -> None:
    """ "zul jin" (no span at all before: lower case) and "Kelthuzad" (no apostrophe) name
    bosses: each is searched by its catalog spelling, once."""
    case = reports.text(
        "SEPARATOR-LOWER",
        "zul jin does not jump",
        "zul jin stays in troll form. Later Kelthuzad never summons his adds.",
    )
    _, corrected = _plans(case, names)
    terms = [s.term for s in corrected.searches]
    assert terms.count("Zul'jin") == 1 and terms.count("Kel'Thuzad") == 1
    zul = next(s for s in corrected.searches if s.term == "Zul'jin")
    assert zul.corrected_from is not None and zul.corrected_from.quote == "zul jin"


def test_common_words_and_longer_names_are_not_corrected(
    reports: Reports, names: NameIndex
) -> None:
    """A run of common words is never corrected, and a run inside a longer name the report
    writes with other separators is that longer name, not the shorter one."""
    case = reports.text(
        "SEPARATOR-NONE",
        "Guardian of Yogg Saron",
        "The Guardian of Yogg Saron spawns twice.",
    )
    _, corrected = _plans(case, names)
    terms = [s.term for s in corrected.searches]
    assert "Yogg-Saron" not in terms
    assert "Guardian of Yogg-Saron" in terms


def test_joined_words_only_for_a_boss_name_of_several_words(
    reports: Reports, names: NameIndex
) -> None:
    """ "Hexlord Malacrass" joins two words of the boss Hex Lord Malacrass (it is only a
    localized row as written): searched as the primary name. "Netherstorm", the zone, joins the
    two words of the creature Nether Storm (no boss, one word written): never corrected."""
    case = reports.text(
        "SEPARATOR-JOINED",
        "Hexlord Malacrass evades",
        "Hexlord Malacrass evades after mind control; the Netherstorm quests work.",
    )
    _, corrected = _plans(case, names)
    terms = [s.term for s in corrected.searches]
    assert "Hex Lord Malacrass" in terms
    assert "Nether Storm" not in terms
