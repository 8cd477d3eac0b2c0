"""The optional ``source`` block of ``report.json``: where a report came from (ARCHITECTURE 15).

Provenance, never evidence: the block is checked as strictly as the rest of the report and frozen
into ``case.json`` as ``source``, but it is not a case source (no ``S`` alias), so no prompt holds
it and the model can never cite it. A report without the block gives the same ``case.json`` bytes
as before the block existed (``Case.to_json`` leaves the key out).

```json
"source": {
  "tracker": "github",
  "repository": "owner/name",
  "number": 12,
  "url": "https://github.com/owner/name/issues/12",
  "author": "login",                       (or null: a deleted account)
  "created_at": "2024-01-15T10:00:00Z",
  "updated_at": "2024-01-16T08:30:00Z",
  "labels": ["bug", "quest"],
  "ids": {"issue_id": 1, "node_id": "I_kwDOA..."}
}
```

Times are normalized like ``reported_at`` (UTC, ``Z``); ``labels`` keep the tracker's order.
"""

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.case.report_fields import (
    json_type,
    parse_reported_at,
    parse_url,
    required_str,
)
from vba_assets.domain.case.text import reject as fail
from vba_assets.domain.case.text import shorten, validate_single_line
from vba_assets.errors import ErrorCode

SOURCE_KEYS = (
    "tracker",
    "repository",
    "number",
    "url",
    "author",
    "created_at",
    "updated_at",
    "labels",
    "ids",
)
IDS_KEYS = ("issue_id", "node_id")
MAX_AUTHOR_CHARS = 200
MAX_LABELS = 100
MAX_LABEL_CHARS = 100
MAX_NODE_ID_CHARS = 200
#: ``owner/name`` as GitHub allows it (owner up to 39 characters, name up to 100).
REPOSITORY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}", re.ASCII)
#: The largest issue number or id accepted (a signed 64-bit integer, as GitHub's ids are).
MAX_TRACKER_INT = 2**63 - 1


class TrackerKind(StrEnum):
    """The trackers a report may come from."""

    GITHUB = "github"


class TrackerIds(StrictModel):
    """The tracker's own identifiers of the item (stable across renames and transfers)."""

    issue_id: int | None
    node_id: str | None


class ReportSource(StrictModel):
    """The checked ``source`` block, as frozen into ``case.json``."""

    tracker: TrackerKind
    repository: str = Field(description="'owner/name' as the tracker spells it.")
    number: int
    url: str
    author: str | None
    created_at: str = Field(description="UTC, 'YYYY-MM-DDTHH:MM:SS[.fff]Z'.")
    updated_at: str = Field(description="UTC, 'YYYY-MM-DDTHH:MM:SS[.fff]Z'.")
    labels: list[str]
    ids: TrackerIds


def parse_source(value: object) -> ReportSource | None:
    """Check a ``source`` block (None when absent or null).

    Raises:
        InputError: naming the field (``source.url``...), REPORT_MISSING_FIELD for an absent
            required key, REPORT_INVALID_FIELD for anything else.
    """
    if value is None:
        return None
    obj = _object(value, "source", SOURCE_KEYS)
    tracker_value = required_str(obj, "tracker", "source.tracker")
    try:
        tracker = TrackerKind(tracker_value)
    except ValueError:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            "source.tracker",
            f"unknown tracker {shorten(tracker_value)}; use one of "
            f"{', '.join(kind.value for kind in TrackerKind)}",
        )
    repository = required_str(obj, "repository", "source.repository")
    if not REPOSITORY_PATTERN.fullmatch(repository):
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            "source.repository",
            f"{shorten(repository)} is not 'owner/name' (letters, digits, '-' in the owner; "
            "letters, digits, '.', '_', '-' in the name)",
        )
    if "number" not in obj:
        fail(ErrorCode.REPORT_MISSING_FIELD, "source.number", "is required")
    number = _positive_int(obj["number"], "source.number")
    return ReportSource(
        tracker=tracker,
        repository=repository,
        number=number,
        url=parse_url(required_str(obj, "url", "source.url"), "source.url"),
        author=_optional_line(obj, "author", "source.author", MAX_AUTHOR_CHARS),
        created_at=_time(obj, "created_at"),
        updated_at=_time(obj, "updated_at"),
        labels=_labels(obj.get("labels")),
        ids=_ids(obj.get("ids")),
    )


def _object(value: object, field: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        fail(ErrorCode.REPORT_INVALID_FIELD, field, f"must be an object, got {json_type(value)}")
    unknown = [key[:80] for key in sorted(set(value) - set(keys))[:10]]
    if unknown:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            f"{field}.{unknown[0]}",
            f"unknown key(s) {', '.join(map(repr, unknown))}; {field} has only {', '.join(keys)}",
            unknown_keys=unknown,
        )
    return value


def _positive_int(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        fail(ErrorCode.REPORT_INVALID_FIELD, field, f"must be an integer, got {json_type(value)}")
    if not 1 <= value <= MAX_TRACKER_INT:
        fail(ErrorCode.REPORT_INVALID_FIELD, field, f"must be between 1 and {MAX_TRACKER_INT}")
    return value


def _optional_line(obj: Mapping[str, Any], key: str, field: str, limit: int) -> str | None:
    if obj.get(key) is None:
        return None
    return validate_single_line(required_str(obj, key, field), field, limit)


def _time(obj: Mapping[str, Any], key: str) -> str:
    field = f"source.{key}"
    return parse_reported_at(required_str(obj, key, field), field).utc


def _labels(value: object) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            "source.labels",
            f"must be an array of strings, got {json_type(value)}",
        )
    if len(value) > MAX_LABELS:
        fail(
            ErrorCode.REPORT_TOO_LARGE,
            "source.labels",
            f"has {len(value)} entries; the limit is {MAX_LABELS}",
        )
    labels: list[str] = []
    for index, label in enumerate(value):
        field = f"source.labels[{index}]"
        if not isinstance(label, str):
            fail(ErrorCode.REPORT_INVALID_FIELD, field, f"must be a string, got {json_type(label)}")
        labels.append(validate_single_line(label, field, MAX_LABEL_CHARS))
    return labels


def _ids(value: object) -> TrackerIds:
    if value is None:
        return TrackerIds(issue_id=None, node_id=None)
    obj = _object(value, "source.ids", IDS_KEYS)
    issue_id = obj.get("issue_id")
    node_id = _optional_line(obj, "node_id", "source.ids.node_id", MAX_NODE_ID_CHARS)
    return TrackerIds(
        issue_id=None if issue_id is None else _positive_int(issue_id, "source.ids.issue_id"),
        node_id=node_id,
    )
