"""A GitHub issue (REST JSON) becomes a report: one pure function, no IO (ARCHITECTURE 15).

:func:`map_issue` takes an issue object as GitHub's REST API returns it (``GET
/repos/{owner}/{repo}/issues``, ``.../issues/{number}``; ``gh api`` prints the same) and, optionally,
its comments (``GET .../issues/{number}/comments``) and returns either a :class:`MappedIssue` (the
``report.json`` object, checked by admission) or a :class:`SkippedIssue` with a counted reason.

The mapping:

* ``case_id``: :func:`case_id_for` (the rule is pinned in the README, "From your GitHub tracker").
* ``title``, ``body`` (a null body is empty), ``reported_at`` from ``created_at``, ``reporter``
  from ``user.login`` (null for a deleted account).
* Image URLs in the body (markdown ``![..](url)``, HTML ``<img src=url>``, a bare GitHub upload
  link) become ``screenshot`` attachments given as ``url``: listed, unreadable (``not_fetched``),
  never fetched. Then the comments (but the project's own write-back comments, whose body starts
  with :data:`WRITE_BACK_MARKER_PREFIX`), ordered by ``created_at`` then ``id``, one ``other`` text
  attachment each, named ``comment <n> by <login> at <created_at>``; given ``answers_after`` (when
  an interpretation of the case asked the reporter a clarification question), a comment by the
  issue's author created after that time is kind ``clarification_answer`` instead. A report holds at most
  :data:`MAX_ATTACHMENTS` attachments and its ``report.json`` at most ``MAX_REPORT_JSON_BYTES``:
  images past :data:`MAX_IMAGES`, comments past the remaining room and the latest comments that
  would make the report too large are counted (``images_omitted``, ``comments_omitted``), never
  silently lost.
* ``source``: the provenance block (:mod:`vba_assets.domain.case.report_source`).

Skipped, with a reason: an item with ``pull_request`` (the issues endpoints list pull requests
too), an issue without any label of the filter (when one is given), and anything that is not an
issue object or whose report admission refuses (``invalid``, with the admission's message).
"""

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from vba_assets.domain.canonical import canonical_bytes, content_hash, sha256_hex
from vba_assets.domain.case.report import MAX_REPORT_JSON_BYTES, parse_report_json
from vba_assets.domain.case.report_fields import MAX_ATTACHMENTS, MAX_URL_CHARS
from vba_assets.domain.case.report_source import REPOSITORY_PATTERN
from vba_assets.errors import VbaError

#: Case ids of GitHub issues start with this.
CASE_ID_PREFIX = "gh-"
#: Hex digits of ``sha256(lowercased "owner/name")`` in a case id.
REPOSITORY_DIGEST_CHARS = 12
#: The hidden first line of a comment this project posted (write-back): not the reporter's words,
#: so never an attachment (else each post would edit the case it summarises).
WRITE_BACK_MARKER_PREFIX = "<!-- vba:"
#: The most body images kept as attachments (the rest are counted).
MAX_IMAGES = 8
_MAX_CASE_ID = 64

# Linear scans: an image's alt text holds no bracket and a tag no angle bracket, so a match attempt
# stops at the next one and no character is scanned by more than a few attempts.
_MARKDOWN_IMAGE = re.compile(r"!\[[^\[\]\n]{0,1000}\]\(\s{0,10}<?(https?://[^\s)>]{1,2000})")
_HTML_IMAGE = re.compile(
    r"<img\b[^<>]{0,2000}?\bsrc\s{0,10}=\s{0,10}[\"']?(https?://[^\"'\s>]{1,2000})", re.IGNORECASE
)
_BARE_UPLOAD = re.compile(
    r"https://(?:github\.com/user-attachments/assets/|user-images\.githubusercontent\.com/"
    r"|private-user-images\.githubusercontent\.com/)[^\s)\]<>\"']{1,1900}"
)
_REPOS_PATH = re.compile(r"/repos/([^/]+/[^/]+)/?$")


class SkipReason(StrEnum):
    """Why an item of a GitHub issue list is not imported."""

    PULL_REQUEST = "pull_request"
    LABEL_FILTER = "label_filter"
    INVALID = "invalid"


@dataclass(frozen=True)
class MappedIssue:
    """A GitHub issue as a report (``content_sha256``: :func:`report_content_sha256`)."""

    case_id: str
    repository: str
    number: int
    report: dict[str, Any]
    report_json: bytes
    content_sha256: str
    images_omitted: int = 0
    comments_omitted: int = 0


@dataclass(frozen=True)
class SkippedIssue:
    """An item not imported: why, and which issue number it had (when it had one)."""

    reason: SkipReason
    number: int | None
    detail: str


