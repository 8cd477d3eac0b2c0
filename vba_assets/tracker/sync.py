"""``vba tracker sync``: a ``[[trackers]]`` block's new and edited issues become cases.

One sync walks ``GET /repos/{owner}/{name}/issues?state=all&sort=updated&direction=asc&since=S``:

1. The first request carries ``If-None-Match`` with the cursor's ETag: a 304 ends the sync at no
   rate-limit cost.
2. Each page's issues are imported by :func:`~vba_assets.tracker.issue_import.import_github_issues`
   (the same function as ``vba import --github-issues``, so an export and a sync give the same
   cases), with their comments (``comments_url``, every page) when ``include_comments`` and the
   issue has any. Pull requests and issues outside ``labels`` are counted and need no comment
   request; issues at the cursor's own time that the cursor names as seen are passed over.
3. Then the cursor moves to the page's newest ``updated_at`` (:mod:`.sync_state`) and the walk
   asks again with ``since`` = that time, rather than following ``Link: rel="next"``: an issue
   edited during the walk moves to the end of the list, which shifts every later issue one place
   back, so the first issue of the next *page* would be skipped for good; a fresh query from the
   cursor cannot skip one. ``Link`` is followed only while a whole page shares one ``updated_at``
   (``since`` cannot move past it). The walk ends with a query that brings nothing newer than its
   ``since``; its ETag (when it fit on one page) is what the next sync sends.

A refusal that retrying may cure (a store lock, a file system fault) holds the cursor before that
issue and ends the sync (``import_held``); a refusal of the report itself (admission, an existing
case with other content) is listed and passed, since the same content would be refused again (an
edit of the issue brings it back with a newer ``updated_at``). Rate limits, server and network
errors end the sync with a reason (:mod:`.github_api`); what a sync did is recorded in
``trackers/<name>/last_sync.json``.
"""

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from vba_assets.config import TrackerConfig
from vba_assets.domain.clock import format_timestamp, utc_now
from vba_assets.errors import ErrorCode
from vba_assets.store import Workspace
from vba_assets.tracker.github_api import Answer, Clock, GitHubApi, SyncStopped
from vba_assets.tracker.github_issues import label_names
from vba_assets.tracker.issue_import import (
    IssueImport,
    IssueWithComments,
    RefusedIssue,
    import_github_issues,
)
from vba_assets.tracker.sync_state import (
    Cursor,
    read_cursor,
    sync_lock,
    write_cursor,
    write_last_sync,
)

PER_PAGE = 100
#: The most list requests of one sync (a bound, not a pace: each brings at least one issue on).
MAX_LIST_REQUESTS = 1000
#: The outcome lists of an :class:`IssueImport` that name a case (``revised`` once versions exist).
CASE_OUTCOMES = ("imported", "revised", "unchanged")


def revised_outcome_exists() -> bool:
    """Whether an edited issue can be imported as a new revision (``revised`` is an outcome)."""
    return "revised" in IssueImport().to_json()


def is_permanent_refusal(code: ErrorCode) -> bool:
    """A refusal of the report's content (retrying the same issue is refused again)."""
    return code.value.startswith("REPORT_") or code in (
        ErrorCode.CASE_ALREADY_IMPORTED,
        ErrorCode.INVALID_CASE_ID,
    )


