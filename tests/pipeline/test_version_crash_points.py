"""A kill at every store write point of a versioned import, then the import again: no version or
revision twice, none missed.

The technique of :mod:`tests.pipeline.test_crash_points`: a forked child imports an edited GitHub
issue (a case that exists) and SIGKILLs itself at write point N (a publish before or after its
link, an event append half or fully written). The parent imports the same issue again, as the
next sync would, and checks: exactly one new report version and one revision bound to it, every
file equal to a clean import's (the lifecycle log by its events), no temp file, ``vba verify``
finds nothing.
"""

import copy
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github_issue import REPO, rest_issue
from tests.pipeline.test_crash_points import WritePoints, _content, instrumented
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import CasePackage, Workspace
from vba_assets.store.atomic import TEMP_NAME_PATTERN
from vba_assets.store.versions import bound_versions, report_versions
from vba_assets.tracker.github_issues import case_id_for
from vba_assets.tracker.issue_import import IssueImport, import_github_issues

ISSUE = rest_issue(
    5,
    "Hogger cannot be killed",
    "Hogger in Elwynn Forest does not take damage.",
    at="2026-11-01T10:00:00Z",
)
EDITED = {**copy.deepcopy(ISSUE), "body": "Hogger does not take damage from spells, only from melee.",
          "updated_at": "2026-11-02T10:00:00Z"}  # fmt: skip
COMMENTS = [
    {
        "id": 1,
        "user": {"login": "player-one"},
        "created_at": "2026-11-02T09:00:00Z",
        "body": "Tried again with a mage: still no damage.",
    }
]
CASE = case_id_for(REPO, 5)


def first_import(root: Path) -> Workspace:
    workspace = Workspace(root / "ws")
    assert import_github_issues(workspace, [(ISSUE, [])]).imported
    return workspace


def edit(workspace: Workspace) -> IssueImport:
    return import_github_issues(workspace, [(EDITED, COMMENTS)])


def killed_at(root: Path, point: int) -> int:
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            with instrumented(WritePoints(point)):
                edit(Workspace(root / "ws"))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return status


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("clean")
    workspace = first_import(root)
    points = WritePoints(None)
    with instrumented(points):
        outcome = edit(workspace)
    assert [r.status for _, r in outcome.revised] == ["revised"]
    return workspace.case(CASE).root, points.names


def _events(package: CasePackage) -> list[tuple[Any, ...]]:
    return [
        (e["event"], e.get("reason"), e.get("report_version")) for e in package.read_events("0002")
    ]


def test_the_versioned_import_has_write_points_of_every_kind(
    clean: tuple[Path, list[str]],
) -> None:
    _, names = clean
    for needle in (
        "report.json: temp written",
        "case.json: linked",
        "version.json: temp written",
        "version.json: linked, temp not removed",
        "append created: half a line",
        "append created: line written",
    ):
        assert any(needle in name for name in names), (needle, names)


def test_a_kill_at_every_write_point_of_a_versioned_import_then_a_rerun(
    clean: tuple[Path, list[str]], tmp_path: Path
) -> None:
    clean_root, names = clean
    clean_package = Workspace(clean_root.parents[1]).case(CASE)
    for point in range(1, len(names) + 1):
        root = tmp_path / f"p{point}"
        first_import(root)
        status = killed_at(root, point)
        where = f"killed at {point} ({names[point - 1]})"
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, where
        outcome = edit(Workspace(root / "ws"))  # the next import of the same issue
        package = Workspace(root / "ws").case(CASE)
        statuses = [r.status for _, r in [*outcome.revised, *outcome.unchanged]]
        created_before = "append created: line written" in names[point - 1]
        assert statuses == (["unchanged"] if created_before else ["revised"]), where
        assert report_versions(package) == ["0001", "0002"], where
        assert bound_versions(package) == {"0001": ["0001"], "0002": ["0002"]}, where
        assert package.revisions() == ["0002"], where
        assert _events(package) == _events(clean_package), where
        temps = [p for p in package.root.rglob("*") if TEMP_NAME_PATTERN.match(p.name)]
        assert temps == [], where
        assert _content(package.root) == _content(clean_root), where
        findings = verify_case(package).all_findings()
        assert [f.line() for f in findings if f.is_error] == [], where
    print(f"versioned import: {len(names)} write points killed and re-run, all complete")


def test_verify_reports_a_version_without_its_revision_until_the_next_import(
    clean: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """Killed after version.json: the version is complete but nothing interprets it yet; the
    next import (not a new version) creates its revision."""
    _, names = clean
    point = next(n for n, name in enumerate(names, start=1) if "version.json: linked" in name)
    root = tmp_path / "crashed"
    first_import(root)
    killed_at(root, point)
    package = Workspace(root / "ws").case(CASE)
    assert report_versions(package) == ["0001", "0002"] and package.revisions() == []
    outcome = edit(Workspace(root / "ws"))
    assert [(r.report_version, r.revision) for _, r in outcome.revised] == [("0002", "0002")]
    assert report_versions(package) == ["0001", "0002"]


def test_an_unfinished_version_of_another_edit_is_replaced(tmp_path: Path) -> None:
    """Files of a version without its record (a kill, then the issue was edited again) are not
    a version: the next import writes its own in their place."""
    workspace = first_import(tmp_path)
    package = workspace.case(CASE)
    stray = package.root / "reports" / "0002" / "case.json"
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b'{"case_id":"stale"}')
    codes = {f.code.value for f in verify_case(package).all_findings() if f.is_error}
    assert "PACKAGE_FILE_MISSING" in codes  # reports/0002/version.json: an unfinished import
    outcome = edit(workspace)
    assert [r.status for _, r in outcome.revised] == ["revised"]
    assert stray.read_bytes() != b'{"case_id":"stale"}'
    assert [f.line() for f in verify_case(package).all_findings() if f.is_error] == []


def test_two_imports_of_one_edit_at_once_write_one_version(tmp_path: Path) -> None:
    """Two processes import the same edited issue at once: the import lock serializes them, one
    writes version 0002 and its revision, the other finds them (``unchanged``)."""
    workspace = first_import(tmp_path)
    read, write = os.pipe()
    children = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read)
                outcome = edit(workspace)
                (result,) = [r for _, r in [*outcome.revised, *outcome.unchanged]]
                os.write(write, f"{result.status}\n".encode())
            finally:
                os._exit(0)
        children.append(pid)
    os.close(write)
    for pid in children:
        os.waitpid(pid, 0)
    with os.fdopen(read) as pipe:
        statuses = sorted(pipe.read().split())
    package = workspace.case(CASE)
    assert statuses == ["revised", "unchanged"]
    assert report_versions(package) == ["0001", "0002"] and package.revisions() == ["0002"]
    assert [f.line() for f in verify_case(package).all_findings() if f.is_error] == []