def case_id_for(repository: str, number: int) -> str:
    """``gh-<slug>-<number>-<digest>``: valid for the case-id pattern, deterministic, unique.

    ``digest`` is the first :data:`REPOSITORY_DIGEST_CHARS` hex digits of the sha256 of the
    lowercased ``owner/name`` (GitHub names ignore case, so ``Org/Repo`` and ``org/repo`` are one
    repository and one case); ``slug`` is that lowercased name with every run of characters other
    than ``a-z0-9`` turned into ``-``, cut so the id stays within 64 characters. The slug is for
    people; the digest tells apart two repositories whose slugs agree (``a-b/c`` and ``a/b-c``).
    """
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"an issue number is a positive integer, not {number!r}")
    key = repository.lower()
    digest = sha256_hex(key.encode("utf-8"))[:REPOSITORY_DIGEST_CHARS]
    tail = f"-{number}-{digest}"
    room = _MAX_CASE_ID - len(CASE_ID_PREFIX) - len(tail)
    slug = re.sub(r"[^a-z0-9]+", "-", key).strip("-")[:room].strip("-") or "repo"
    return f"{CASE_ID_PREFIX}{slug}{tail}"


def is_case_of(case_id: str, repository: str) -> bool:
    """Whether ``case_id`` is :func:`case_id_for` of an issue of ``repository`` (by its digest)."""
    digest = sha256_hex(repository.lower().encode("utf-8"))[:REPOSITORY_DIGEST_CHARS]
    return (
        case_id.startswith(CASE_ID_PREFIX)
        and re.fullmatch(rf"{CASE_ID_PREFIX}[a-z0-9-]*-[1-9][0-9]*-{digest}", case_id) is not None
    )


def report_content_sha256(report: Mapping[str, Any]) -> str:
    """The hash of what people wrote in a report: title, body and attachments (the comments with
    their author and time, the image references), not the ``source`` block (labels,
    ``updated_at``). It tells an edited issue from one that was only relabelled, and it can be
    recomputed from any stored ``report.json``."""
    return content_hash(
        {
            "title": report.get("title") or "",
            "body": report.get("body") or "",
            "attachments": list(report.get("attachments") or []),
        }
    )


def image_urls(body: str) -> list[str]:
    """The image URLs of a body, in order of first appearance, each once (never fetched)."""
    found: list[tuple[int, str]] = []
    for pattern in (_MARKDOWN_IMAGE, _HTML_IMAGE, _BARE_UPLOAD):
        found += [
            (match.start(), match.group(match.lastindex or 0)) for match in pattern.finditer(body)
        ]
    urls: list[str] = []
    for _, url in sorted(found):
        if url not in urls and len(url) <= MAX_URL_CHARS:
            urls.append(url)
    return urls


def issue_repository(issue: Mapping[str, Any]) -> str | None:
    """``owner/name`` from the issue's ``repository_url`` (``.../repos/owner/name``)."""
    url = issue.get("repository_url")
    if not isinstance(url, str):
        return None
    match = _REPOS_PATH.search(url)
    return match.group(1) if match and REPOSITORY_PATTERN.fullmatch(match.group(1)) else None


def label_names(issue: Mapping[str, Any]) -> list[str]:
    """The issue's label names (GitHub gives label objects, or plain strings)."""
    names: list[str] = []
    for label in issue.get("labels") or []:
        name = label.get("name") if isinstance(label, Mapping) else label
        if isinstance(name, str):
            names.append(name)
    return names


def map_issue(
    issue: Mapping[str, Any],
    comments: Sequence[Mapping[str, Any]] = (),
    *,
    repository: str | None = None,
    labels: Collection[str] | None = None,
    answers_after: datetime | None = None,
) -> MappedIssue | SkippedIssue:
    """Map one GitHub issue (and its comments) to a report, or say why it is skipped.

    Args:
        issue: a REST issue object.
        comments: its REST comment objects (any order).
        repository: ``owner/name`` when known (a tracker's config); otherwise read from the
            issue's ``repository_url``. An issue of another repository is ``invalid``.
        labels: import only issues with at least one of these labels (names compare ignoring
            case, as GitHub's do); None imports every issue.
        answers_after: when the case's interpretation first asked a clarification question (a
            timezone-aware time); the author's comments created after it are its answers.
    """
    number = issue.get("number") if isinstance(issue, Mapping) else None
    number = number if isinstance(number, int) and not isinstance(number, bool) else None
    if not isinstance(issue, Mapping) or number is None or number < 1:
        return SkippedIssue(SkipReason.INVALID, None, "not a GitHub issue object (no number)")
    if issue.get("pull_request") is not None:
        return SkippedIssue(SkipReason.PULL_REQUEST, number, "a pull request, not an issue")
    own = issue_repository(issue)
    if repository is not None and own is not None and own.lower() != repository.lower():
        return SkippedIssue(SkipReason.INVALID, number, f"belongs to {own}, not {repository}")
    repository = repository or own
    if repository is None or not REPOSITORY_PATTERN.fullmatch(repository):
        return SkippedIssue(SkipReason.INVALID, number, "no repository (repository_url)")
    names = label_names(issue)
    if labels is not None:
        wanted = {label.casefold() for label in labels}
        if not wanted & {name.casefold() for name in names}:
            return SkippedIssue(
                SkipReason.LABEL_FILTER,
                number,
                f"labels {names or 'none'} hold none of {sorted(labels)}",
            )
    try:
        return _mapped(issue, comments, repository, number, names, answers_after)
    except (VbaError, ValueError, TypeError, KeyError) as error:
        return SkippedIssue(SkipReason.INVALID, number, str(error))


