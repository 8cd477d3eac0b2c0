"""Importing GitHub issues as cases: ``vba import --github-issues FILE`` (and, later, the sync).

A file holds one issue object or a JSON array, as ``gh api repos/OWNER/REPO/issues`` or the REST
API returns them. An issue's comments may ride along: an array item (or the whole document) of
the form ``{"issue": {...}, "comments": [{...}, ...]}`` is one issue with its comments (GitHub's
own issue object has a ``comments`` *count*, so the comments cannot live inside it).

Each issue is mapped (:func:`vba_assets.tracker.github_issues.map_issue`) and imported with
:func:`vba_assets.intake.import_report_json`: a new case is written, the same report again is a
byte-identical no-op, an edited issue (same repository and number, changed title, body or
comments) becomes a new report version of its case and a new revision that freezes it
(:mod:`vba_assets.intake_versions`), one whose labels or ``updated_at`` alone changed is
unchanged, and anything else refused is listed while the other issues still import. Each case's
outcome says which (``status``: ``imported``, ``revised`` or ``unchanged``). Skipped items (pull requests, outside the label filter,
not a valid issue) are counted by reason.
"""

import json
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from vba_assets.domain.canonical import reject_json_constant
from vba_assets.domain.case.text import reject
from vba_assets.errors import ErrorCode, VbaError
from vba_assets.intake import ImportResult, import_report_json
from vba_assets.store import CasePackage, Workspace
from vba_assets.store.layout import PACKAGE_JSON, RevisionLayout
from vba_assets.tracker.github_issues import MappedIssue, SkippedIssue, map_issue

#: The largest issue export read, in bytes.
MAX_EXPORT_BYTES = 64 * 1024 * 1024

IssueWithComments = tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]


@dataclass(frozen=True)
class RefusedIssue:
    """A mapped issue that the import refused (nothing written for it)."""

    case_id: str
    number: int
    code: ErrorCode
    message: str


@dataclass
class IssueImport:
    """What one import of GitHub issues did, item by item."""

    imported: list[tuple[MappedIssue, ImportResult]] = field(default_factory=list)
    revised: list[tuple[MappedIssue, ImportResult]] = field(default_factory=list)
    unchanged: list[tuple[MappedIssue, ImportResult]] = field(default_factory=list)
    skipped: list[SkippedIssue] = field(default_factory=list)
    refused: list[RefusedIssue] = field(default_factory=list)

    def skipped_by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(item.reason.value for item in self.skipped).items()))

    def to_json(self) -> dict[str, Any]:
        def case(mapped: MappedIssue, result: ImportResult) -> dict[str, Any]:
            return {
                "status": result.status,
                "report_version": result.report_version,
                "revision": result.revision,
                "case_id": result.case_id,
                "repository": mapped.repository,
                "number": mapped.number,
                "case_json_sha256": result.case_json_sha256,
                "content_sha256": mapped.content_sha256,
                "images_omitted": mapped.images_omitted,
                "comments_omitted": mapped.comments_omitted,
            }

        return {
            "imported": [case(*pair) for pair in self.imported],
            "revised": [case(*pair) for pair in self.revised],
            "unchanged": [case(*pair) for pair in self.unchanged],
            "skipped": [
                {"number": s.number, "reason": s.reason.value, "detail": s.detail}
                for s in self.skipped
            ],
            "skipped_by_reason": self.skipped_by_reason(),
            "refused": [
                {
                    "case_id": r.case_id,
                    "number": r.number,
                    "code": r.code.value,
                    "message": r.message,
                }
                for r in self.refused
            ],
        }

    def lines(self) -> list[str]:
        out = [
            f"{r.case_id}: imported issue #{m.number} ({m.repository})" for m, r in self.imported
        ]
        out += [
            f"{r.case_id}: revised issue #{m.number}: report version {r.report_version}, "
            f"revision {r.revision}"
            for m, r in self.revised
        ]
        out += [f"{r.case_id}: unchanged issue #{m.number}" for m, r in self.unchanged]
        out += [f"#{s.number}: skipped ({s.reason.value}): {s.detail}" for s in self.skipped]
        out += [f"{r.case_id}: refused ({r.code.value}): {r.message}" for r in self.refused]
        reasons = ", ".join(f"{k} {v}" for k, v in self.skipped_by_reason().items()) or "none"
        out.append(
            f"github issues: {len(self.imported)} imported, {len(self.revised)} revised, "
            f"{len(self.unchanged)} unchanged, "
            f"{len(self.skipped)} skipped ({reasons}), {len(self.refused)} refused"
        )
        return out


