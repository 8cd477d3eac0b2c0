"""Misspelled names searched by their corrected spelling (issue 29 item 5, protocol v6
``corrected_terms``) through the ``interpret_cases`` job.

A made-up report writes Onyxia only as "Onixia". No catalog name equals or contains that text and
no literal part of it is worth searching, so before protocol v6 nothing was searched. Run on a real
(temporary) Dagster instance with the embedded world DB and the heuristic provider (its replies
here test quality: the selection, not only plumbing), the accepted plan searches "Onyxia" with
``corrected_from`` citing the span "Onixia", the capture records both texts, the assessment
selects Onyxia (10184), and the stored revision replays and verifies with the world database
unavailable.
"""

from pathlib import Path

import pytest

from tests.dagster.test_grounded_tiebreaks import _json, _resolution, _run, verify_without_database

REPORT = {
    "case_id": "BUG-CORRECTED-ONIXYA",
    "title": "Onixia never takes off",
    "body": "In phase two Onixia stays on the ground for the whole fight and never breathes "
    "fire, so the raid kills her without any whelps spawning.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}
ONYXIA = 10184


def test_a_misspelled_boss_is_searched_by_its_corrected_name_and_selected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = _run(tmp_path, REPORT)
    resolution = _resolution(workspace, REPORT["case_id"])
    case = _json(workspace.case(REPORT["case_id"]).path("case.json"))
    texts = {s["alias"]: s["text"] for s in case["sources"]}

    # the accepted plan searches the corrected name and cites the misspelled span
    plan = _json(resolution / "plan.json")["plan"]
    (search,) = [s for s in plan["searches"] if s["term"] == "Onyxia"]
    corrected = search["corrected_from"]
    assert corrected in search["mentions"]
    assert corrected["quote"] == "Onixia"
    assert texts[corrected["source"]][corrected["start"] : corrected["end"]] == "Onixia"
    assert all("Onyxia" not in text for text in texts.values())  # not literal report text

    # the capture is the literal contains query on the corrected term, recording both texts
    captures = [_json(path) for path in (resolution / "captures").iterdir()]
    searched = [c for c in captures if c["search"]["term"] == "Onyxia"]
    assert searched and all(c["search"]["corrected_from"] == corrected for c in searched)
    for capture in searched:
        result = capture["result"]
        assert result["term"] == "Onyxia" and result["parameters"]["term"] == "Onyxia"
        assert "Onyxia" not in result["sql"] and "nyxia" not in result["sql"]  # bound, not spliced
        assert ONYXIA in {row["identity"] for row in result["rows"]}

    # the assessment selects Onyxia, the N alias cites the misspelled mention
    context = _json(resolution / "context.json")
    (selected,) = [n for n in context["selected"] if n["identity"] == ONYXIA]
    assert selected["name"] == "Onyxia"
    assert corrected in selected["mentions"]

    # replay and verification need no database
    verify_without_database(workspace, monkeypatch, REPORT["case_id"])
