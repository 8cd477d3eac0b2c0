"""Issue 29 item 5: a planner that searches what matters (small made-up reports, the packaged
name index). Each test asserts a behaviour of the plan (quality), not plumbing."""

from tests.unit.test_heuristic_planning import Reports, by_term, plan_for, reports
from vba_assets.heuristic.name_index import NameIndex

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)


def test_one_search_per_distinct_creature_before_a_second_name_of_the_same(
    reports: Reports, names: NameIndex
) -> None:
    """The German and the English name of Marshal Dughan are one creature: with a budget of two,
    the second search goes to Hogger, not to the English name (which the order of first mention
    would have taken); with room for all, the English name is still searched."""
    case = reports.text(
        "ISSUE29-DISTINCT",
        "Marschall Dughan gibt keine Quest",
        "Marschall Dughan (Marshal Dughan im englischen Client) gibt keine Quest. "
        "Daneben steht Hogger.",
    )
    tight = by_term(plan_for(case, names, max_searches=2))
    assert set(tight) == {"Marschall Dughan", "Hogger"}
    roomy = by_term(plan_for(case, names, max_searches=4))
    assert set(roomy) == {"Marschall Dughan", "Marshal Dughan", "Hogger"}
