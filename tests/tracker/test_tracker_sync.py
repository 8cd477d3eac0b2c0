"""``vba tracker sync`` against a fake GitHub over real HTTP: first sync, 304, pages, skips."""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github_server import FakeGitHub
from tests.tracker.conftest import REPO, FakeClock, cases_bytes, project_toml, seed, tracker_config
from vba_assets.cli import main
from vba_assets.store import Workspace
from vba_assets.tracker.github_issues import case_id_for
from vba_assets.tracker.sync import sync_tracker
from vba_assets.tracker.sync_state import read_cursor


def cases(workspace: Workspace) -> list[str]:
    return workspace.case_ids()


def test_a_first_sync_imports_every_non_pr_issue_and_a_second_costs_no_rate_limit(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    seed(github)
    tracker = tracker_config(github.url, labels=["bug"])

    first = sync_tracker(workspace, tracker, clock=fake_clock.clock())

    assert first.stopped is None
    assert sorted(first.cases()["imported"]) == sorted(case_id_for(REPO, n) for n in (1, 2, 3, 5))
    assert cases(workspace) == sorted(case_id_for(REPO, n) for n in (1, 2, 3, 5))
    assert first.outcome.skipped_by_reason() == {"label_filter": 1, "pull_request": 1}
    # the comment of #5 became an attachment; nobody asked for the comments of the others
    report = json.loads(workspace.case(case_id_for(REPO, 5)).read_bytes("report/report.json"))
    assert [a["text"] for a in report["attachments"]] == ["Still stuck after the restart."]
    comment_requests = [e for e in github.log if e.path.endswith("/comments")]
    assert [e.path for e in comment_requests] == [f"/repos/{REPO}/issues/5/comments"]
    # every request carried the token, and a page size of 2 took several list requests
    assert {e.headers.get("authorization") for e in github.log} == {f"Bearer {github.token}"}
    lists = [e for e in github.log if e.path == f"/repos/{REPO}/issues"]
    assert len(lists) >= 4
    assert all(e.query["sort"] == "updated" and e.query["direction"] == "asc" for e in lists)
    cursor = read_cursor(workspace, "core")
    assert cursor.since == github.issues[6]["updated_at"] and cursor.etag is not None
    before = cases_bytes(workspace.root)
    github.log.clear()

    second = sync_tracker(workspace, tracker, clock=fake_clock.clock())

    assert second.stopped is None and second.not_modified
    assert [(e.status, e.headers.get("if-none-match")) for e in github.log] == [(304, cursor.etag)]
    assert github.costly() == []
    assert second.cases()["imported"] == [] and not any(second.cases().values())
    assert cases_bytes(workspace.root) == before


def test_a_new_issue_after_the_cursor_is_the_only_one_imported(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    seed(github)
    tracker = tracker_config(github.url)
    sync_tracker(workspace, tracker, clock=fake_clock.clock())
    github.add_issue(7, "Murloc loot", "The murlocs near Goldshire drop nothing.")
    github.log.clear()

    result = sync_tracker(workspace, tracker, clock=fake_clock.clock())

    assert result.cases()["imported"] == [case_id_for(REPO, 7)]
    assert not any(e.path.endswith("/comments") for e in github.log)  # #5 was passed over
    assert result.passed_over >= 1


def test_the_cli_prints_json_and_reads_the_tracker_block(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(github)
    config = project_toml(tmp_path / "project.toml", tmp_path / "ws", github.url)

    code = main(["tracker", "sync", "--project-config", str(config), "--json"])

    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert code == 0
    [synced] = data["trackers"]
    assert synced["tracker"] == "core" and synced["stopped"] is None
    assert len(synced["imported"]) == 5 and synced["skipped_by_reason"] == {"pull_request": 1}
    code = main(["tracker", "sync", "--project-config", str(config), "--tracker", "nope"])
    assert code == 3
    assert "no [[trackers]] block named 'nope' (core)" in capsys.readouterr().err
