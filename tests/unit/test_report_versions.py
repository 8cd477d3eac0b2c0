"""The import policy of an existing case: unchanged, labels only, stale, edited, refused; the
hash chain of report versions under ``vba verify``; clarification answers."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github_issue import REPO, rest_issue
from vba_assets.errors import ErrorCode, InputError
from vba_assets.intake import import_report_json
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import Workspace
from vba_assets.store.layout import case_json, version_record
from vba_assets.store.versions import report_versions, revision_report_version
from vba_assets.tracker.github_issues import case_id_for
from vba_assets.tracker.issue_import import import_github_issues

ISSUE = rest_issue(
    6,
    "Hogger cannot be killed",
    "Hogger in Elwynn Forest does not take damage.",
    at="2026-11-01T10:00:00Z",
)
CASE = case_id_for(REPO, 6)


def changed(**fields: Any) -> dict[str, Any]:
    return {**copy.deepcopy(ISSUE), **fields}


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def status(workspace: Workspace, issue: dict[str, Any], comments: Any = ()) -> list[str]:
    outcome = import_github_issues(workspace, [(issue, list(comments))])
    assert outcome.refused == [] and outcome.skipped == []
    return [r.status for _, r in [*outcome.imported, *outcome.revised, *outcome.unchanged]]


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    workspace = Workspace(tmp_path / "ws")
    assert status(workspace, ISSUE) == ["imported"]
    return workspace


def test_the_same_issue_again_and_a_relabelled_one_are_unchanged_and_write_nothing(
    workspace: Workspace,
) -> None:
    before = snapshot(workspace.root)
    assert status(workspace, ISSUE) == ["unchanged"]
    relabelled = changed(labels=[{"name": "wontfix"}], updated_at="2026-11-05T10:00:00Z")
    assert status(workspace, relabelled) == ["unchanged"]
    assert snapshot(workspace.root) == before


def test_an_edit_is_one_version_and_one_revision_chained_to_the_first(
    workspace: Workspace,
) -> None:
    package = workspace.case(CASE)
    before = snapshot(package.root)
    edited = changed(title="Hogger cannot be killed by spells", updated_at="2026-11-02T10:00:00Z")
    assert status(workspace, edited) == ["revised"]
    assert status(workspace, edited) == ["unchanged"]  # idempotent by content
    assert report_versions(package) == ["0001", "0002"]
    assert package.revisions() == ["0002"]
    assert revision_report_version(package, "0002") == "0002"
    assert revision_report_version(package, "0001") == "0001"
    after = snapshot(package.root)
    assert {k: v for k, v in after.items() if k in before} == before
    record = json.loads(package.read_bytes(version_record("0002")))
    assert record["reason"] == "edited" and record["previous"] == {
        "version": "0001",
        "record_sha256": package.artifact_ref("package.json").sha256,
        "case_json_sha256": package.artifact_ref("case.json").sha256,
    }
    assert record["case_json_sha256"] == package.artifact_ref(case_json("0002")).sha256
    assert [f.line() for f in verify_case(package).all_findings() if f.is_error] == []
    # an older snapshot of the issue (an old export imported after the sync) changes nothing
    assert status(workspace, ISSUE) == ["unchanged"]
    assert snapshot(package.root) == after


def test_verify_finds_an_edited_or_removed_version(workspace: Workspace) -> None:
    package = workspace.case(CASE)
    assert status(workspace, changed(body="Edited.", updated_at="2026-11-02T10:00:00Z")) == [
        "revised"
    ]
    assert status(workspace, changed(body="Again.", updated_at="2026-11-03T10:00:00Z")) == [
        "revised"
    ]
    assert package.revisions() == ["0002", "0003"]
    report = package.root / "reports" / "0002" / "report" / "report.json"
    report.write_bytes(report.read_bytes().replace(b"Edited.", b"Edited!"))
    lines = [f.line() for f in verify_case(package).all_findings() if f.is_error]
    assert any("reports/0002/report/report.json" in line for line in lines), lines
    # version 0002's record swapped for another: the chain of 0003 breaks
    record = package.root / version_record("0002")
    doc = json.loads(record.read_bytes())
    doc["reason"] = "comments"
    record.write_bytes(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())
    codes = {(f.code.value, f.artifact) for f in verify_case(package).all_findings() if f.is_error}
    assert ("PACKAGE_HASH_REFERENCE_MISMATCH", "reports/0002/version.json") in codes


def test_a_hand_written_report_for_an_existing_case_is_still_refused(
    workspace: Workspace,
) -> None:
    report = {
        "case_id": CASE,
        "title": "Something else",
        "body": "Another report.",
        "reported_at": "2026-11-01T10:00:00Z",
    }
    before = snapshot(workspace.root)
    with pytest.raises(InputError) as error:
        import_report_json(workspace, json.dumps(report).encode(), "hand.json")
    assert error.value.code is ErrorCode.CASE_ALREADY_IMPORTED
    assert snapshot(workspace.root) == before


def _asked(workspace: Workspace, question: str | None) -> None:
    """Revision 0001's accepted interpretation (only what the answer lookup reads)."""
    package = workspace.case(CASE)
    relpath = "analysis/interpretations/0001/interpretation.json"
    ambiguity = {"is_ambiguous": question is not None, "clarification_question": question}
    package.write_json(relpath, {"interpretation": {"ambiguity": ambiguity}})
    package.append_event("0001", "accepted", stage="interpretation", artifact=relpath)


