"""The heuristic planner's corrected searches (protocol v6, :mod:`vba_assets.heuristic.corrections`).

Small made-up reports and the packaged name index; the plans test quality (what is searched), and
every plan passes the controller's rules of the current protocol.
"""

from tests.unit.test_heuristic_planning import CATALOGS, Reports, reports
from vba_assets.domain.protocol import current_protocol
from vba_assets.domain.resolution.rules import validate_plan
from vba_assets.domain.stage_context import plan_stage_context
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.planning import plan_searches

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)


def _plans(case: dict[str, object], names: NameIndex) -> tuple[list[str], list[str]]:
    """The searched terms without and with corrections (each plan valid for protocol 6)."""
    context = plan_stage_context(case, CATALOGS, 4)
    terms = []
    for corrected in (False, True):
        plan = plan_searches(context, names, corrected)
        assert validate_plan(plan, case, CATALOGS, 4, current_protocol()) == []
        terms.append([s.term for s in plan.searches])
    return terms[0], terms[1]


def test_a_misspelled_boss_is_searched_by_its_corrected_name_only_with_corrections(
    reports: Reports, names: NameIndex
) -> None:
    """ "Onixia" and "Muru" have no literal part worth searching (one edit each, the assessment's
    word-by-word misspelling test: :mod:`~vba_assets.heuristic.spelling_words`); "Brtallus" keeps its literal
    part ("tallus", :mod:`~vba_assets.heuristic.misspellings`) with or without corrections."""
    case = reports.text(
        "CORRECTED-BOSSES",
        "Onixia never takes off",
        "Onixia stays on the ground, Brtallus never casts Stomp, and after him Muru despawns.",
    )
    plain, corrected = _plans(case, names)
    assert "Onyxia" not in plain and "M'uru" not in plain
    assert "Onyxia" in corrected and "M'uru" in corrected
    assert "tallus" in plain and "tallus" in corrected


def test_no_correction_for_words_near_no_boss_or_only_inflected(
    reports: Reports, names: NameIndex
) -> None:
    """ "Trek" is one letter from several creatures (no margin), "Durotar" differs from the
    creature "Durotan" only in its last letter, "Poster" is close to a creature that is no boss."""
    case = reports.text(
        "CORRECTED-NONE",
        "Poster in Durotar",
        "The Poster near the Trek road in Durotar shows the wrong text.",
    )
    plain, corrected = _plans(case, names)
    assert plain == corrected


def test_no_correction_that_the_word_by_word_misspelling_test_refuses(
    reports: Reports, names: NameIndex
) -> None:
    """ "velonara" (of the later-expansion "Dark Ranger Velonara", eval/later_expansion.jsonl) is
    two edits from the boss Velanaa in a seven-letter word, and "Onixya" two from Onyxia in six:
    the controller's bound allows both, the word-by-word test does not, so neither is corrected
    (both were before it)."""
    case = reports.text(
        "CORRECTED-REFUSED",
        "dark ranger velonara is bugged",
        "Onixya and dark ranger velonara just stand there and do not attack anyone.",
    )
    plain, corrected = _plans(case, names)
    assert "Velanaa" not in corrected and "Onyxia" not in corrected
    assert plain == corrected
