"""Common words are not names (vba_assets/heuristic/common_words.py), on real report text.

The report texts are excerpts of real tracker reports of the study split eval/real/dev2.jsonl
(the case ids are named); the held-out test split is never read here.
"""

import pytest

from tests.unit.test_heuristic_planning import Reports, plan_text, reports
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.name_index import NameIndex

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)


@pytest.mark.parametrize(
    ("word", "language", "common"),
    [
        ("Trash", "en", True),
        ("Whirlwind", "en", True),
        ("Datenbank", "de", True),
        ("Datenbank", "en", False),  # German only
        ("Glaçon", "fr", False),  # under once per million words
        ("chicken", "en", True),
        ("Sindragosa", "fr", False),
        ("Hogger", "en", False),
        ("Thrall", "en", False),  # 2.8 on the Zipf scale: a name here
        ("Yogg-Saron", "en", False),
        ("Lich King", "en", False),  # several words: never one common word
        ("", "en", False),
        ("%_", "en", False),  # no letters: wordfreq reads symbols as frequent
        ("😀", "en", False),
        ("123", "en", False),
    ],
)
def test_common_word(word: str, language: str, common: bool) -> None:
    assert common_word(word, language) is common


def test_a_creature_name_that_is_no_word_is_a_name_in_lower_case_too(
    reports: Reports, names: NameIndex
) -> None:
    # REAL-WAYOFELENDIL-1084: nine entities' names contain Sindragosa, so the rare-word rule
    # alone left "sindragosa" (and with it the capitalized list item) a common noun
    searches = plan_text(
        reports,
        names,
        "Sindragosa P2",
        "Sur la p2 de sindragosa, le guide de givre ce place dans le ventre.\n\n"
        "- Sindragosa\n- Sors en question Aura de givre de sindragosa\n",
    )
    assert [m.quote for m in searches["Sindragosa"].mentions] == [
        "Sindragosa", "sindragosa", "Sindragosa", "sindragosa"
    ]  # fmt: skip


def test_an_exact_name_that_is_a_common_word_is_searched_after_the_other_names(
    reports: Reports, names: NameIndex
) -> None:
    # REAL-DALARAN-641 lists leaders with their spells; "Whirlwind" is a creature's exact name
    # too, and it opens the list, before three leaders the four searches should go to
    searches = plan_text(
        reports,
        names,
        "World Bosses",
        "* **Whirlwind -** 41057\n\n**~ King Varian Wrynn | King of Stormwind | ~**\n"
        "**~ Tyrande Whisperwind ~**\n**~ Prophet Velen ~**\n"
        "King Magni Bronzebeard does nothing.\n",
    )
    assert "Whirlwind" not in searches
    assert set(searches) == {
        "King Varian Wrynn", "Tyrande Whisperwind", "Prophet Velen", "King Magni Bronzebeard"
    }  # fmt: skip


def test_a_german_noun_that_names_a_creature_is_not_searched(
    reports: Reports, names: NameIndex
) -> None:
    # REAL-NEFARIAN-2551: "Datenbank" is the German name of creature 29746 and the word for
    # database; with it out, the links it displaced are searched
    searches = plan_text(
        reports,
        names,
        "Trash vor Instructor Razuvious",
        "Der Trash vor Instructor Razuvious respawnt auch nach Tötung des Bosses.\n\n"
        "Alle Kreaturen müssen aus unserer Datenbank verlinkt sein.\n\n"
        "https://classicdb.ch/?npc=16061\nhttps://datenbank.classic-wow.org/?npc=16154\n"
        "https://datenbank.classic-wow.org/?npc=16452#drop\n",
    )
    assert "Datenbank" not in searches
    assert {"Instructor Razuvious", "16154", "16452"} <= set(searches)
