"""Two spellings searched by the same literal text make one search that cites both.

A plan never holds two searches with the same term and catalog (``PLAN_DUPLICATE_SEARCH``): the
heuristic's own plan would be rejected and the case blocked. Two spellings of one name can reach
the same search text: a typographic apostrophe is left out ("Thuzad" of "Kel’Thuzad" and of
"Kel‘Thuzad"), and two misspellings share their searched part ("Sind" of "Sindagoza" and
"Sindagosa"). The second report is an excerpt of REAL-AC-15409 of the study split
eval/real/dev2.jsonl.
"""

from tests.unit.test_heuristic_planning import Reports, plan_text, reports
from vba_assets.heuristic.name_index import NameIndex

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)


def test_two_apostrophes_make_one_search_citing_both(reports: Reports, names: NameIndex) -> None:
    # plan_text validates the plan: a duplicate search fails it.
    searches = plan_text(
        reports,
        names,
        "Kel’Thuzad does not spawn",
        "Kel’Thuzad does not spawn in Naxxramas. We waited for Kel‘Thuzad for an hour.",
    )
    assert list(searches) == ["Thuzad"]
    quotes = [(m.source, m.quote) for m in searches["Thuzad"].mentions]
    assert quotes == [("S1", "Kel’Thuzad"), ("S2", "Kel’Thuzad"), ("S2", "Kel‘Thuzad")]


def test_two_misspellings_searched_by_one_part_cite_both(
    reports: Reports, names: NameIndex
) -> None:
    searches = plan_text(
        reports,
        names,
        "Two BUGs of IcecrownCitadel",
        "2: The bug of Sindagoza is very serious. When the small monster in front is handled, "
        "Sindagoza will be automatically activated.\n\n"
        "2：After dealing with the small monster in front of Sindagosa, it is still flying in "
        "the sky.",
    )
    assert [m.quote for m in searches["Sind"].mentions] == ["Sindagoza", "Sindagoza", "Sindagosa"]
