"""Ties among the rows of a full name that a short or partial term finds (issue 29 item 4,
protocol v6) through the ``interpret_cases`` job.

The demo world DB holds two creatures named "Hearthsinger Forresten" (10558 has spawn markers in
Stratholme, 30551 in The Culling of Stratholme). A made-up report misspells the name
("Hearthsinger Forreston"), so the planner searches its known part "Hearthsinger" and no row is
named the term. The capture still records both rows' zones (they share one name), and the report's
"Stratholme" selects 10558 with a cited zone tie-break; the same report with no zone stays
ambiguous. Both run on a real (temporary) Dagster instance with the embedded world DB and the
heuristic provider, whose replies here test quality (the selection), not only plumbing. The stored
revisions then verify with the world database unavailable.
"""

from pathlib import Path
from typing import Any

import pytest

from tests.dagster.test_grounded_tiebreaks import _json, _resolution, _run, verify_without_database

NAME = "Hearthsinger Forresten"
ZONE = {
    "case_id": "BUG-NAMETIE-ZONE",
    "title": "Lute does not drop",
    "body": "Hearthsinger Forreston in Stratholme does not drop his lute when he dies.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Tester",
}
NO_ZONE = {
    "case_id": "BUG-NAMETIE-NOZONE",
    "title": "Lute does not drop",
    "body": "Hearthsinger Forreston does not drop his lute when he dies.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Tester",
}


def _capture(resolution: Path) -> dict[str, Any]:
    captures = [_json(path) for path in (resolution / "captures").iterdir()]
    (capture,) = [c for c in captures if {r["name"] for r in c["result"]["rows"]} == {NAME}]
    assert isinstance(capture, dict)
    return capture


def test_a_named_zone_breaks_a_tie_of_the_full_name_a_short_term_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = _run(tmp_path, ZONE, NO_ZONE)

    # (a) the term is not the name, the capture records the name group's zones anyway
    resolution = _resolution(workspace, "BUG-NAMETIE-ZONE")
    capture = _capture(resolution)
    term = capture["search"]["term"]
    assert term.casefold() != NAME.casefold() and term.casefold() in NAME.casefold()
    assert capture["zone_markers"]["identities"] == [10558, 30551]
    assessment = _json(resolution / "assessment.json")["assessment"]["assessments"]
    (verdict,) = [v for v in assessment if "tiebreak" in v]
    assert verdict["status"] == "selected" and verdict["tiebreak"]["fact"] == "zone"
    span = verdict["tiebreak"]["span"]
    case = _json(workspace.case("BUG-NAMETIE-ZONE").path("case.json"))
    text = {s["alias"]: s["text"] for s in case["sources"]}[span["source"]]
    assert text[span["start"] : span["end"]] == "Stratholme"
    row = capture["zone_markers"]["rows"][verdict["tiebreak"]["zone_row"]]
    assert (row["identity"], row["name"]) == (10558, "Stratholme")
    context = _json(resolution / "context.json")
    assert (10558, NAME) in [(n["identity"], n["name"]) for n in context["selected"]]

    # (b) no zone: ambiguous between the two rows of the name
    resolution = _resolution(workspace, "BUG-NAMETIE-NOZONE")
    assert _capture(resolution)["zone_markers"]["identities"] == [10558, 30551]
    context = _json(resolution / "context.json")
    assert not [n for n in context["selected"] if n["name"] == NAME]
    (unresolved,) = [d for d in context["unresolved"] if d["term"].casefold() in NAME.casefold()]
    assert unresolved["status"] == "ambiguous"
    assert sorted(unresolved["candidate_identities"]) == [10558, 30551]

    # (c) replay and verification need no database
    verify_without_database(workspace, monkeypatch, "BUG-NAMETIE-ZONE", "BUG-NAMETIE-NOZONE")
