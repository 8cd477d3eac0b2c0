"""A creature's name used as a common noun (heuristic-10, :mod:`vba_assets.heuristic.common_nouns`):
"Create a Dark Iron Dwarf", "your launcher". The reports are made up; the captures come from the
real demo world DB ("Dark Iron Dwarf" 1051 and "Launcher" 9275 are the only rows of their names).
The heuristic verdicts test quality: a name whose every mention follows a determiner is not
selected, a name written as a name is (one mention without a determiner is enough).
"""

import pytest

from resources.world_db import WorldDatabase
from tests.unit.test_zone_tiebreaks import contains_index, demo, heuristic
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.heuristic.common_nouns import follows_determiner

__all__ = ["demo"]  # the module-scoped demo DB fixture, imported for pytest


@pytest.mark.parametrize(
    ("text", "quote", "expected"),
    [
        ("1. Create a Dark Iron Dwarf.", "Dark Iron Dwarf", True),
        ("I am using your launcher today", "launcher", True),
        ("we pulled an  Ogre", "Ogre", True),
        ("Dark Iron Dwarf does not spawn", "Dark Iron Dwarf", False),
        ("kill the Dark Iron Dwarf", "Dark Iron Dwarf", False),
        ("Banana Dark Iron Dwarf", "Dark Iron Dwarf", False),
    ],
)
def test_follows_determiner_reads_the_word_before(text: str, quote: str, expected: bool) -> None:
    start = text.index(quote)
    mention = MentionCitation(source="S1", quote=quote, start=start, end=start + len(quote))
    assert follows_determiner(text, mention) is expected


@pytest.mark.parametrize(
    ("body", "term", "selected"),
    [
        (
            "Steps: 1. Create a Dark Iron Dwarf. 2. Talk to the quest giver.",
            "Dark Iron Dwarf",
            False,
        ),
        ("Dalaran crash: I am using your launcher with the newest patch.", "launcher", False),
        ("Dark Iron Dwarf in Blackrock Depths does not attack.", "Dark Iron Dwarf", True),
        ("A Dark Iron Dwarf is stuck. Dark Iron Dwarf never moves.", "Dark Iron Dwarf", True),
    ],
)
def test_a_name_used_as_a_common_noun_is_not_selected(
    demo: WorldDatabase, body: str, term: str, selected: bool
) -> None:
    plan, index, _ = contains_index(demo, body, term)
    verdict = heuristic(body, plan, index)
    assert (verdict.status == "selected") is selected
    if not selected:
        assert verdict.status == "ambiguous" and "common noun" in verdict.rationale
