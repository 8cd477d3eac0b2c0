"""A selected name that is only part of a longer name the report writes (issue 29: no selection
for a mention with no gold entry; ``eval/later_expansion.jsonl``).

The reports are made up in the shape of that set's reports; the captures come from the real demo
world DB ("Cloud Serpent" 4117 is the only row of that name; "Tyrande" 15633 likewise). The
heuristic verdicts test quality: a longer name keeps the inner row unselected, a name that stands
alone, a misspelled or inflected title word and a step verb do not.
"""

import pytest

from resources.world_db import WorldDatabase
from tests.unit.test_zone_tiebreaks import contains_index, demo, heuristic
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.heuristic.embedded_names import all_embedded, embedded_mention

__all__ = ["demo"]  # the module-scoped demo DB fixture, imported for pytest


def _mention(text: str, quote: str) -> MentionCitation:
    start = text.index(quote)
    return MentionCitation(source="S1", quote=quote, start=start, end=start + len(quote))


@pytest.mark.parametrize(
    ("text", "quote", "phrase"),
    [
        ("Golden Cloud Serpent does not spawn", "Cloud Serpent", "Golden Cloud Serpent"),
        ("the boss Echo of Tyrande resets", "Tyrande", "Echo of Tyrande"),
        ("[Boss] Horde Shaman Infantry", "Horde Shaman", "Horde Shaman Infantry"),
        ("Chasseur attise-flammes ne réapparaît pas", "attise-flammes", "Chasseur attise-flammes"),
        ("The Cloud Serpent does not spawn", "Cloud Serpent", None),
        ("2. Attack Warmaul Brute while at range", "Warmaul Brute", None),
        ("NPC Cloud Serpent does not spawn", "Cloud Serpent", None),
        ("Cloud Serpent does not spawn", "Cloud Serpent", None),
        ("in Thousand Needles,\nCloud Serpent is gone", "Cloud Serpent", None),
    ],
)
def test_embedded_mention_reads_the_word_beside_the_name(
    text: str, quote: str, phrase: str | None
) -> None:
    assert embedded_mention(text, _mention(text, quote)) == phrase


def test_a_misspelled_or_inflected_longer_phrase_is_still_the_candidates_name() -> None:
    text = "[NPC] Corporate Keeshan does not appear"
    mention = _mention(text, "Keeshan")
    assert embedded_mention(text, mention) == "Corporate Keeshan"
    assert not all_embedded([mention], {"S1": text}, ["Corporal Keeshan"], "Keeshan")
    assert all_embedded([mention], {"S1": text}, ["Keeshan"], "Keeshan")


@pytest.mark.parametrize(
    ("body", "selected"),
    [
        ("Golden Cloud Serpent does not spawn at its rare spawn point.", False),
        ("Golden Cloud Serpent does not spawn, the golden cloud serpent never shows up.", False),
        ("Golden Cloud Serpent does not spawn, and the Cloud Serpent in the hills neither.", True),
        ("The Cloud Serpent does not spawn at its rare spawn point.", True),
    ],
)
def test_a_longer_name_keeps_the_inner_row_unselected(
    demo: WorldDatabase, body: str, selected: bool
) -> None:
    plan, index, _ = contains_index(demo, body, "Cloud Serpent")
    verdict = heuristic(body, plan, index)
    assert (verdict.status == "selected") is selected
    if not selected:
        assert verdict.status == "ambiguous" and "longer name" in verdict.rationale
