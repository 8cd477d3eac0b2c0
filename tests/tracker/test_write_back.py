"""Write-back against the fake GitHub: a dry run prints the comment; posting is once per revision,
updated in place, found again by its marker, recorded in the package; a failure is retried."""

from pathlib import Path

import dagster as dg
import pytest

from tests.fakes.github_server import FakeGitHub, Fault
from tests.tracker.conftest import REPO, FakeClock, project_toml, tracker_config
from vba_assets.cli import main
from vba_assets.defs.job import build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import Workspace
from vba_assets.tracker import comment as comment_module
from vba_assets.tracker.github_issues import case_id_for
from vba_assets.tracker.sync import revised_outcome_exists, sync_tracker
from vba_assets.tracker.write_back import post_write_backs, records

CASE = case_id_for(REPO, 1)


def interpreted(github: FakeGitHub, workspace: Workspace, clock: FakeClock) -> None:
    """Issue #1 synced and its revision 0001 interpreted (heuristic, demo world DB)."""
    github.add_issue(
        1,
        "Can't find any Wild Wolpertinger for Goldark's Brewfest quest",
        "Goldark Snipehunter wants Wild Wolpertinger, but @someone says there are none. #12",
    )
    sync_tracker(workspace, tracker_config(github.url), clock=clock.clock())
    argv = ["trial", "run", "--workspace", str(workspace.root), "--case-id", CASE]
    assert main([*argv, "--stop-after", "interpretation"]) == 0


def marked(github: FakeGitHub) -> list[str]:
    return [c["body"] for c in github.comments[1] if c["body"].startswith("<!-- vba:")]


