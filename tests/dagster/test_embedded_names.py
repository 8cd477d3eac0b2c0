"""A name that is only part of a longer name the report writes stays unselected, through the
``interpret_cases`` job on a real (temporary) Dagster instance with the embedded world DB and the
heuristic provider (its replies test quality here: which row is, and is not, selected).

"Golden Cloud Serpent" is a later creature the 3.3.5 catalog does not hold; the catalog's "Cloud
Serpent" (4117) is another creature, so the report's mention stays an unknown; the same report
naming "Cloud Serpent" on its own selects 4117.
"""

from pathlib import Path

from tests.dagster.test_grounded_tiebreaks import _json, _resolution, _run
from vba_assets.pipeline.verification import verify_revision

LONGER = {
    "case_id": "BUG-LONGER-NAME",
    "title": "Golden Cloud Serpent does not spawn",
    "body": "Waited at the spot for over an hour, Golden Cloud Serpent never showed up.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}
ALONE = {
    "case_id": "BUG-INNER-NAME",
    "title": "Cloud Serpent does not spawn",
    "body": "Waited at the spot for over an hour, the Cloud Serpent never showed up.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}


def test_a_longer_name_is_an_unknown_and_the_name_alone_is_selected(tmp_path: Path) -> None:
    workspace = _run(tmp_path, LONGER, ALONE)
    longer = _json(_resolution(workspace, "BUG-LONGER-NAME") / "context.json")
    assert 4117 not in [n["identity"] for n in longer["selected"]]
    assert [d["status"] for d in longer["unresolved"]] == ["ambiguous"]
    alone = _json(_resolution(workspace, "BUG-INNER-NAME") / "context.json")
    assert 4117 in [n["identity"] for n in alone["selected"]]
    for case_id in ("BUG-LONGER-NAME", "BUG-INNER-NAME"):
        report = verify_revision(workspace.case(case_id), "0001")
        assert report.ok, report.findings
