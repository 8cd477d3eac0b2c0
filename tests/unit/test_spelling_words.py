"""Issue 29: the word-by-word agreement a near spelling needs before it is selected (protocol v6).

The misspellings are the study splits' real ones that the assessment resolves (they must still
agree); the other names are real later-expansion creatures (Questie's Cataclysm / Mists of
Pandaria data, eval/later_expansion_names.tsv) that the 3.3.5 catalog does not hold, each a near
spelling of a catalog name that the old whole-name rule selected. Quality, not plumbing.
"""

import pytest

from vba_assets.heuristic.spelling_words import spelled_words, word_agrees, words_agree

MISSPELLINGS = [
    ("Sköll", "Skoll"),
    ("Ancient Core Hount", "Ancient Core Hound"),
    ("Sons of Flame", "Son of Flame"),
    ("Corporate Keeshan", "Corporal Keeshan"),
    ("Marsahll Dughan", "Marschall Dughan"),
    ("defias tower patroler", "Defias Tower Patroller"),
    ("Nafarian", "Nefarian"),
    ("Death Talon Wyrmgaurd", "Death Talon Wyrmguard"),
    ("King Bangalesh", "King Bangalash"),
    ("Griknir the Cold", "Grik'nir the Cold"),
    ("Diseased Timber Wolves", "Diseased Timber Wolf"),
    ("Doctor Vomisa", "Doctor Vomisa, Ph.T."),
    ("Bloodguard Torek", "Blood Guard Torek"),
]

LATER_NAMES = [
    ("Commander Durand", "Commander Duron"),
    ("Commander Zanoth", "Commander Zanneth"),
    ("Dealer Vijaad", "Dealer Zijaad"),
    ("Master Woo", "Master Wood"),
    ("Vengeful Hui", "Vengeful Husk"),
    ("Beegle Blastfuse", "Weegli Blastfuse"),
    ("rockshell snapclaw", "Muckshell Snapclaw"),
    ("Han Stormstout", "Chen Stormstout"),
    ("Coridormi", "Soridormi"),
    ("bloodguard toldrek", "Blood Guard Torek"),
]


@pytest.mark.parametrize(("written", "name"), MISSPELLINGS)
def test_a_reporters_misspelling_agrees_word_by_word(written: str, name: str) -> None:
    assert words_agree([written], [name])


@pytest.mark.parametrize(("written", "name"), LATER_NAMES)
def test_a_later_expansion_name_near_a_catalog_name_does_not_agree(written: str, name: str) -> None:
    assert not words_agree([written], [name])


def test_any_quote_and_any_name_may_agree() -> None:
    """A candidate agrees when one of its names (English or localized) agrees with one quote."""
    assert words_agree(["Vijaad", "Zijad"], ["Dealer Zijaad", "Zijaad"])
    assert not words_agree([], ["Zijaad"])


def test_the_word_rules() -> None:
    assert spelled_words("Grik'nir the Cold-Blooded") == ["griknir", "the", "cold", "blooded"]
    assert word_agrees("wolves", "wolf")  # an inflected ending
    assert not word_agrees("wolfhound", "wolf")  # more than an ending
    assert word_agrees("hount", "hound")  # one edit, five letters
    assert word_agrees("muckshel", "muckshell")  # the last letter dropped is one edit
    assert not word_agrees("woo", "wood")  # one edit, four letters
    assert word_agrees("corporate", "corporal")  # two edits, eight letters
    assert not word_agrees("durand", "duron")  # two edits, five letters
