"""A creature's name used as a common noun (heuristic-10) through the ``interpret_cases`` job: a
real (temporary) Dagster instance, the embedded world DB and the heuristic provider, whose
replies test quality here. "Create a Dark Iron Dwarf" names a race a player picks, not the
creature 1051 of that name: the search stays ambiguous (a D alias), nothing is selected, and the
revision verifies without the database."""

from pathlib import Path

import pytest

from tests.dagster.test_grounded_tiebreaks import (
    _json,
    _resolution,
    _run,
    verify_without_database,
)

RACE = {
    "case_id": "BUG-COMMON-NOUN",
    "title": "Quest giver shows no gossip",
    "body": "Steps to reproduce:\n1. Create a Dark Iron Dwarf.\n2. Speak with the quest giver "
    "in the starting area: the gossip menu is blank.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}


def test_a_name_after_an_article_is_not_selected_through_the_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = _run(tmp_path, RACE)
    resolution = _resolution(workspace, "BUG-COMMON-NOUN")
    plan = _json(resolution / "plan.json")["plan"]
    assert "Dark Iron Dwarf" in [s["term"] for s in plan["searches"]]
    context = _json(resolution / "context.json")
    assert 1051 not in [n["identity"] for n in context["selected"]]
    assert "Dark Iron Dwarf" in [d["term"] for d in context["unresolved"]]
    verify_without_database(workspace, monkeypatch, "BUG-COMMON-NOUN")
