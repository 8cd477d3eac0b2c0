"""``NameIndex.closest`` scores only names whose shape can reach the cutoff: the same answer as
scoring every name (:func:`tests.reference.name_index.plain_closest`), on the packaged index and on
arbitrary text."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resources.llm.heuristic_index import packaged_name_index
from tests.reference.name_index import plain_closest
from vba_assets.heuristic.name_index import IndexedName, NameIndex, build_name_index

CUTOFFS = (50.0, 78.0, 84.0, 95.0)


def _both(index: NameIndex, query: str, cutoff: float) -> tuple[list[object], list[object]]:
    return index.closest(query, cutoff, limit=6), plain_closest(index, query, cutoff, limit=6)


def _mutations(keys: tuple[str, ...], count: int) -> list[str]:
    """Real names with one or two letters replaced, inserted or dropped (seeded)."""
    rng = random.Random(20261201)
    letters = "aeiourstxzкаоé中 '-"
    found = []
    for _ in range(count):
        name = rng.choice(keys)
        for _ in range(rng.randint(1, 2)):
            at = rng.randrange(len(name) + 1)
            change = rng.choice(("replace", "insert", "drop"))
            if change == "insert":
                name = name[:at] + rng.choice(letters) + name[at:]
            elif change == "replace":
                name = name[:at] + rng.choice(letters) + name[at + 1 :]
            elif len(name) > 1:
                name = name[:at] + name[at + 1 :]
        found.append(name)
    return found


@pytest.fixture(scope="module")
def packaged() -> NameIndex:
    return packaged_name_index()


def test_the_shortlist_answers_like_scoring_every_packaged_name(packaged: NameIndex) -> None:
    written = [
        "Ancient Core Hount", "Corporate Keeshan", "Hoggar", "Грубобрюха", "Дикий вольпертингер",
        "Marshall Dughan", "Kalecgoes", "Wilden Wolpertinger", "野生的", "늑대", "a", "%_'",
        "Hogger Hogger Hogger Hogger Hogger", "x" * 80,
    ]  # fmt: skip
    queries = written + _mutations(packaged.keys(), 60)
    differing = []
    reached = 0
    for number, query in enumerate(queries):
        fast, plain = _both(packaged, query, CUTOFFS[number % len(CUTOFFS)])
        reached += bool(plain)
        if fast != plain:
            differing.append((query, fast, plain))
    assert differing == []
    assert (
        reached > len(queries) // 2
    )  # most queries have close names: the comparison says something


def _index(names: list[str]) -> NameIndex:
    entries = [IndexedName(number + 1, name) for number, name in enumerate(names)]
    return build_name_index(entries, [], {"names": "0" * 64})


TEXT = st.text(alphabet=st.sampled_from("abcé кд中 '-x"), min_size=1, max_size=14)


@settings(max_examples=150, deadline=None)
@given(names=st.lists(TEXT, min_size=1, max_size=25), query=TEXT, cutoff=st.sampled_from(CUTOFFS))
def test_the_shortlist_answers_like_scoring_every_name_on_arbitrary_text(
    names: list[str], query: str, cutoff: float
) -> None:
    fast, plain = _both(_index(names), query, cutoff)
    assert fast == plain
