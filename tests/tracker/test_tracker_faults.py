"""Rate limits, server and network errors: waited out or recorded, never a crash or a busy loop."""

import json

from tests.fakes.github_server import FakeGitHub, Fault
from tests.tracker.conftest import REPO, FakeClock, seed, tracker_config
from vba_assets.store import Workspace
from vba_assets.tracker.github_api import BACKOFF_S, MAX_ATTEMPTS
from vba_assets.tracker.github_issues import case_id_for
from vba_assets.tracker.sync import sync_tracker
from vba_assets.tracker.sync_state import read_cursor, read_last_sync

ALL = sorted(case_id_for(REPO, n) for n in (1, 2, 3, 5, 6))


def test_a_short_retry_after_is_waited_and_the_sync_goes_on(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    seed(github)
    github.fail(Fault(429, {"Retry-After": "3"}), Fault(403, {"Retry-After": "2"}))

    result = sync_tracker(workspace, tracker_config(github.url), clock=fake_clock.clock())

    assert result.stopped is None
    assert fake_clock.waits == [3.0, 2.0]
    assert workspace.case_ids() == ALL
    assert [e.status for e in github.log[:3]] == [429, 403, 200]


def test_a_long_rate_limit_stops_the_sync_with_a_recorded_reason_and_the_next_resumes(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    seed(github)
    tracker = tracker_config(github.url, max_wait_s=10)
    reset = int(fake_clock.at) + 900
    # the third request is refused for 900 s: the first pages are imported, then the sync stops
    workspace_two = workspace
    calls: list[int] = []
    original = github._route

    def limited(*args: object) -> tuple[int, dict[str, str], object]:
        calls.append(1)
        if len(calls) == 3:
            return (
                403,
                {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
                {"message": "API rate limit exceeded"},
            )
        return original(*args)  # type: ignore[arg-type]

    github._route = limited  # type: ignore[method-assign]

    stopped = sync_tracker(workspace_two, tracker, clock=fake_clock.clock())

    assert stopped.stopped is not None and stopped.stopped.reason == "rate_limited"
    assert stopped.stopped.retry_at == reset and fake_clock.waits == []
    partial = workspace_two.case_ids()
    assert 0 < len(partial) < len(ALL)
    record = read_last_sync(workspace_two, "core")
    assert record is not None and record["stopped"]["reason"] == "rate_limited"
    assert record["stopped"]["retry_at"] is not None
    cursor = read_cursor(workspace_two, "core")
    assert cursor.since is not None and cursor.etag is None
    github._route = original  # type: ignore[method-assign]

    resumed = sync_tracker(workspace_two, tracker, clock=fake_clock.clock())

    assert resumed.stopped is None
    assert sorted(resumed.cases()["imported"]) == sorted(set(ALL) - set(partial))
    assert workspace_two.case_ids() == ALL


def test_server_errors_are_retried_with_backoff_and_then_reported(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    seed(github)
    tracker = tracker_config(github.url)
    github.fail(Fault(502), Fault(500))

    recovered = sync_tracker(workspace, tracker, clock=fake_clock.clock())

    assert recovered.stopped is None and workspace.case_ids() == ALL
    assert fake_clock.waits == list(BACKOFF_S[:2])
    assert recovered.api["problems"] == ["server_error: HTTP 502", "server_error: HTTP 500"]
    github.add_issue(9, "New", "A new issue.")
    github.fail(*[Fault(503)] * MAX_ATTEMPTS)
    fake_clock.waits.clear()

    failed = sync_tracker(workspace, tracker, clock=fake_clock.clock())

    assert failed.stopped is not None and failed.stopped.reason == "server_error"
    assert "after 4 attempts" in failed.stopped.detail
    assert fake_clock.waits == list(BACKOFF_S)  # then it stopped: no busy loop
    assert failed.api["requests"] == MAX_ATTEMPTS
    assert workspace.case_ids() == ALL  # nothing lost, and #9 comes with the next sync
    assert sync_tracker(workspace, tracker, clock=fake_clock.clock()).cases()["imported"] == [
        case_id_for(REPO, 9)
    ]


def test_a_network_error_is_retried_and_then_reported(
    workspace: Workspace, fake_clock: FakeClock
) -> None:
    tracker = tracker_config("http://127.0.0.1:9", token_env=None)  # nothing listens there

    result = sync_tracker(workspace, tracker, clock=fake_clock.clock())

    assert result.stopped is not None and result.stopped.reason == "network_error"
    assert result.api["requests"] == MAX_ATTEMPTS and fake_clock.waits == list(BACKOFF_S)
    assert workspace.case_ids() == []
    record = read_last_sync(workspace, "core")
    assert record is not None and json.dumps(record).count("network_error") >= 1


def test_bad_credentials_stop_without_echoing_anything_secret(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    seed(github)
    github.token = "another-token"

    result = sync_tracker(workspace, tracker_config(github.url), clock=fake_clock.clock())

    assert result.stopped is not None and result.stopped.reason == "unauthorized"
    assert result.stopped.detail == f"HTTP 401 /repos/{REPO}/issues: Bad credentials"
    assert result.api["requests"] == 1 and workspace.case_ids() == []


def test_a_link_to_another_host_is_not_followed(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    github.add_issue(1, "Hogger does not respawn", "Hogger never came back.")
    github.issues[1]["comments"] = 1
    github.issues[1]["comments_url"] = "http://127.0.0.2:1/steal-the-token"

    result = sync_tracker(workspace, tracker_config(github.url), clock=fake_clock.clock())

    assert result.stopped is not None and result.stopped.reason == "foreign_url"
    assert workspace.case_ids() == []
