"""A sync killed at each of its write points, then run again: no case twice, none missed.

Each point N kills a fresh sync (tests/tracker/kill_child.py: the process ends just before its
N-th ``os.link``/``os.replace``/``os.fsync``), then a sync in this process finishes the job. The
cases are then byte for byte those of a sync that was never killed, every package verifies, and
the cursor is the same; the re-run imports exactly the cases the killed one had not finished.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.github_server import FakeGitHub
from tests.tracker.conftest import cases_bytes, project_toml, tracker_config
from tests.tracker.kill_child import KILLED
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import Workspace
from vba_assets.tracker.sync import sync_tracker
from vba_assets.tracker.sync_state import read_cursor

REPO_ROOT = Path(__file__).resolve().parents[2]


def killed_at(point: int, project: Path) -> bool:
    """Run the sync of ``project`` in a child killed before its ``point``-th write; False when the
    sync ended before reaching it."""
    child = subprocess.run(
        [sys.executable, str(REPO_ROOT / "tests/tracker/kill_child.py"), str(project), str(point)],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        timeout=120,
    )
    if child.returncode == 0:
        return False
    assert child.returncode == KILLED, child.stderr.decode()
    return True


def finished(workspace: Workspace) -> set[str]:
    return {c for c in workspace.case_ids() if workspace.case(c).exists("package.json")}


@pytest.mark.slow
def test_a_sync_killed_at_each_write_point_converges_on_the_clean_result(
    github: FakeGitHub, tmp_path: Path
) -> None:
    github.add_issue(1, "Hogger does not respawn", "Hogger in Elwynn Forest never came back.")
    github.add_issue(2, "Fix spawn table", "A pull request.", pull_request={"url": "x"})
    github.add_issue(3, "Kobold stuck", "A kobold vermin is stuck in a wall.")
    github.add_comment(3, "Still stuck after the restart.")
    github.add_issue(4, "Vendor sells nothing", "The vendor Bernie Heisten has an empty list.")
    tracker = tracker_config(github.url)
    clean = Workspace(tmp_path / "clean")
    assert sync_tracker(clean, tracker).stopped is None
    expected, expected_cursor = cases_bytes(clean.root), read_cursor(clean, "core")
    assert len(finished(clean)) == 3

    points = 0
    for point in range(1, 400):
        root = tmp_path / f"ws{point}"
        if not killed_at(point, project_toml(tmp_path / f"p{point}.toml", root, github.url)):
            break  # the sync ends before this point: every point was tried
        points += 1
        workspace = Workspace(root)
        before = finished(workspace)

        again = sync_tracker(workspace, tracker)

        assert again.stopped is None, point
        assert set(again.cases()["imported"]) == finished(workspace) - before, point
        assert cases_bytes(root) == expected, point
        assert read_cursor(workspace, "core") == expected_cursor, point
        for case_id in workspace.case_ids():
            report = verify_case(workspace.case(case_id))
            assert [f.line() for f in report.all_findings() if f.is_error] == [], point
    assert points >= 10  # the test reached every kind of write point


@pytest.mark.slow
def test_a_sync_of_an_edit_killed_at_each_write_point_adds_exactly_one_revision(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """The edit path: a report version and a revision per edited issue, none twice, none lost."""
    github.add_issue(1, "Hogger does not respawn", "Hogger in Elwynn Forest never came back.")
    github.add_issue(3, "Kobold stuck", "A kobold vermin is stuck in a wall.")
    tracker = tracker_config(github.url)
    base = Workspace(tmp_path / "base")
    assert sync_tracker(base, tracker).stopped is None
    github.edit_issue(1, body="Hogger in Elwynn Forest never came back, since Tuesday.")
    github.add_comment(3, "Still stuck after the restart.")
    clean = Workspace(tmp_path / "clean")
    shutil.copytree(base.root, clean.root)
    assert sorted(sync_tracker(clean, tracker).cases()["revised"]) == sorted(clean.case_ids())
    expected = {c: clean.case(c).revisions() for c in clean.case_ids()}
    expected_files = set(cases_bytes(clean.root))

    points = 0
    for point in range(1, 400):
        root = tmp_path / f"ws{point}"
        shutil.copytree(base.root, root)
        if not killed_at(point, project_toml(tmp_path / f"p{point}.toml", root, github.url)):
            break  # the sync ends before this point: every point was tried
        points += 1
        workspace = Workspace(root)

        again = sync_tracker(workspace, tracker)

        assert again.stopped is None, point
        assert {c: workspace.case(c).revisions() for c in workspace.case_ids()} == expected, point
        assert set(cases_bytes(root)) == expected_files, point
        for case_id in workspace.case_ids():
            report = verify_case(workspace.case(case_id))
            assert [f.line() for f in report.all_findings() if f.is_error] == [], point
    assert points >= 10