@dataclass
class SyncResult:
    """What one sync of one tracker did."""

    tracker: str
    repository: str
    outcome: IssueImport = field(default_factory=IssueImport)
    passed_over: int = 0
    stopped: SyncStopped | None = None
    api: dict[str, Any] = field(default_factory=dict)
    cursor: Cursor = field(default_factory=Cursor)
    not_modified: bool = False
    held: RefusedIssue | None = None

    def cases(self) -> dict[str, list[str]]:
        """The case ids of each case outcome (``imported``, ``revised``, ``unchanged``)."""
        data = self.outcome.to_json()
        return {
            key: [item["case_id"] for item in data[key]] for key in CASE_OUTCOMES if key in data
        }

    def to_json(self) -> dict[str, Any]:
        stopped = None
        if self.stopped is not None:
            retry_at = self.stopped.retry_at
            stopped = {
                "reason": self.stopped.reason,
                "detail": self.stopped.detail,
                "retry_at": format_timestamp(datetime.fromtimestamp(retry_at, UTC))
                if retry_at
                else None,
            }
        return {
            "tracker": self.tracker,
            "repository": self.repository,
            "not_modified": self.not_modified,
            "passed_over_at_cursor": self.passed_over,
            "stopped": stopped,
            "api": self.api,
            "cursor": {"since": self.cursor.since, "etag": self.cursor.etag is not None},
            **self.outcome.to_json(),
        }

    def lines(self) -> list[str]:
        out = [f"tracker {self.tracker} ({self.repository}):", *self.outcome.lines()]
        calls = self.api
        out.append(
            f"requests {calls.get('requests', 0)} ({calls.get('not_modified', 0)} not modified, "
            f"{calls.get('retries', 0)} retried), cursor since {self.cursor.since or 'the start'}"
        )
        if self.stopped is not None:
            out.append(f"stopped: {self.stopped.reason}: {self.stopped.detail}")
        return out


def _merge(into: IssueImport, part: IssueImport) -> None:
    for item in dataclasses.fields(IssueImport):
        value = getattr(part, item.name)
        if isinstance(value, list):
            getattr(into, item.name).extend(value)


def sync_tracker(
    workspace: Workspace,
    tracker: TrackerConfig,
    *,
    transport: httpx.BaseTransport | None = None,
    clock: Clock | None = None,
    budget_s: float | None = None,
) -> SyncResult:
    """Sync one tracker (see the module docstring); never raises for the API's answers."""
    result = SyncResult(tracker.name, tracker.repository)
    clock = clock or Clock()
    deadline = clock.now() + budget_s if budget_s is not None else None
    with sync_lock(workspace, tracker.name) as held:
        result.cursor = read_cursor(workspace, tracker.name)
        if not held:
            result.stopped = SyncStopped("busy", "another sync of this tracker is running")
            return result
        with GitHubApi(tracker, transport=transport, clock=clock, deadline=deadline) as api:
            try:
                _walk(workspace, tracker, api, result)
            except SyncStopped as stop:
                result.stopped = stop
            finally:
                result.api = api.stats.to_json()
        write_last_sync(
            workspace,
            tracker.name,
            {"finished_at": format_timestamp(utc_now()), **result.to_json()},
        )
    return result


def _walk(workspace: Workspace, tracker: TrackerConfig, api: GitHubApi, result: SyncResult) -> None:
    url = f"/repos/{tracker.repository}/issues"

    def commit(cursor: Cursor) -> None:  # only after the imports it covers returned
        write_cursor(workspace, tracker.name, cursor)
        result.cursor = cursor

    query, first_page = url, True  # the next request: a fresh query from the cursor, or a Link
    for _ in range(MAX_LIST_REQUESTS):
        cursor = result.cursor
        answer = api.get(
            query,
            _params(cursor.since) if first_page else None,
            cursor.etag if first_page else None,
        )
        if answer.status == 304:
            result.not_modified = True
            return
        issues = _issues(answer)
        fresh = [
            i for i in issues if not (_updated(i) == cursor.since and i["number"] in cursor.seen)
        ]
        result.passed_over += len(issues) - len(fresh)
        held = _import(workspace, tracker, api, fresh, result)
        if held is not None:
            when = _updated(held)
            before = fresh[: fresh.index(held)]
            commit(_at(cursor, when, _numbers_at(before, when)))
            raise SyncStopped(
                "import_held",
                f"issue #{held['number']} was refused for a reason that may pass "
                f"({held_code(result)}); the next sync starts with it",
            )
        newest = _newest(cursor.since, issues)
        if newest != cursor.since:  # progress: ask again from the newest time
            assert newest is not None
            commit(_at(cursor, newest, _numbers_at(issues, newest)))
            query, first_page = url, True
        elif answer.next_url is not None:  # a whole page at one time: only Link goes on
            commit(_at(cursor, newest, _numbers_at(issues, newest)))
            query, first_page = answer.next_url, False
        else:  # nothing newer than `since`
            etag = answer.etag if first_page else None  # an ETag of the whole answer only
            at = _at(cursor, newest, _numbers_at(issues, newest))
            commit(dataclasses.replace(at, etag=etag))
            return
    raise SyncStopped("too_many_pages", f"{MAX_LIST_REQUESTS} list requests in one sync")


