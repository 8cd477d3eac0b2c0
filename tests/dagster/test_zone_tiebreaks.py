"""Grounded zone and level tie-breaks (issue 29 item 4, protocol v6) through the ``interpret_cases`` job.

The demo world DB holds two creatures named "Hearthsinger Forresten": 10558 has spawn markers in
Stratholme, 30551 in The Culling of Stratholme. A made-up report that names Stratholme breaks the
tie (the capture records both entities' zones with every zone name, and the verdict cites the zone
row and the report span); the same name with no zone stays ambiguous. Both run on a real
(temporary) Dagster instance with the embedded world DB and the heuristic provider, whose replies
here test quality (the selection), not only plumbing. The stored revision then verifies with the
world database unavailable: the zone facts are in the capture, not looked up again.
"""

from pathlib import Path
from typing import Any

import pytest

from tests.dagster.test_grounded_tiebreaks import _json, _resolution, _run, verify_without_database
from vba_assets.pipeline.verification import verify_revision

ZONE = {
    "case_id": "BUG-TIE-ZONE",
    "title": "Hearthsinger Forresten loot",
    "body": "Hearthsinger Forresten in Stratholme does not drop his lute when he dies.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Tester",
}
NO_ZONE = {
    "case_id": "BUG-TIE-NOZONE",
    "title": "Hearthsinger Forresten loot",
    "body": "Hearthsinger Forresten does not drop his lute when he dies.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Tester",
}
TERM = "Hearthsinger Forresten"


def _capture(resolution: Path) -> dict[str, Any]:
    captures = [_json(path) for path in (resolution / "captures").iterdir()]
    (capture,) = [c for c in captures if c["search"]["term"] == TERM]
    assert isinstance(capture, dict)
    return capture


def test_a_named_zone_breaks_a_same_name_tie_and_replays_without_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = _run(tmp_path, ZONE, NO_ZONE)

    # (a) the zone the report names tells 10558 apart, cited with its zone row and span
    resolution = _resolution(workspace, "BUG-TIE-ZONE")
    capture = _capture(resolution)
    zones = capture["zone_markers"]
    assert zones["identities"] == [10558, 30551]
    assert "creature_spawn_markers" in zones["sql"] and "'" not in zones["sql"]
    assert not zones["truncated"]
    assessment = _json(resolution / "assessment.json")["assessment"]["assessments"]
    (verdict,) = [v for v in assessment if "tiebreak" in v]
    tiebreak = verdict["tiebreak"]
    assert verdict["status"] == "selected"
    assert tiebreak["fact"] == "zone"
    case = _json(workspace.case("BUG-TIE-ZONE").path("case.json"))
    text = {s["alias"]: s["text"] for s in case["sources"]}[tiebreak["span"]["source"]]
    assert text[tiebreak["span"]["start"] : tiebreak["span"]["end"]] == "Stratholme"
    row = zones["rows"][tiebreak["zone_row"]]
    assert (row["identity"], row["zone_id"], row["name"]) == (10558, 2017, "Stratholme")
    context = _json(resolution / "context.json")
    assert (10558, TERM) in [(n["identity"], n["name"]) for n in context["selected"]]

    # (b) the same name with no zone stays ambiguous (both identities competing)
    resolution = _resolution(workspace, "BUG-TIE-NOZONE")
    assert _capture(resolution)["zone_markers"]["identities"] == [10558, 30551]
    context = _json(resolution / "context.json")
    assert not [n for n in context["selected"] if n["name"] == TERM]
    (unresolved,) = [d for d in context["unresolved"] if d["term"] == TERM]
    assert unresolved["status"] == "ambiguous"
    assert sorted(unresolved["candidate_identities"]) == [10558, 30551]

    # (c) replay and verification need no database: every query now fails
    verify_without_database(workspace, monkeypatch, "BUG-TIE-ZONE", "BUG-TIE-NOZONE")


EXACT_TIE = {
    "case_id": "BUG-TIE-EXACT",
    "title": "Redemption cannot be completed",
    "body": "Tirion Fordring does not complete Redemption after I listen to his story.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Tester",
}


def test_a_named_quest_breaks_a_tie_inside_an_exact_name_capture(tmp_path: Path) -> None:
    """The contains search for "Tirion Fordring" is truncated (more than 8 rows contain it); its
    exact-name capture holds 1855 and 20349 with their quest relations and zones, and the quest
    the report names (1855 starts and ends "Redemption") selects 1855 from that capture."""
    workspace = _run(tmp_path, EXACT_TIE)
    resolution = _resolution(workspace, "BUG-TIE-EXACT")
    captures = [_json(path) for path in (resolution / "captures").iterdir()]
    own = [c for c in captures if c["search"]["term"] == "Tirion Fordring" and "kind" not in c]
    (exact,) = [c for c in captures if c.get("kind") == "exact_name"]
    assert own and own[0]["result"]["truncated"]
    assert exact["quest_relations"]["identities"] == [1855, 20349]
    assert exact["zone_markers"]["identities"] == [1855, 20349]
    assessment = _json(resolution / "assessment.json")["assessment"]["assessments"]
    (verdict,) = [v for v in assessment if "tiebreak" in v]
    assert verdict["status"] == "selected" and verdict["tiebreak"]["fact"] == "quest"
    row = exact["quest_relations"]["rows"][verdict["tiebreak"]["relation_row"]]
    assert (row["identity"], row["title"]) == (1855, "Redemption")
    context = _json(resolution / "context.json")
    assert (1855, "Tirion Fordring") in [(n["identity"], n["name"]) for n in context["selected"]]
    report = verify_revision(workspace.case("BUG-TIE-EXACT"), "0001")
    assert report.ok, report.findings


LEVEL_TIE = {
    "case_id": "BUG-TIE-LEVEL",
    "title": "Sindragosa breath",
    "body": "Sindragosa does not cast Frost Breath in phase two, she only uses Blistering Cold.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}


def test_the_only_row_above_level_1_breaks_a_tie_of_script_copies(tmp_path: Path) -> None:
    """Four rows are named "Sindragosa" (36853 at level 83; 28499, 32446, 37755 are level-1
    script copies): the 'level' tie-break selects 36853 citing the report's own mention, through
    the job, and the revision verifies."""
    workspace = _run(tmp_path, LEVEL_TIE)
    resolution = _resolution(workspace, "BUG-TIE-LEVEL")
    assessment = _json(resolution / "assessment.json")["assessment"]["assessments"]
    (verdict,) = [v for v in assessment if v.get("tiebreak")]
    assert verdict["status"] == "selected" and verdict["tiebreak"]["fact"] == "level"
    assert verdict["tiebreak"]["span"] == verdict["mention"]
    context = _json(resolution / "context.json")
    assert (36853, "Sindragosa") in [(n["identity"], n["name"]) for n in context["selected"]]
    report = verify_revision(workspace.case("BUG-TIE-LEVEL"), "0001")
    assert report.ok, report.findings
