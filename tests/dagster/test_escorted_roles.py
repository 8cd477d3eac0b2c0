"""An escorted quest giver is affected (issue 29 item 1, third session) through ``interpret_cases``.

A made-up escort report runs on a real (temporary) Dagster instance with the embedded world DB and
the heuristic provider, whose replies here test quality (the roles the plan gives and the
interpretation that cites them), not only plumbing: "when escorting Marshal Dughan" makes the
creature the escort is about affected although the quest tables name it a quest giver and another
creature has a failure of its own (before, Marshal Dughan was context: a creature without a cue
beside one with an affected cue).
"""

from pathlib import Path

from tests.dagster.test_roles_follow_failures import _cited_subjects, _roles, _run

ESCORT = {
    "case_id": "BUG-ROLE-ESCORT",
    "title": "Escort despawn",
    "body": "During the escort, when escorting Marshal Dughan for his quest, Hogger does not "
    "attack.",
    "reported_at": "2026-12-07T12:00:00+00:00",
    "reporter": "Tester",
}


def test_an_escorted_creature_is_an_affected_subject_through_the_job(tmp_path: Path) -> None:
    workspace = _run(tmp_path, ESCORT)
    assert _roles(workspace, "BUG-ROLE-ESCORT") == {
        "Marshal Dughan": "affected_subject",
        "Hogger": "affected_subject",
    }
    assert sorted(_cited_subjects(workspace, "BUG-ROLE-ESCORT")) == ["Hogger", "Marshal Dughan"]
