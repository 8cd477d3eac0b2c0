"""A boss's short form through the ``interpret_cases`` job (protocol 6, heuristic-9): a real
(temporary) Dagster instance, the embedded world DB and the heuristic provider, whose replies test
quality here (which entity is selected).

"Morogrim" is a whole word of one creature's name only, the boss Morogrim Tidewalker (21213): the
job's plan searches the short form, the complete capture holds that one name, and the selection
is stored and verifies without the database.
"""

from pathlib import Path

from tests.dagster.test_grounded_tiebreaks import _json, _resolution, _run
from vba_assets.pipeline.verification import verify_revision

SHORT = {
    "case_id": "BUG-SHORT-FORM",
    "title": "Morogrim does not summon murlocs",
    "body": "In Serpentshrine Cavern Morogrim never summons his murlocs in phase two, we just "
    "tank him to death.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}


def test_a_bosss_short_form_is_selected_through_the_job(tmp_path: Path) -> None:
    workspace = _run(tmp_path, SHORT)
    resolution = _resolution(workspace, "BUG-SHORT-FORM")
    plan = _json(resolution / "plan.json")["plan"]
    assert "Morogrim" in [s["term"] for s in plan["searches"]]
    context = _json(resolution / "context.json")
    assert 21213 in [n["identity"] for n in context["selected"]]
    report = verify_revision(workspace.case("BUG-SHORT-FORM"), "0001")
    assert report.ok, report.findings
