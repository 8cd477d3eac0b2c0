"""An identity written as a number of its own breaks a same-name tie (protocol v6, prompt v7):
the controller's ``link`` rule (:mod:`vba_assets.domain.resolution.written_ids`) and the
heuristic's choice. Reports filed through a tracker template write "**ID of the NPC:** 21140" or
"*Thrall* *(ID:4949)*" under or beside the name.

The two "Chef Jessen" entries (2430, 20378) are the made-up tie of
:mod:`tests.unit.test_grounded_tiebreaks`; the heuristic verdicts asserted here test quality
(which entity the number tells apart, and that a number inside a version, a word or a URL tells
none apart), not only plumbing.
"""

import re

from tests.unit.test_grounded_tiebreaks import codes, heuristic, resolved
from vba_assets.domain.resolution.written_ids import written_at, written_identity
from vba_assets.errors import ErrorCode


def test_written_numbers_are_numbers_of_their_own() -> None:
    text = "npc=21140 a21140 (ID:4949) 3.3.5 7158.18, 47 x21 /npc/335 21104"
    runs = [(m.start(), m.end()) for m in re.finditer(r"[0-9]+", text)]
    found = [text[start:end] for start, end in runs if written_at(text, start, end)]
    assert found == ["4949", "47", "21104"]
    start = text.index("4949")
    assert written_at(text, start, start + 4)
    assert not written_at(text, start, start + 3)  # a part of the number
    assert not written_at(text, text.index("21140"), text.index("21140") + 5)  # npc=21140
    assert (written_identity("21140"), written_identity("npc=1"), written_identity("1.5")) == (
        21140,
        None,
        None,
    )


def test_the_id_written_beside_the_name_breaks_the_tie() -> None:
    body = "Chef Jessen (ID: 20378) has no vendor window."
    plan, index = resolved(body, None)
    verdict = heuristic(body, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    assert (verdict.tiebreak.fact, verdict.tiebreak.span.quote) == ("link", "20378")
    (chosen,) = [c for c in index.searches[0].candidates if c.identity == 20378]
    assert verdict.capture_row == chosen.source_index
    assert codes(verdict, plan, index, body) == []


def test_an_id_under_a_template_heading_breaks_the_tie() -> None:
    body = "Chef Jessen sells nothing.\n\n**ID of the NPC:**\n2430\n\n[x] NPC"
    plan, index = resolved(body, None)
    verdict = heuristic(body, plan, index)
    assert verdict.tiebreak is not None and verdict.tiebreak.span.quote == "2430"
    (chosen,) = [c for c in index.searches[0].candidates if c.identity == 2430]
    assert verdict.candidate_id == index.searches[0].candidate_ids[chosen.source_index]
    assert codes(verdict, plan, index, body) == []


def test_a_number_inside_a_version_or_both_ids_break_no_tie() -> None:
    for body in (
        "Chef Jessen sells nothing on build 1.20378 of the core.",
        "Chef Jessen sells nothing; the ids are 2430 and 20378.",
        "Chef Jessen sells nothing (ID: 20)",  # too short to be read as an id by the heuristic
        "Chef Jessen sells nothing.\n\n[//]: # (ID of the NPC: 20378)",  # a template's hidden text
    ):
        plan, index = resolved(body, None)
        verdict = heuristic(body, plan, index)
        assert verdict.status == "ambiguous" and verdict.tiebreak is None, body


def test_the_controller_refuses_a_number_that_is_not_one_of_its_own() -> None:
    body = "Chef Jessen sells nothing on build 1.20378 of the core."
    plan, index = resolved(body, None)
    written = "Chef Jessen (ID: 20378) sells nothing."
    accepted = heuristic(written, *resolved(written, None))
    start = body.index("20378")
    forged = accepted.model_dump(mode="json")
    forged["mention"] = plan.searches[0].mentions[0].model_dump(mode="json")
    forged["evidence"] = [{"source": "S1", "quote": "Chef Jessen sells nothing"}]
    forged["tiebreak"]["span"] = {
        "source": "S1",
        "quote": "20378",
        "start": start,
        "end": start + 5,
    }
    assert codes(forged, plan, index, body) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]


def test_a_written_id_keeps_a_name_inside_a_longer_capitalized_run() -> None:
    """Without the id, "Chef Jessen Immune" may be another creature's longer name
    (:mod:`vba_assets.heuristic.embedded_names`); the number the report writes for it says
    which creature it is."""
    body = "Chef Jessen Immune to interrupts.\n**ID of the NPC:** 20378"
    plan, index = resolved(body, None)
    verdict = heuristic(body, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    assert verdict.tiebreak.span.quote == "20378"
    assert codes(verdict, plan, index, body) == []
