"""A boss named by one word of his name is searched; a place that ordinary names carry is not.

The creature rank of the packaged data (``creature_template.rank`` 3 = boss) tells the two apart
(:meth:`~vba_assets.heuristic.gazetteer.Gazetteer.mostly_bosses`). The report texts are
excerpts of real tracker reports of the study split eval/real/dev2.jsonl (the case ids are named);
the held-out test split is never read here.
"""

import pytest

from tests.unit.test_heuristic_planning import Reports, plan_text, reports
from vba_assets.domain.stage_context import CatalogView
from vba_assets.heuristic.gazetteer import build_gazetteer
from vba_assets.heuristic.name_index import IndexedName, NameIndex, build_name_index

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)

PRIMARY = (CatalogView(name="creature_name", entity_type="creature", kind="name"),)


def test_the_short_form_of_a_boss_is_searched(reports: Reports, names: NameIndex) -> None:
    # REAL-VALHALLA-3701
    searches = plan_text(
        reports,
        names,
        "Raid: Black Temple-Illidan",
        "Fight is working well. All mechanics and dialogues works. However scenes are somewhat "
        "bugged. Instead of Illidan looking at skull, he already standing and instead of flying "
        "while he is in phase 2n he simply rubs to the centre.",
    )
    assert "Illidan" in searches


def test_a_place_whose_name_ordinary_creatures_carry_is_not_searched(
    reports: Reports, names: NameIndex
) -> None:
    searches = plan_text(
        reports,
        names,
        "Portal trainer",
        "The portal trainer in Stormwind never offers the portal to Dalaran, although the one "
        "in Orgrimmar does.",
    )
    assert not {"Stormwind", "Dalaran", "Orgrimmar"} & set(searches)


@pytest.mark.parametrize(
    ("word", "short_form"),
    [
        ("Illidan", True),  # 7 of the 13 names that hold the word are bosses
        ("Mograine", True),  # 12 of 18
        ("Razorgore", True),  # 1 of 1
        ("Stormwind", False),  # 0 of 58: more names than are looked at
        ("Naxxramas", False),  # 0 of 23
        ("Icecrown", False),  # 1 of 36
        ("Wolpertinger", False),  # no boss
    ],
)
def test_mostly_bosses_on_the_packaged_catalog(
    names: NameIndex, word: str, short_form: bool
) -> None:
    assert build_gazetteer(PRIMARY, names).mostly_bosses(word) is short_form


def test_only_whole_words_of_primary_names_count() -> None:
    index = build_name_index(
        [
            IndexedName(1, "Kael Sunstrider", ""),
            IndexedName(2, "Kaelthas Image", ""),  # contains "Kael", not as a word
            IndexedName(5, "Kaelthas Servant", ""),
            IndexedName(3, "Kael Guard", "deDE"),  # a localized name
            IndexedName(4, "Kael Guard", ""),
        ],
        [],
        {"creature_template.csv.gz": "a" * 64},
        bosses=[1],
    )
    gazetteer = build_gazetteer(PRIMARY, index)
    assert gazetteer.mostly_bosses("Kael")  # 1 boss of the 2 entities (1 and 4) holding the word
    assert not gazetteer.mostly_bosses("Guard")
