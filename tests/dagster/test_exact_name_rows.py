"""The exact-name capture of a famous name is complete (protocol v6, issue 29 items 3 and 4)
through the ``interpret_cases`` job: a real (temporary) Dagster instance, the embedded world DB
and the heuristic provider, whose replies test quality here (which entity is selected).

"Thrall" is a substring of many names (the contains search truncates at ``max_candidates`` 8)
and the exact name of 11 rows of the 3.3.5 data: the Warchief in Orgrimmar and his copies in
Hyjal, Old Hillsbrad, the Wrath Gate and the Battle for the Undercity. The exact-name query asks
for :data:`~vba_assets.domain.resolution.captures.EXACT_NAME_ROWS` rows, so its capture holds
all 11 and records their quest relations; the quest the report names ("Warchief's Blessing",
which only 4949 ends) tells 4949 apart, cited. At a row limit of ``max_candidates`` the exact
capture itself was truncated and nothing could be selected. A recorded exact capture with another
row limit fails the capture-provenance check.
"""

from pathlib import Path

import pytest

from tests.dagster.test_grounded_tiebreaks import (
    _json,
    _resolution,
    _run,
    verify_without_database,
)
from vba_assets.domain.resolution.captures import EXACT_NAME_ROWS
from vba_assets.domain.resolution.models import EXACT_NAME, CaptureArtifact
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.checks import check_capture_provenance
from vba_assets.pipeline.frozen_revision import load_frozen

REPORT = {
    "case_id": "BUG-EXACT-ROWS",
    "title": "Thrall does not accept Warchief's Blessing",
    "body": "I finished Warchief's Blessing but Thrall has no question mark and I cannot turn "
    "it in. Relogging does not help.",
    "reported_at": "2026-12-08T00:30:00+00:00",
    "reporter": "Tester",
}


def test_a_famous_names_exact_capture_is_complete_and_a_named_quest_selects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = _run(tmp_path, REPORT)
    resolution = _resolution(workspace, "BUG-EXACT-ROWS")
    captures = [
        CaptureArtifact.model_validate(_json(path))
        for path in sorted((resolution / "captures").glob("*.json"))
    ]
    [exact] = [c for c in captures if c.kind == EXACT_NAME and c.search.term == "Thrall"]
    [own] = [c for c in captures if c.kind is None and c.search.term == "Thrall"]
    assert own.result.truncated and own.result.row_limit == 8
    assert exact.result.row_limit == EXACT_NAME_ROWS and not exact.result.truncated
    assert exact.result.parameters["row_limit"] == EXACT_NAME_ROWS + 1
    identities = [row.identity for row in exact.result.rows]
    assert len(identities) == 11 and 4949 in identities  # more rows than max_candidates
    assessment = _json(resolution / "assessment.json")["assessment"]["assessments"]
    [verdict] = [v for v in assessment if v["status"] == "selected"]
    assert verdict["tiebreak"]["fact"] == "quest"
    assert verdict["tiebreak"]["span"]["quote"] == "Warchief's Blessing"
    context = _json(resolution / "context.json")
    assert [n["identity"] for n in context["selected"]] == [4949]
    verify_without_database(workspace, monkeypatch, "BUG-EXACT-ROWS")


def test_an_exact_capture_with_the_contains_row_limit_is_refused(tmp_path: Path) -> None:
    workspace = _run(tmp_path, REPORT)
    package = workspace.case("BUG-EXACT-ROWS")
    assert check_capture_provenance(load_frozen(package, "0001")).passed
    resolution = _resolution(workspace, "BUG-EXACT-ROWS")
    for path in (resolution / "captures").glob("*.json"):
        capture = CaptureArtifact.model_validate(_json(path))
        if capture.kind != EXACT_NAME:
            continue
        # the same rows recorded as if the query had asked for max_candidates rows only
        result = capture.result.model_copy(update={"row_limit": 8})
        path.unlink()
        package.write_object(
            load_frozen(package, "0001").layout.captures_dir,
            capture.model_copy(update={"result": result}).model_dump(mode="json"),
        )
    codes = {f.code for f in check_capture_provenance(load_frozen(package, "0001")).findings}
    assert ErrorCode.CAPTURE_ROW_LIMIT in codes
