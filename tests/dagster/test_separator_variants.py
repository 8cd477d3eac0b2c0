"""Names written with other separators, searched by the catalog's spelling (issue 29 item 5,
protocol v6 ``corrected_terms``) through the ``interpret_cases`` job.

A made-up report writes Zul'jin only as "zul jin" and "Zul Jin". Before protocol v6's separator
variants, the lower-case words were no span at all and the capitalized run was searched literally
("Zul Jin", which no catalog name contains): nothing was selected. Run on a real (temporary)
Dagster instance with the embedded world DB and the heuristic provider (its replies here test
quality: the selection, not only plumbing), the accepted plan searches "Zul'jin" with
``corrected_from`` citing a written span, the capture records both texts, the assessment selects
Zul'jin (23863), and the stored revision replays and verifies with the world database unavailable.
"""

from pathlib import Path

import pytest

from tests.dagster.test_grounded_tiebreaks import _json, _resolution, _run, verify_without_database

REPORT = {
    "case_id": "BUG-SEPARATOR-ZULJIN",
    "title": "Zul Jin does not change forms",
    "body": "In Zul'Aman the last boss zul jin stays in troll form for the whole fight and never "
    "turns into the bear, so the raid kills him in phase one.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}
ZULJIN = 23863


def test_a_name_written_with_other_separators_is_searched_as_the_catalog_spells_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = _run(tmp_path, REPORT)
    resolution = _resolution(workspace, REPORT["case_id"])
    case = _json(workspace.case(REPORT["case_id"]).path("case.json"))
    texts = {s["alias"]: s["text"] for s in case["sources"]}

    # the accepted plan searches the catalog's spelling and cites the written span
    plan = _json(resolution / "plan.json")["plan"]
    (search,) = [s for s in plan["searches"] if s["term"] == "Zul'jin"]
    corrected = search["corrected_from"]
    assert corrected in search["mentions"]
    assert corrected["quote"].casefold() == "zul jin"
    assert texts[corrected["source"]][corrected["start"] : corrected["end"]] == corrected["quote"]
    assert {m["quote"] for m in search["mentions"]} == {"Zul Jin", "zul jin"}

    # the capture is the literal contains query on the corrected term, recording both texts
    captures = [_json(path) for path in (resolution / "captures").iterdir()]
    searched = [c for c in captures if c["search"]["term"] == "Zul'jin"]
    assert searched and all(c["search"]["corrected_from"] == corrected for c in searched)
    assert any(ZULJIN in {row["identity"] for row in c["result"]["rows"]} for c in searched)

    # the assessment selects Zul'jin and cites a written mention
    context = _json(resolution / "context.json")
    (selected,) = [n for n in context["selected"] if n["identity"] == ZULJIN]
    assert selected["name"] == "Zul'jin"
    assert any(m in search["mentions"] for m in selected["mentions"])

    # replay and verification need no database
    verify_without_database(workspace, monkeypatch, REPORT["case_id"])
