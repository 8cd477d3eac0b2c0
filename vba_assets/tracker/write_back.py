"""Opt-in write-back (``write_back = "comment"``): one comment per revision on its issue.

For every revision of a tracker's cases with an accepted interpretation, the comment of
:func:`~vba_assets.tracker.comment.summary_comment` is posted once and then kept in step:

* its record says it was posted with the same body: nothing is sent;
* it was posted with another body (a new summary format): ``PATCH`` of that comment;
* no record (first time, or a kill after the post and before its record): the issue's comments are
  searched for the revision's hidden marker; found, it is updated if it differs, else posted;
* ``write_back_labels``, if any, are then added to the issue once per revision (a ``labelled``
  record; GitHub's "add labels" keeps the labels the issue has).

Each post is recorded in the case package, outside every revision's hashed content, as
``write-back/<revision>/<NNNN>.json`` (append-only, one file per attempt: what was sent (its
sha256), when, the comment's id and URL, or the failure's reason). A failed post is recorded and
retried by the next run; nothing in the pipeline waits for it, so it never blocks the case.
``vba tracker post --dry-run`` prints the comments and sends nothing.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from vba_assets.config import TrackerConfig
from vba_assets.domain.canonical import sha256_hex
from vba_assets.domain.clock import format_timestamp, utc_now
from vba_assets.errors import VbaError
from vba_assets.store import CasePackage, Workspace
from vba_assets.store.layout import CASE_JSON, RevisionLayout
from vba_assets.tracker.comment import marker, summary_comment
from vba_assets.tracker.github_api import Clock, GitHubApi, SyncStopped
from vba_assets.tracker.github_issues import is_case_of
from vba_assets.tracker.sync_state import sync_lock

WRITE_BACK_DIR = "write-back"
RECORD_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Planned:
    """The comment one revision should have on its issue."""

    case_id: str
    revision: str
    number: int
    body: str

    @property
    def body_sha256(self) -> str:
        return sha256_hex(self.body.encode("utf-8"))


@dataclass
class PostResult:
    """What one write-back run did, revision by revision (``case|revision`` keys)."""

    tracker: str
    posted: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    planned: list[Planned] = field(default_factory=list)
    stopped: SyncStopped | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "tracker": self.tracker,
            "posted": self.posted,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "failed": self.failed,
            "stopped": None if self.stopped is None else str(self.stopped),
        }


def record_dir(revision: str) -> str:
    return f"{WRITE_BACK_DIR}/{revision}"


def records(package: CasePackage, revision: str) -> list[dict[str, Any]]:
    """The revision's write-back records, oldest first."""
    names = sorted(n for n in package.list_dir(record_dir(revision)) if n.endswith(".json"))
    return [package.read_json(name) for name in names]


def planned_comments(workspace: Workspace, tracker: TrackerConfig) -> Iterator[Planned]:
    """The comment of every revision of the tracker's cases with an accepted interpretation."""
    for case_id in workspace.case_ids():
        if not is_case_of(case_id, tracker.repository):
            continue
        package = workspace.case(case_id)
        if not package.exists(CASE_JSON):
            continue
        source = package.read_json(CASE_JSON).get("source") or {}
        number = source.get("number")
        if not isinstance(number, int):
            continue
        for revision in package.revisions():
            layout = RevisionLayout(revision)
            if not package.exists(layout.interpretation):
                continue
            interpretation = package.read_json(layout.interpretation)
            if interpretation.get("status") != "accepted":
                continue
            context = package.read_json(layout.context) if package.exists(layout.context) else None
            body = summary_comment(case_id, revision, interpretation, context)
            yield Planned(case_id, revision, number, body)


def post_write_backs(
    workspace: Workspace,
    tracker: TrackerConfig,
    *,
    dry_run: bool = False,
    transport: httpx.BaseTransport | None = None,
    clock: Clock | None = None,
    budget_s: float | None = None,
) -> PostResult:
    """Post or update the comment of each revision (see the module docstring)."""
    result = PostResult(tracker.name)
    result.planned = list(planned_comments(workspace, tracker))
    if dry_run:
        return result
    clock = clock or Clock()
    deadline = clock.now() + budget_s if budget_s is not None else None
    with (
        sync_lock(workspace, tracker.name) as held,
        GitHubApi(tracker, transport=transport, clock=clock, deadline=deadline) as api,
    ):
        if not held:
            result.stopped = SyncStopped("busy", "a sync or post of this tracker is running")
            return result
        for plan in result.planned:
            key = f"{plan.case_id}|{plan.revision}"
            try:
                action = _post_one(workspace.case(plan.case_id), tracker, api, plan)
            except SyncStopped as stop:
                _record(workspace.case(plan.case_id), plan, tracker, None, stop=stop)
                result.failed.append({"revision": key, "reason": stop.reason})
                if stop.reason in ("rate_limited", "unauthorized", "network_error"):
                    result.stopped = stop  # the next revisions would meet the same
                    break
                continue
            getattr(result, action).append(key)
    return result


