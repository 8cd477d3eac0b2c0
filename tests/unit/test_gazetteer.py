"""The name gazetteer on the packaged reference data (real rows) and on made-up rows."""

import pytest

from vba_assets.domain.catalog.gazetteer import Gazetteer, NameKind, name_key
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.worlddata.gazetteer import packaged_gazetteer

WOLPERTINGER_QUESTS = (11117, 11431)  # Alliance/Horde twins of "Catch the Wild Wolpertinger!"


@pytest.fixture(scope="module")
def gazetteer() -> Gazetteer:
    return packaged_gazetteer()


def test_a_german_quest_title_resolves_to_its_starters_and_enders(gazetteer: Gazetteer) -> None:
    title = "Fangt die wilden Wolpertinger!"  # quest_template_locale 11117 deDE
    assert gazetteer.kinds(title) == {NameKind.QUEST}
    assert gazetteer.quests_titled(title) == WOLPERTINGER_QUESTS
    # creature_queststarter: 23486 Goldark Snipehunter (11117), 24657 Glodrak Huntsniper (11431)
    assert gazetteer.quest_starters(title) == (23486, 24657)
    assert gazetteer.quest_enders(title) == (23486, 24657)
    assert gazetteer.quest_starters("catch the wild WOLPERTINGER!") == (23486, 24657)
    assert gazetteer.quest_starters("Поймать дикого зайцелопа!") == (23486, 24657)  # ruRU 11431


def test_a_quest_ended_elsewhere_has_its_own_ender(gazetteer: Gazetteer) -> None:
    ids = gazetteer.quests_titled("Pink Elekks On Parade")
    assert ids == (11118, 11120)
    assert 24657 in gazetteer.quest_enders("Pink Elekks On Parade")  # questender (24657, 11120)
    assert gazetteer.quest_starters("Wolpertinger Net") == ()  # an item, not a quest


def test_kinds_of_real_names(gazetteer: Gazetteer) -> None:
    assert gazetteer.is_item("wolpertinger net")  # item 32907, case folded
    assert not gazetteer.is_creature("Wolpertinger Net")
    assert gazetteer.is_only_non_creature("Wolpertinger Net")
    assert gazetteer.is_creature("Wild Wolpertinger") and gazetteer.is_creature(
        "Wilder Wolpertinger"
    )
    assert not gazetteer.is_only_non_creature("Wild Wolpertinger")
    assert gazetteer.kinds("Silberblatt") == {NameKind.GAMEOBJECT, NameKind.ITEM}  # deDE 1617
    assert 1617 in gazetteer.entries(NameKind.GAMEOBJECT, "Silverleaf")
    # "Alliance Banner" is a creature, an item and an object (SOURCE.md): not only non-creature.
    assert gazetteer.kinds("Alliance Banner") == set(NameKind) - {NameKind.QUEST}
    assert not gazetteer.is_only_non_creature("Alliance Banner")
    # A substring is not an exact name; nor is nothing.
    assert gazetteer.kinds("Wolpertinger Ne") == frozenset()
    assert gazetteer.kinds("Goldark") == frozenset()
    assert not gazetteer.is_only_non_creature("")
    # Trailing space of the source (item 14940) and a doubled space in the term are ignored.
    assert gazetteer.is_item("Warbringer's  Sabatons")
    assert gazetteer.is_item("Warbringer’s Sabatons")  # U+2019 folded to '


def test_made_up_rows_and_empty_names() -> None:
    gazetteer = Gazetteer.build(
        creatures=[(1, "Röthar"), (2, "röthar"), (3, None), (4, "")],
        items=[(10, "Röthar")],
        quests=[(7, "The Röthar Job"), (8, "the röthar job")],
        quest_starters=[(2, 7), (1, 8), (2, 8)],
        quest_enders=[(9, 99)],
    )
    assert gazetteer.entries(NameKind.CREATURE, "RÖTHAR") == (1, 2)
    assert gazetteer.kinds("Röthar") == {NameKind.CREATURE, NameKind.ITEM}
    assert gazetteer.kinds("Rothar") == frozenset()  # accents are not folded: exact names only
    assert gazetteer.quest_starters("THE RÖTHAR JOB") == (1, 2)
    assert gazetteer.quest_enders("The Röthar Job") == ()
    assert "" not in gazetteer.creatures


@pytest.mark.parametrize(
    "text",
    ["Kael'thas  Sunstrider ", "ΣΊΣΥΦΟΣ", "Straße", "崔丝提亚中尉", "İstanbul", "ﬁre", "A‧B"],
)
def test_name_key_is_normalize_for_match(text: str) -> None:
    assert name_key(text) == normalize_for_match(text)