def read_issue_export(path: Path) -> list[IssueWithComments]:
    """The issues of an export file (see the module docstring), each with its comments.

    Raises:
        InputError: REPORT_UNREADABLE, REPORT_TOO_LARGE or REPORT_MALFORMED naming the file.
    """
    name = path.name
    try:
        size = path.stat().st_size
        if size > MAX_EXPORT_BYTES:
            reject(
                ErrorCode.REPORT_TOO_LARGE,
                name,
                f"is {size} bytes; an issue export may hold {MAX_EXPORT_BYTES}",
            )
        data = path.read_bytes()
    except OSError as error:
        reject(ErrorCode.REPORT_UNREADABLE, name, f"cannot be read: {error.strerror}")
    try:
        document = json.loads(data.decode("utf-8-sig"), parse_constant=reject_json_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        reject(ErrorCode.REPORT_MALFORMED, name, f"is not a JSON issue export: {error}")
    return issues_of(document, name)


def issues_of(document: object, name: str = "issues") -> list[IssueWithComments]:
    """Split a decoded export into (issue, comments) pairs."""
    items = document if isinstance(document, list) else [document]
    pairs: list[IssueWithComments] = []
    for index, item in enumerate(items):
        if isinstance(item, dict) and "issue" in item and "number" not in item:
            comments = item.get("comments") or []
            if not isinstance(item["issue"], dict) or not isinstance(comments, list):
                reject(
                    ErrorCode.REPORT_MALFORMED,
                    f"{name}[{index}]",
                    'an {"issue": ..., "comments": [...]} item needs an object and an array',
                )
            pairs.append((item["issue"], [c for c in comments if isinstance(c, dict)]))
        elif isinstance(item, dict):
            pairs.append((item, []))
        else:
            reject(ErrorCode.REPORT_MALFORMED, f"{name}[{index}]", "is not an issue object")
    return pairs


def question_asked_at(workspace: Workspace, mapped: MappedIssue) -> datetime | None:
    """When an interpretation of the issue's case first asked the reporter a clarification
    question: the earliest ``accepted`` event of an ``interpretation.json`` whose ambiguity holds
    one, over every revision (the earliest, so a later revision that no longer asks does not turn
    the answer back into a plain comment). None for a new case or one never asked.

    Raises:
        StoreError: a log or ``interpretation.json`` that cannot be read (the issue is refused:
            guessing would change what its comments are).
    """
    package = workspace.case(mapped.case_id)
    if not package.exists(PACKAGE_JSON):
        return None
    asked: list[datetime] = []
    for revision in package.revisions():
        asked += _asked_in(package, RevisionLayout(revision))
    return min(asked, default=None)


def _asked_in(package: CasePackage, layout: RevisionLayout) -> list[datetime]:
    asked = []
    for event in package.read_events(layout.revision):
        if event["event"] != "accepted" or event.get("artifact") != layout.interpretation:
            continue
        doc = package.read_json(layout.interpretation)
        ambiguity = (doc.get("interpretation") or {}).get("ambiguity") or {}
        if ambiguity.get("clarification_question"):
            asked.append(datetime.fromisoformat(str(event["at"]).replace("Z", "+00:00")))
    return asked


def import_github_issues(
    workspace: Workspace,
    issues: Iterable[IssueWithComments],
    *,
    repository: str | None = None,
    labels: Collection[str] | None = None,
) -> IssueImport:
    """Map and import each issue (one refusal never stops the others)."""
    outcome = IssueImport()
    for issue, comments in issues:
        mapped = map_issue(issue, comments, repository=repository, labels=labels)
        if isinstance(mapped, SkippedIssue):
            outcome.skipped.append(mapped)
            continue
        try:
            asked = question_asked_at(workspace, mapped)
            if asked is not None:  # the reporter's later comments answer it
                answered = map_issue(
                    issue, comments, repository=repository, labels=labels, answers_after=asked
                )
                assert not isinstance(answered, SkippedIssue)  # mapped once, so maps again
                mapped = answered
            source_name = f"github:{mapped.repository}#{mapped.number}"
            result = import_report_json(workspace, mapped.report_json, source_name)
        except VbaError as error:
            outcome.refused.append(
                RefusedIssue(mapped.case_id, mapped.number, error.code, error.message)
            )
            continue
        {"imported": outcome.imported, "revised": outcome.revised, "unchanged": outcome.unchanged}[
            result.status
        ].append((mapped, result))
    return outcome