def _newest(since: str | None, issues: Sequence[Mapping[str, Any]]) -> str | None:
    """The ``updated_at`` the cursor may move to: the newest of the page's ascending prefix (a
    page that is not in order moves it no further than where the order breaks)."""
    newest = since or ""
    for issue in issues:
        if _updated(issue) < newest:
            break
        newest = _updated(issue)
    return newest or None


def _at(cursor: Cursor, when: str | None, handled: Sequence[int]) -> Cursor:
    """The cursor at ``when`` with ``handled`` seen there (and what was seen there before); no
    ETag (the query from ``when`` was not made yet)."""
    previous = cursor.seen if when == cursor.since else ()
    return Cursor(when, tuple(sorted({*previous, *handled})), None)


def _params(since: str | None) -> dict[str, str]:
    params = {"state": "all", "sort": "updated", "direction": "asc", "per_page": str(PER_PAGE)}
    if since:
        params["since"] = since
    return params


def _issues(answer: Answer) -> list[dict[str, Any]]:
    if not isinstance(answer.data, list):
        raise SyncStopped("malformed_response", "the issue list is not a JSON array")
    issues = [
        item
        for item in answer.data
        if isinstance(item, dict)
        and isinstance(item.get("number"), int)
        and isinstance(item.get("updated_at"), str)
    ]
    if len(issues) != len(answer.data):
        raise SyncStopped("malformed_response", "an item without number or updated_at")
    return issues


def _updated(issue: Mapping[str, Any]) -> str:
    return str(issue["updated_at"])


def _numbers_at(issues: Sequence[Mapping[str, Any]], when: str | None) -> list[int]:
    return [int(i["number"]) for i in issues if _updated(i) == when]


def _import(
    workspace: Workspace,
    tracker: TrackerConfig,
    api: GitHubApi,
    issues: Sequence[dict[str, Any]],
    result: SyncResult,
) -> dict[str, Any] | None:
    """Import ``issues`` in order; the first issue held by a passing refusal (None: none)."""
    for issue in issues:
        pair: IssueWithComments = (issue, _comments(tracker, api, issue))
        part = import_github_issues(
            workspace, [pair], repository=tracker.repository, labels=tracker.labels
        )
        passing = [r for r in part.refused if not is_permanent_refusal(r.code)]
        if passing:
            result.held = passing[0]
            return issue
        _merge(result.outcome, part)
    return None


def held_code(result: "SyncResult") -> str:
    return result.held.code.value if result.held is not None else "?"


def _wanted(tracker: TrackerConfig, issue: Mapping[str, Any]) -> bool:
    if issue.get("pull_request") is not None:
        return False
    if tracker.labels is None:
        return True
    wanted = {label.casefold() for label in tracker.labels}
    return bool(wanted & {name.casefold() for name in label_names(issue)})


def _comments(tracker: TrackerConfig, api: GitHubApi, issue: Mapping[str, Any]) -> list[Any]:
    """Every comment of ``issue`` (all pages), or none when they are not wanted or there are none."""
    count = issue.get("comments")
    if not tracker.include_comments or not _wanted(tracker, issue) or count == 0:
        return []
    url = issue.get("comments_url")
    if not isinstance(url, str):
        url = f"/repos/{tracker.repository}/issues/{issue['number']}/comments"
    return [
        c
        for page in api.pages(url, {"per_page": str(PER_PAGE)})
        for c in page
        if isinstance(c, dict)
    ]