def _comment(number: int, login: str, at: str, body: str) -> dict[str, Any]:
    return {"id": number, "user": {"login": login}, "created_at": at, "body": body}


def test_the_reporters_comment_after_a_question_is_a_clarification_answer(
    workspace: Workspace,
) -> None:
    _asked(workspace, "Which Hogger do you mean?")
    package = workspace.case(CASE)
    asked_at = package.read_events("0001")[-1]["at"]
    later = "2099-01-01T00:00:00Z"
    assert asked_at < later
    comments = [
        _comment(1, "player-one", "2026-11-01T11:00:00Z", "Before the question."),
        _comment(2, "someone-else", later, "Not the reporter."),
        _comment(3, "player-one", later, "The one in Elwynn Forest, entry 448."),
    ]
    assert status(workspace, changed(updated_at=later), comments) == ["revised"]
    doc = package.read_json(case_json("0002"))
    kinds = [(s["name"].split(" at ")[0], s["kind"]) for s in doc["sources"][2:]]
    assert kinds == [
        ("comment 1 by player-one", "other"),
        ("comment 2 by someone-else", "other"),
        ("comment 3 by player-one", "clarification_answer"),
    ]
    assert json.loads(package.read_bytes(version_record("0002")))["reason"] == (
        "clarification_answer"
    )
    # the same comments again: the answer stays an answer (nothing new)
    assert status(workspace, changed(updated_at=later), comments) == ["unchanged"]


def test_without_a_question_the_reporters_comment_is_a_plain_comment(
    workspace: Workspace,
) -> None:
    _asked(workspace, None)
    comments = [_comment(1, "player-one", "2099-01-01T00:00:00Z", "More detail.")]
    assert status(workspace, changed(updated_at="2099-01-01T00:00:00Z"), comments) == ["revised"]
    doc = workspace.case(CASE).read_json(case_json("0002"))
    assert [s["kind"] for s in doc["sources"][2:]] == ["other"]
    record = json.loads(workspace.case(CASE).read_bytes(version_record("0002")))
    assert record["reason"] == "comments"


def test_an_unreadable_interpretation_refuses_the_issue_instead_of_guessing(
    workspace: Workspace,
) -> None:
    _asked(workspace, "Which Hogger do you mean?")
    package = workspace.case(CASE)
    package.path("analysis/interpretations/0001/interpretation.json").write_bytes(b"{not json")
    other = rest_issue(7, "Another issue", "Hogger again.")
    outcome = import_github_issues(
        workspace, [(changed(body="More.", updated_at="2099-01-01T00:00:00Z"), []), (other, [])]
    )
    assert [(r.case_id, r.code.value) for r in outcome.refused] == [(CASE, "ARTIFACT_CORRUPT")]
    assert [r.status for _, r in outcome.imported] == ["imported"]  # the other one still imports
    assert report_versions(package) == ["0001"]
