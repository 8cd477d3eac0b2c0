"""Terms any literal contains search finds: typographic apostrophes and non-ASCII case."""

import pytest

from vba_assets.heuristic.literal_terms import case_safe, literal_term
from vba_assets.heuristic.name_index import IndexedName, NameIndex, build_name_index
from vba_assets.heuristic.spans import Span
from vba_assets.heuristic.terms import Term


@pytest.fixture(scope="module")
def index() -> NameIndex:
    names = [
        IndexedName(36, "Harvest Golem"),
        IndexedName(36, "Уборочный голем", "ruRU"),
        IndexedName(16028, "Patchwerk"),
        IndexedName(16028, "Лоскутик", "ruRU"),
        IndexedName(27773, "Patchwerk's Projection"),
        IndexedName(27773, "Проекция Лоскутика", "ruRU"),
        IndexedName(68, "Stormwind City Guard"),
        IndexedName(68, "Штормградский стражник", "ruRU"),
        IndexedName(1, "Голем"),
        IndexedName(2, "Голем"),
    ]
    return build_name_index(names, [], {"test": "0"})


def _term(text: str) -> Term:
    return Term(text.casefold(), [Span("body", 0, 0, len(text), text, "run", len(text.split()))])


def test_a_typographic_apostrophe_leaves_the_longest_part() -> None:
    assert literal_term("Kel’Thuzad") == "Thuzad"
    assert literal_term("Kel'Thuzad") == "Kel'Thuzad"  # the catalog's own apostrophe
    assert literal_term("A’b") == "A’b"  # no part long enough


def test_a_name_in_another_non_ascii_case_is_searched_by_what_the_catalog_holds(
    index: NameIndex,
) -> None:
    assert case_safe(_term("лоскутик"), index).search_text == "оскутик"
    assert case_safe(_term("Уборочный Голем"), index).search_text == "Уборочный"
    assert case_safe(_term("ШТОРМГРАДСКИЙ стражник"), index).search_text == "стражник"


def test_a_term_the_catalog_holds_as_written_or_an_ascii_one_is_unchanged(
    index: NameIndex,
) -> None:
    for text in ("Лоскутик", "Уборочный голем", "patchwerk", "HARVEST GOLEM"):
        term = _term(text)
        assert case_safe(term, index) is term


def test_a_part_reaching_other_entities_or_too_short_is_not_used(index: NameIndex) -> None:
    # the only stretch "голем" is also the whole name of entities 1 and 2: not used
    other = _term("УБОРОЧНЫЙ голем")
    assert case_safe(other, index) is other
    # "гОЛЕМ" shares only its first letter with "Голем"
    short = _term("гОЛЕМ")
    assert case_safe(short, index) is short