def test_dry_run_prints_and_posting_is_once_per_revision_updated_in_place(
    github: FakeGitHub,
    workspace: Workspace,
    fake_clock: FakeClock,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    interpreted(github, workspace, fake_clock)
    config = project_toml(tmp_path / "p.toml", workspace.root, github.url, write_back="comment")
    capsys.readouterr()
    github.log.clear()

    assert main(["tracker", "post", "--project-config", str(config), "--dry-run"]) == 0

    printed = capsys.readouterr().out
    assert printed.startswith(f"--- {CASE} revision 0001 -> issue #1")
    assert f"<!-- vba:{CASE}|0001 -->" in printed
    assert "| creature | 23487 | Wild Wolpertinger |" in printed  # the entry id
    assert "Not checked:" in printed and "http" not in printed.split("\n", 1)[1]
    assert github.log == [] and marked(github) == []

    tracker = tracker_config(github.url, write_back="comment")
    first = post_write_backs(workspace, tracker, clock=fake_clock.clock())
    assert first.posted == [f"{CASE}|0001"] and len(marked(github)) == 1
    [body] = marked(github)
    assert body == printed.split("\n", 1)[1].rstrip("\n") + "\n"
    assert "@" not in body  # report text cannot mention anyone (it is &#64;)
    package = workspace.case(CASE)
    [record] = records(package, "0001")
    assert record["action"] == "posted" and record["comment_id"] == github.comments[1][-1]["id"]
    assert [f.line() for f in verify_case(package).all_findings() if f.is_error] == []

    github.log.clear()
    second = post_write_backs(workspace, tracker, clock=fake_clock.clock())
    assert second.unchanged == [f"{CASE}|0001"] and github.log == []  # the record says so

    # a kill after the post, before its record: the marker finds the comment, nothing is doubled
    for path in (package.root / "write-back").rglob("*.json"):
        path.unlink()
    found = post_write_backs(workspace, tracker, clock=fake_clock.clock())
    assert found.unchanged == [f"{CASE}|0001"] and len(marked(github)) == 1
    assert [r["action"] for r in records(package, "0001")] == ["found"]

    # a new summary text: the same comment is updated in place
    monkeypatch.setattr(comment_module, "NOT_CHECKED", "Not checked: anything (new wording).")
    updated = post_write_backs(workspace, tracker, clock=fake_clock.clock())
    assert updated.updated == [f"{CASE}|0001"]
    assert [m.splitlines()[-1] for m in marked(github)] == ["Not checked: anything (new wording)."]
    assert [e.method for e in github.log if e.method != "GET"] == ["PATCH"]  # no new POST

    # the bot's comment bumped the issue, but it is no part of the case: no new revision (until
    # report versions land, the new updated_at alone makes the import refuse it; then unchanged)
    synced = sync_tracker(workspace, tracker, clock=fake_clock.clock())
    assert CASE not in synced.cases().get("revised", []) + synced.cases()["imported"]
    if revised_outcome_exists():
        assert synced.cases()["unchanged"] == [CASE]
    assert package.revisions() == ["0001"]


def test_a_failed_post_is_recorded_and_retried_later(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    interpreted(github, workspace, fake_clock)
    tracker = tracker_config(github.url, write_back="comment", max_wait_s=0)
    github.fail(Fault(404, path_contains="/comments"))  # the marker search: not found

    failed = post_write_backs(workspace, tracker, clock=fake_clock.clock())

    assert failed.failed == [{"revision": f"{CASE}|0001", "reason": "not_found"}]
    [record] = records(workspace.case(CASE), "0001")
    assert record["status"] == "failed" and record["error"]["reason"] == "not_found"
    assert marked(github) == []

    retried = post_write_backs(workspace, tracker, clock=fake_clock.clock())

    assert retried.posted == [f"{CASE}|0001"] and len(marked(github)) == 1
    assert [r["status"] for r in records(workspace.case(CASE), "0001")] == ["failed", "ok"]


def test_write_back_labels_are_added_once_per_revision_and_retried_after_a_failure(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    interpreted(github, workspace, fake_clock)
    labels = ["vba-interpreted", "bug"]  # "bug" is already on the issue: GitHub keeps one
    tracker = tracker_config(
        github.url, write_back="comment", write_back_labels=labels, max_wait_s=0
    )
    github.fail(Fault(500, path_contains="/labels"))
    github.fail(Fault(500, path_contains="/labels"))
    github.fail(Fault(500, path_contains="/labels"))
    github.fail(Fault(500, path_contains="/labels"))

    failed = post_write_backs(workspace, tracker, clock=fake_clock.clock())

    assert failed.failed and failed.failed[0]["revision"] == f"{CASE}|0001"
    assert len(marked(github)) == 1  # the comment stands; only the labels failed
    assert [n["name"] for n in github.issues[1]["labels"]] == ["bug"]

    github.log.clear()
    retried = post_write_backs(workspace, tracker, clock=fake_clock.clock())

    assert retried.unchanged == [f"{CASE}|0001"] and len(marked(github)) == 1
    assert [(e.method, e.path.rsplit("/", 1)[-1]) for e in github.log] == [("POST", "labels")]
    assert [n["name"] for n in github.issues[1]["labels"]] == ["bug", "vba-interpreted"]
    package = workspace.case(CASE)
    assert [(r["action"], r["status"]) for r in records(package, "0001")] == [
        ("posted", "ok"),
        ("failed", "failed"),
        ("labelled", "ok"),
    ]
    assert records(package, "0001")[-1]["labels"] == labels

    github.log.clear()
    again = post_write_backs(workspace, tracker, clock=fake_clock.clock())
    assert again.unchanged == [f"{CASE}|0001"] and github.log == []  # labelled once
    assert [f.line() for f in verify_case(package).all_findings() if f.is_error] == []


def test_write_back_labels_need_write_back(github: FakeGitHub) -> None:
    with pytest.raises(ValueError, match="write_back_labels needs write_back"):
        tracker_config(github.url, write_back_labels=["vba-interpreted"])
    with pytest.raises(ValueError, match="not a label name"):
        tracker_config(github.url, write_back="comment", write_back_labels=["  "])


def test_vba_verify_accounts_for_write_back_records_and_nothing_else_there(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    github.add_issue(1, "Hogger does not respawn", "Hogger in Elwynn Forest never came back.")
    sync_tracker(workspace, tracker_config(github.url), clock=fake_clock.clock())
    package = workspace.case(CASE)
    package.write_json("write-back/0001/0001.json", {"case_id": CASE, "revision": "0001"})
    package.write_json("write-back/0002/0001.json", {"case_id": CASE, "revision": "0001"})
    package.write_json("write-back/0001/notes.json", {"case_id": CASE})
    package.flush()

    report = verify_case(package)
    findings = [(f.code.value, f.artifact) for f in report.all_findings() if f.is_error]

    assert sorted(findings) == [
        ("PACKAGE_ARTIFACT_INVALID", "write-back/0002/0001.json"),
        ("PACKAGE_UNREFERENCED_FILE", "write-back/0001/notes.json"),
    ]


def test_the_tracker_sensor_posts_each_revision_once(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock, tmp_path: Path
) -> None:
    interpreted(github, workspace, fake_clock)
    config = project_toml(tmp_path / "p.toml", workspace.root, github.url, write_back="comment")
    project = ProjectResource(project_config=str(config))
    defs = build_definitions(
        project=project,
        world_db=WorldDatabaseResource(project_config=str(config)),
        llm=LlmResource(),
    )
    sensor = defs.resolve_sensor_def("tracker_core_sensor")
    with dg.instance_for_test() as instance:
        for _ in range(2):
            resources = {"project": project, "llm": LlmResource()}
            with dg.build_sensor_context(instance=instance, resources=resources) as context:
                assert isinstance(sensor(context), dg.SensorResult)
    assert len(marked(github)) == 1
    assert [r["action"] for r in records(workspace.case(CASE), "0001")] == ["posted"]


def test_each_revision_gets_its_own_comment(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    interpreted(github, workspace, fake_clock)
    tracker = tracker_config(github.url, write_back="comment")
    assert post_write_backs(workspace, tracker, clock=fake_clock.clock()).posted
    github.edit_issue(1, body="Goldark Snipehunter wants Wild Wolpertinger; none spawn at night.")
    assert sync_tracker(workspace, tracker, clock=fake_clock.clock()).cases()["revised"] == [CASE]
    argv = ["trial", "run", "--workspace", str(workspace.root), "--case-id", CASE]
    assert main([*argv, "--stop-after", "interpretation"]) == 0  # the latest: revision 0002

    second = post_write_backs(workspace, tracker, clock=fake_clock.clock())

    assert second.posted == [f"{CASE}|0002"] and second.unchanged == [f"{CASE}|0001"]
    assert [m.splitlines()[0] for m in marked(github)] == [
        f"<!-- vba:{CASE}|0001 -->",
        f"<!-- vba:{CASE}|0002 -->",
    ]
