"""The walk: a page of one updated_at follows Link; an edit during the walk misses nothing; a
spent rate limit waits before the next request; the [[trackers]] block is validated strictly."""

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github_server import FakeGitHub
from tests.tracker.conftest import REPO, TOKEN_ENV, FakeClock, tracker_config
from vba_assets.config import parse_project_config
from vba_assets.errors import ConfigError
from vba_assets.store import Workspace
from vba_assets.tracker.github_issues import case_id_for
from vba_assets.tracker.sync import sync_tracker
from vba_assets.tracker.sync_state import read_cursor


def test_a_page_of_one_updated_at_is_left_by_link_and_its_etag_is_not_kept(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    for number in (1, 2, 3):
        github.add_issue(number, f"Issue {number}", f"Body {number}.")
    for issue in github.issues.values():
        issue["updated_at"] = "2025-03-01T12:00:00Z"  # a bulk relabel: one second for all

    result = sync_tracker(workspace, tracker_config(github.url), clock=fake_clock.clock())

    assert sorted(result.cases()["imported"]) == sorted(case_id_for(REPO, n) for n in (1, 2, 3))
    pages = [e.query.get("page") for e in github.log if e.path.endswith("/issues")]
    assert "2" in pages  # Link was followed: since could not move past the shared second
    cursor = read_cursor(workspace, "core")
    assert cursor.since == "2025-03-01T12:00:00Z" and cursor.seen == (1, 2, 3)
    assert cursor.etag is None  # a 304 to page 1 of several would prove nothing
    github.log.clear()
    again = sync_tracker(workspace, tracker_config(github.url), clock=fake_clock.clock())
    assert not any(again.cases().values()) and again.passed_over == 3


def test_an_issue_edited_during_the_walk_does_not_hide_the_next_one(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    for number in (1, 2, 3, 4, 5):
        github.add_issue(number, f"Issue {number}", f"Body {number}.")
    original = github._route
    lists: list[int] = []

    def edit_after_first_page(*args: Any) -> Any:
        answer = original(*args)
        if args[1].endswith("/issues"):
            lists.append(1)
            if len(lists) == 1:  # #1 moves to the end: with Link, #3 would fall off page 2
                github.issues[1].update(body="Body 1, edited.", updated_at=github.now())
        return answer

    github._route = edit_after_first_page  # type: ignore[method-assign]

    result = sync_tracker(workspace, tracker_config(github.url), clock=fake_clock.clock())

    handled = result.cases()["imported"] + [r.case_id for r in result.outcome.refused]
    assert sorted(set(handled)) == sorted(case_id_for(REPO, n) for n in (1, 2, 3, 4, 5))
    assert workspace.case_ids() == sorted(case_id_for(REPO, n) for n in (1, 2, 3, 4, 5))


def test_a_spent_rate_limit_waits_before_the_next_request(
    github: FakeGitHub, workspace: Workspace, fake_clock: FakeClock
) -> None:
    for number in (1, 2, 3):
        github.add_issue(number, f"Issue {number}", f"Body {number}.")
    github.remaining = 1  # the first answer says 0 remain, reset in 5 s
    reset = int(fake_clock.at) + 5
    original = github._limits

    def limits() -> dict[str, str]:
        headers = original()
        return {**headers, "X-RateLimit-Reset": str(reset)}

    github._limits = limits  # type: ignore[method-assign]

    result = sync_tracker(workspace, tracker_config(github.url), clock=fake_clock.clock())

    assert result.stopped is None and len(workspace.case_ids()) == 3
    assert len(fake_clock.waits) >= 1 and 0 < fake_clock.waits[0] <= 5


def project(tracker: dict[str, Any], *more: dict[str, Any]) -> Any:
    return parse_project_config(
        {
            "workspace": "ws",
            "database": {"url": "embedded:demo", "allowlist": ["t"], "snapshot_label": "x"},
            "trackers": [tracker, *more],
        },
        base_dir=Path("."),
        source="p.toml",
    )


BLOCK = {"name": "core", "kind": "github", "repository": REPO, "token_env": TOKEN_ENV}


@pytest.mark.parametrize(
    ("change", "key", "says"),
    [
        ({"name": "Core-1"}, "trackers.0.name", "pattern"),
        ({"kind": "gitlab"}, "trackers.0.kind", "'github'"),
        ({"repository": "no-slash"}, "trackers.0.repository", "owner/name"),
        ({"api_url": "https://user:pw@ghe.example/api/v3"}, "trackers.0.api_url", "credentials"),
        ({"api_url": "https://ghe.example/api?x=1"}, "trackers.0.api_url", "query"),
        ({"token_env": "ghp_abcdefghijklmnop"}, "trackers.0.token_env", "never the token"),
        ({"token_env": "MY TOKEN"}, "trackers.0.token_env", "NAME"),
        ({"labels": []}, "trackers.0.labels", "leave labels out"),
        ({"labels": ["bug", "BUG"]}, "trackers.0.labels", "duplicate"),
        ({"write_back": "label"}, "trackers.0.write_back", "'off' or 'comment'"),
        ({"write_back": "comment", "token_env": None}, "trackers.0", "needs token_env"),
        ({"interval_s": 1}, "trackers.0.interval_s", "10"),
        ({"token": "ghp_x"}, "trackers.0.token", "Extra inputs"),
    ],
)
def test_a_tracker_block_is_refused_with_its_key_and_reason(
    change: dict[str, Any], key: str, says: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        project(BLOCK | change)
    assert raised.value.detail["key"] == key
    assert says in raised.value.message
    assert "ghp_abcdefghijklmnop" not in raised.value.message  # a pasted token is not echoed


def test_two_blocks_of_one_repository_or_name_are_refused_and_a_good_one_loads() -> None:
    with pytest.raises(ConfigError, match="two blocks read the same repository"):
        project(BLOCK, BLOCK | {"name": "other", "repository": REPO.upper()})
    with pytest.raises(ConfigError, match="duplicate name"):
        project(BLOCK, BLOCK | {"repository": "other-org/other"})
    [tracker] = project(BLOCK | {"api_url": "https://ghe.example/api/v3/"}).trackers
    assert tracker.api_url == "https://ghe.example/api/v3" and tracker.write_back == "off"
    assert tracker.token() is None  # read from the environment at the call, unset here
