"""The heuristic plan never cites a span that crosses a zero-width or bidi control character.

Grounding refuses such a span (``CITATION_INVISIBLE_CHARACTER``), and the heuristic's own plan
was then rejected three times and the case blocked: a link whose URL or link text held one was
still read as an identity reference (and ``npc=4855\u200b9`` as the identity 4855). The reports
are real reports of the study split eval/real/dev.jsonl and dev2.jsonl, with invisible characters
put in; the held-out test split is never read here.
"""

import json
import re
from pathlib import Path

import pytest

from tests.unit.test_heuristic_planning import Reports, plan_for, reports
from vba_assets.domain.case.text import has_format_control
from vba_assets.domain.resolution.models import ResolutionPlanOutput
from vba_assets.heuristic.name_index import NameIndex

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)

ZWSP, LRM, RLO = "\u200b", "\u200e", "\u202e"
REAL = Path(__file__).resolve().parents[2] / "eval" / "real"
STUDY_SPLITS = [REAL / "dev.jsonl", REAL / "dev2.jsonl"]


def _cited(plan: ResolutionPlanOutput) -> list[str]:
    quotes = [m.quote for s in plan.searches for m in s.mentions]
    quotes += [s.reference.link.quote for s in plan.searches if s.reference is not None]
    quotes += [m.quote for u in plan.unsearched for m in u.mentions]
    return quotes


def test_a_link_with_an_invisible_character_is_not_read(reports: Reports, names: NameIndex) -> None:
    # REAL-WOWMANIA-BWL-2098, the id of its link split by a zero-width space.
    case = reports.text(
        "GEN-ZW-LINK",
        "[NPC] Ariok attacks alliance player - Burning Steppes",
        f"**Links:**\nNPC: https://www.wowhead.com/npc=4855{ZWSP}9/ariok\n\n"
        "**What is happening:**\nAs an alliance player, Ariok always attacks you once you are "
        "in range.",
    )
    plan = plan_for(case, names)  # validates the plan
    assert all(s.reference is None for s in plan.searches)
    assert not any(has_format_control(quote) for quote in _cited(plan))


def test_a_link_text_with_an_invisible_character_is_not_cited(
    reports: Reports, names: NameIndex
) -> None:
    # REAL-NEFARIAN-1611: the link text of npc=2911 holds a zero-width space.
    case = reports.text(
        "GEN-ZW-LINK-TEXT",
        "Quest: Der geistesabwesende Ausgrabungsleiter Schritt 3",
        "Schritte zur Reproduktion: Questreihe bei "
        f"[Chefarchäologe G{ZWSP}rauflaum](http://datenbank.classic-wow.org/?npc=2911) "
        "annehmen.",
    )
    plan = plan_for(case, names)
    linked = [s for s in plan.searches if s.reference is not None]
    assert [s.reference.identity for s in linked if s.reference] == [2911]
    assert linked[0].term == "2911"  # link-only: the URL is cited, not the link text
    assert not any(has_format_control(quote) for quote in _cited(plan))


def _study_reports(count: int) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    for path in STUDY_SPLITS:
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if "npc=" in case["body"] and len(found) < count:
                found.append(case)
    return found


def _obscured(text: str) -> str:
    """``text`` with an invisible character inside every third word and every link's id."""
    text = re.sub(r"npc=(\d)(\d+)", lambda m: f"npc={m.group(1)}{LRM}{m.group(2)}", text)
    marks = (ZWSP, LRM, RLO)
    words = re.split(r"(\w{4,})", text)  # odd items are the words
    for number, position in enumerate(range(1, len(words), 2)):
        if number % 3 == 0:
            word = words[position]
            words[position] = word[:2] + marks[number // 3 % 3] + word[2:]
    return "".join(words)


@pytest.mark.parametrize("case", _study_reports(12), ids=lambda case: case["id"])
def test_no_cited_span_crosses_an_invisible_character(
    reports: Reports, names: NameIndex, case: dict[str, str]
) -> None:
    document = reports.text(
        f"GEN-ZW-{case['id'][5:]}", _obscured(case["title"]), _obscured(case["body"])
    )
    plan = plan_for(document, names)  # validates the plan: no CITATION_INVISIBLE_CHARACTER
    assert not any(has_format_control(quote) for quote in _cited(plan))