def _post_one(package: CasePackage, tracker: TrackerConfig, api: GitHubApi, plan: Planned) -> str:
    action, comment_id = _comment_in_step(package, tracker, api, plan)
    _ensure_labels(package, tracker, api, plan, comment_id)
    return action


def _comment_in_step(
    package: CasePackage, tracker: TrackerConfig, api: GitHubApi, plan: Planned
) -> tuple[str, int | None]:
    """Post or update the revision's comment: the action taken and the comment's id."""
    done = [r for r in records(package, plan.revision) if r.get("status") == "ok"]
    comment_id = done[-1].get("comment_id") if done else None
    if done and done[-1].get("body_sha256") == plan.body_sha256:
        return "unchanged", comment_id
    if comment_id is None:
        found = _find(api, tracker, plan)
        if found is not None:
            comment_id = found["id"]
            if found.get("body") == plan.body:
                _record(package, plan, tracker, found, action="found")
                return "unchanged", comment_id
    if comment_id is not None:
        url = f"/repos/{tracker.repository}/issues/comments/{comment_id}"
        answer = api.send_json("PATCH", url, {"body": plan.body})
        _record(package, plan, tracker, answer, action="updated")
        return "updated", comment_id
    url = f"/repos/{tracker.repository}/issues/{plan.number}/comments"
    answer = api.send_json("POST", url, {"body": plan.body})
    _record(package, plan, tracker, answer, action="posted")
    return "posted", answer.get("id") if isinstance(answer, dict) else None


def _ensure_labels(
    package: CasePackage,
    tracker: TrackerConfig,
    api: GitHubApi,
    plan: Planned,
    comment_id: int | None,
) -> None:
    """Add ``write_back_labels`` to the issue once per revision (a ``labelled`` record says it
    was done; a failed attempt raises and is retried by the next run, like a failed post)."""
    if not tracker.write_back_labels:
        return
    wanted = list(tracker.write_back_labels)
    labelled = [
        r
        for r in records(package, plan.revision)
        if r.get("action") == "labelled" and r.get("status") == "ok" and r.get("labels") == wanted
    ]
    if labelled:
        return
    url = f"/repos/{tracker.repository}/issues/{plan.number}/labels"
    api.send_json("POST", url, {"labels": wanted})
    _record(package, plan, tracker, {"id": comment_id}, action="labelled", labels=wanted)


def _find(api: GitHubApi, tracker: TrackerConfig, plan: Planned) -> dict[str, Any] | None:
    """The issue's comment that carries the revision's marker (every page is searched)."""
    wanted = marker(plan.case_id, plan.revision)
    url = f"/repos/{tracker.repository}/issues/{plan.number}/comments"
    for page in api.pages(url, {"per_page": "100"}):
        for comment in page:
            body = comment.get("body") if isinstance(comment, dict) else None
            if isinstance(comment, dict) and isinstance(body, str) and body.startswith(wanted):
                found: dict[str, Any] = comment
                return found
    return None


def _record(
    package: CasePackage,
    plan: Planned,
    tracker: TrackerConfig,
    answer: Any,
    *,
    action: str = "failed",
    stop: SyncStopped | None = None,
    labels: list[str] | None = None,
) -> None:
    """Publish the next ``write-back/<revision>/<NNNN>.json`` (no token, no header)."""
    existing = package.list_dir(record_dir(plan.revision))
    comment = answer if isinstance(answer, dict) else {}
    record = {
        "schema_version": RECORD_SCHEMA_VERSION,
        "case_id": plan.case_id,
        "revision": plan.revision,
        "tracker": tracker.name,
        "repository": tracker.repository,
        "issue_number": plan.number,
        "action": action,
        "status": "failed" if stop is not None else "ok",
        "at": format_timestamp(utc_now()),
        "body_sha256": plan.body_sha256,
        "comment_id": comment.get("id") if isinstance(comment.get("id"), int) else None,
        "comment_url": comment.get("html_url")
        if isinstance(comment.get("html_url"), str)
        else None,
        "error": None if stop is None else {"reason": stop.reason, "detail": stop.detail},
    }
    if labels is not None:
        record["labels"] = labels
    relpath = f"{record_dir(plan.revision)}/{len(existing) + 1:04d}.json"
    try:
        package.write_json(relpath, record)
        package.flush()
    except VbaError as error:  # a concurrent writer took the number: the post itself stands
        raise SyncStopped("record_failed", f"{relpath}: {error.code.value}") from None


def dry_run_text(result: PostResult) -> str:
    """What ``vba tracker post --dry-run`` prints: each comment under its issue and revision."""
    parts = [
        f"--- {plan.case_id} revision {plan.revision} -> issue #{plan.number} "
        f"({len(plan.body)} characters)\n{plan.body}"
        for plan in result.planned
    ]
    return "\n".join(parts) or f"tracker {result.tracker}: no revision with an interpretation\n"
