"""Batched exact names (protocol v6, issue 29 item 5) through the ``interpret_cases`` job: a real
(temporary) Dagster instance, the embedded world DB and the heuristic provider, whose replies test
quality here (which entities are selected), not only plumbing.

A made-up report lists seven Goldshire creatures; the project allows ``max_searches`` 4, so the
plan searches four and leaves three unsearched. Each unsearched name becomes a search of its own
after the plan's (``Q5``...), whose capture is one exact-name query (``kind``
``batched_exact_name``); the assessment selects each exact, unique row, so all seven creatures
are N aliases and none is a ``not_searched`` unknown. The revision verifies without the database,
and the capture-provenance check fails when a batched capture is made to look like a contains
capture.
"""

from pathlib import Path

import pytest

from tests.dagster.test_grounded_tiebreaks import (
    _json,
    _resolution,
    _run,
    verify_without_database,
)
from vba_assets.domain.resolution.models import BATCHED_EXACT_NAME, CaptureArtifact
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.checks import check_capture_provenance
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.store import Workspace

LIST = {
    "case_id": "BUG-BATCHED-NAMES",
    "title": "Goldshire NPCs have no gossip menu",
    "body": "Since the last update these NPCs in Goldshire have no gossip menu: Marshal Dughan, "
    "Innkeeper Farley, Brother Sammuel, Smith Argus, Corina Steele, Andrew Krighton and "
    "Zaldimar Wefhellt. Clicking them does nothing.",
    "reported_at": "2026-12-07T18:00:00+00:00",
    "reporter": "Tester",
}
#: The seven creatures the report names, each the one row of its exact name in the demo DB.
ENTRIES = {240, 295, 925, 514, 54, 2046, 328}


def test_unsearched_names_are_looked_up_by_exact_name_through_the_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = _run(tmp_path, LIST)
    resolution = _resolution(workspace, "BUG-BATCHED-NAMES")
    plan = _json(resolution / "plan.json")["plan"]
    assert len(plan["searches"]) == 4 and len(plan["unsearched"]) == 3
    batched = _batched_captures(resolution)
    assert sorted(c.search_id for c in batched) == ["Q5", "Q6", "Q7"]
    assert {c.search.term for c in batched} == {n["term"] for n in plan["unsearched"]}
    context = _json(resolution / "context.json")
    assert {n["identity"] for n in context["selected"]} == ENTRIES
    assert not [d for d in context["unresolved"] if d["status"] == "not_searched"]
    verify_without_database(workspace, monkeypatch, "BUG-BATCHED-NAMES")


def test_a_batched_capture_must_be_the_exact_name_query(tmp_path: Path) -> None:
    workspace = _run(tmp_path, LIST)
    resolution = _resolution(workspace, "BUG-BATCHED-NAMES")
    package = workspace.case("BUG-BATCHED-NAMES")
    rev = load_frozen(package, "0001")
    assert check_capture_provenance(rev).passed
    capture = _batched_captures(resolution)[0]
    # the same rows recorded as a plan search's own (contains) capture: the kind is refused
    forged = capture.model_copy(update={"kind": None})
    _replace_capture(workspace, resolution, capture, forged)
    codes = {f.code for f in check_capture_provenance(load_frozen(package, "0001")).findings}
    assert ErrorCode.CAPTURE_EXACT_DIFFERS in codes


def _batched_captures(resolution: Path) -> list[CaptureArtifact]:
    captures = [
        CaptureArtifact.model_validate(_json(path))
        for path in sorted((resolution / "captures").glob("*.json"))
    ]
    return [c for c in captures if c.kind == BATCHED_EXACT_NAME]


def _replace_capture(
    workspace: Workspace, resolution: Path, old: CaptureArtifact, new: CaptureArtifact
) -> None:
    """Swap a capture file for ``new`` under its own content address (what a tampered or buggy
    writer would leave): the old file goes, the new one is hash-consistent."""
    for path in (resolution / "captures").glob("*.json"):
        if CaptureArtifact.model_validate(_json(path)) == old:
            path.unlink()
    package = workspace.case("BUG-BATCHED-NAMES")
    package.write_object(
        load_frozen(package, "0001").layout.captures_dir, new.model_dump(mode="json")
    )