def _mapped(
    issue: Mapping[str, Any],
    comments: Sequence[Mapping[str, Any]],
    repository: str,
    number: int,
    names: list[str],
    answers_after: datetime | None = None,
) -> MappedIssue:
    body = issue.get("body") or ""
    if not isinstance(body, str):
        raise TypeError("body is not a string")
    images = image_urls(body)
    kept_images = images[:MAX_IMAGES]
    attachments: list[dict[str, Any]] = [
        {"name": f"image {index} in the body", "kind": "screenshot", "url": url}
        for index, url in enumerate(kept_images, start=1)
    ]
    ordered = sorted((c for c in comments if not is_write_back(c)), key=_comment_order)
    room = MAX_ATTACHMENTS - len(attachments)
    for index, comment in enumerate(ordered[:room], start=1):
        attachments.append(
            {
                "name": f"comment {index} by {_login(comment) or 'unknown'} at "
                f"{comment['created_at']}",
                "kind": _comment_kind(comment, _login(issue), answers_after),
                "text": comment.get("body") or "",
            }
        )
    report: dict[str, Any] = {
        "case_id": case_id_for(repository, number),
        "title": issue.get("title") or "",
        "body": body,
        "reported_at": issue["created_at"],
        "reporter": _login(issue),
        "attachments": attachments,
        "source": {
            "tracker": "github",
            "repository": repository,
            "number": number,
            "url": issue["html_url"],
            "author": _login(issue),
            "created_at": issue["created_at"],
            "updated_at": issue.get("updated_at") or issue["created_at"],
            "labels": names,
            "ids": {"issue_id": issue.get("id"), "node_id": issue.get("node_id")},
        },
    }
    kept_comments = len(attachments) - len(kept_images)
    data = canonical_bytes(report)
    while len(data) > MAX_REPORT_JSON_BYTES and kept_comments:  # the latest comments go first
        attachments.pop()
        kept_comments -= 1
        data = canonical_bytes(report)
    if not attachments:
        del report["attachments"]
        data = canonical_bytes(report)
    parse_report_json(data)  # admission's own checks: a report that cannot be imported is invalid
    return MappedIssue(
        case_id=report["case_id"],
        repository=repository,
        number=number,
        report=report,
        report_json=data,
        content_sha256=report_content_sha256(report),
        images_omitted=len(images) - len(kept_images),
        comments_omitted=len(ordered) - kept_comments,
    )


def _comment_kind(
    comment: Mapping[str, Any], author: str | None, answers_after: datetime | None
) -> str:
    """``clarification_answer`` for the issue author's comment after the question, else ``other``."""
    if answers_after is None or author is None or _login(comment) != author:
        return "other"
    created = datetime.fromisoformat(str(comment["created_at"]).replace("Z", "+00:00"))
    return "clarification_answer" if created > answers_after else "other"


def is_write_back(comment: Mapping[str, Any]) -> bool:
    """A comment this project posted (its body starts with the write-back marker)."""
    body = comment.get("body")
    return isinstance(body, str) and body.lstrip().startswith(WRITE_BACK_MARKER_PREFIX)


def _comment_order(comment: Mapping[str, Any]) -> tuple[str, int]:
    created = comment.get("created_at")
    ident = comment.get("id")
    return (
        created if isinstance(created, str) else "",
        ident if isinstance(ident, int) and not isinstance(ident, bool) else 0,
    )


def _login(item: Mapping[str, Any]) -> str | None:
    user = item.get("user")
    login = user.get("login") if isinstance(user, Mapping) else None
    return login if isinstance(login, str) else None
