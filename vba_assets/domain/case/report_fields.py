"""Field readers of ``report.json``: strict JSON, typed fields, ``reported_at``, attachments.

:func:`vba_assets.domain.case.report.parse_report_json` reads a report with these. Every reader raises
:class:`~vba_assets.errors.InputError` whose message starts with the offending field and whose
``detail['field']`` names it too.

* :func:`load_json_object`: strict UTF-8 (one leading byte order mark ignored), no duplicate keys,
  no ``NaN``/``Infinity``, and the document must be a JSON object.
* :func:`required_str`, :func:`optional_str`, :func:`text_field`: a field of the expected type;
  free text is control-checked and normalized (NFC, ``\\n`` newlines).
* :func:`parse_reported_at`: an ISO-8601 timestamp with a UTC offset, as :class:`ParsedTimestamp`.
* :func:`parse_attachments`: the declared attachments, as :class:`AttachmentSpec` (their files are
  read and admitted later, by :func:`vba_assets.domain.case.report.admit`).
"""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from enum import StrEnum
from typing import Any

from vba_assets.domain.canonical import reject_json_constant
from vba_assets.domain.case import text as textmod
from vba_assets.domain.case.text import reject as fail
from vba_assets.domain.case.text import shorten, validate_relative_path, validate_single_line
from vba_assets.errors import ErrorCode

#: The most attachments a report may declare, and the longest attachment name.
MAX_ATTACHMENTS = 32
MAX_ATTACHMENT_NAME_CHARS = 200
#: The keys an attachment may have. Anything else is rejected by name.
ATTACHMENT_KEYS = ("name", "kind", "text", "file", "url")
#: The longest ``url`` of an attachment (or of a ``source`` block).
MAX_URL_CHARS = 2000
URL_PATTERN = re.compile(r"https?://[^\s\x00-\x1f\x7f]+", re.ASCII)


class AttachmentKind(StrEnum):
    """The fixed list of attachment kinds."""

    QUEST_TEXT = "quest_text"
    CHAT_LOG = "chat_log"
    SERVER_LOG = "server_log"
    COMBAT_LOG = "combat_log"
    SCREENSHOT = "screenshot"
    OTHER = "other"
    #: The reporter's answer to the clarification question an interpretation asked (a tracker
    #: comment by the issue's author after that question): text, citable like any source.
    CLARIFICATION_ANSWER = "clarification_answer"


#: Kinds that are never text: always admitted as unreadable, and only as a file.
BINARY_KINDS = frozenset({AttachmentKind.SCREENSHOT})


@dataclass(frozen=True)
class ParsedTimestamp:
    """``reported_at``: the instant in UTC and the reporter's own UTC offset."""

    utc: str
    offset: str


_TIMESTAMP = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[Tt ](?P<h>\d{2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?"
    r"(?:\.(?P<frac>\d{1,9}))?(?P<tz>[Zz]|[+-]\d{2}:?\d{2})?",
    re.ASCII,  # \d is 0-9 only
)


def parse_reported_at(value: str, field: str = "reported_at") -> ParsedTimestamp:
    """Parse an ISO-8601 timestamp that carries a UTC offset (or ``Z``).

    The UTC form is ``YYYY-MM-DDTHH:MM:SSZ``, with the fractional seconds exactly as written when
    there are any. A timestamp without an offset is rejected: relative dates in the report
    ("yesterday") are resolved against it, so it must name an instant.
    """
    match = _TIMESTAMP.fullmatch(value)
    example = "e.g. 2026-09-26T21:14:03+02:00 or 2026-09-26T19:14:03Z"
    if match is None:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            field,
            f"{shorten(value)} is not an ISO-8601 timestamp ({example})",
        )
    if match["tz"] is None:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            field,
            f"{shorten(value)} has no timezone offset; relative dates in the report are "
            f"resolved against it, so give Z or an offset ({example})",
        )
    try:
        tz = match["tz"].upper()
        if tz == "Z":
            offset = timedelta(0)
        else:
            hours, minutes = int(tz[1:3]), int(tz[-2:])
            if hours > 23 or minutes > 59:
                raise ValueError("offset out of range")
            offset = (1 if tz[0] == "+" else -1) * timedelta(hours=hours, minutes=minutes)
        local = datetime.combine(
            date.fromisoformat(match["date"]),
            datetime.min.time(),
            tzinfo=timezone(offset),
        ).replace(hour=int(match["h"]), minute=int(match["m"]), second=int(match["s"] or 0))
        utc = local.astimezone(UTC)
    except (ValueError, OverflowError) as error:
        fail(
            ErrorCode.REPORT_INVALID_FIELD, field, f"{shorten(value)} is not a valid time: {error}"
        )
    fraction = f".{match['frac']}" if match["frac"] else ""
    total_minutes = int(offset.total_seconds()) // 60
    sign = "-" if total_minutes < 0 else "+"
    return ParsedTimestamp(
        utc=(
            f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T"
            f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}{fraction}Z"
        ),
        offset=f"{sign}{abs(total_minutes) // 60:02d}:{abs(total_minutes) % 60:02d}",
    )


@dataclass(frozen=True)
class AttachmentSpec:
    """One attachment as declared in ``report.json`` (before its file is read)."""

    index: int
    name: str
    kind: AttachmentKind
    inline_text: str | None
    file: str | None
    #: A reference that is never fetched (an image linked from a tracker issue): unreadable.
    url: str | None = None

    @property
    def field(self) -> str:
        return f"attachments[{self.index}]"


def load_json_object(data: bytes) -> dict[str, Any]:
    try:
        decoded = textmod.decode_utf8(data)
    except UnicodeDecodeError as error:
        fail(
            ErrorCode.REPORT_NOT_UTF8,
            "report.json",
            f"is not valid UTF-8 (byte offset {error.start})",
            byte_offset=error.start,
        )
    try:
        obj = json.loads(
            decoded,
            strict=False,  # raw control characters reach the field check, which names the field
            object_pairs_hook=_no_duplicate_keys,
            parse_constant=reject_json_constant,
        )
    except json.JSONDecodeError as error:
        fail(
            ErrorCode.REPORT_MALFORMED,
            "report.json",
            f"is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}",
            line=error.lineno,
            column=error.colno,
        )
    except RecursionError:
        fail(ErrorCode.REPORT_MALFORMED, "report.json", "is nested too deeply")
    if not isinstance(obj, dict):
        fail(
            ErrorCode.REPORT_MALFORMED,
            "report.json",
            f"must be a JSON object, got {json_type(obj)}",
        )
    return obj


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise json.JSONDecodeError(f"duplicate key {key!r}", "", 0)
        result[key] = value
    return result


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def required_str(obj: Mapping[str, Any], key: str, field: str | None = None) -> str:
    field = field or key
    if key not in obj:
        fail(ErrorCode.REPORT_MISSING_FIELD, field, "is required")
    value = obj[key]
    if not isinstance(value, str):
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            field,
            f"must be a string, got {json_type(value)}",
        )
    return value


def optional_str(obj: Mapping[str, Any], key: str, field: str | None = None) -> str | None:
    """A string, or None when the key is absent or null."""
    if obj.get(key) is None:
        return None
    return required_str(obj, key, field)


def text_field(obj: Mapping[str, Any], key: str, max_chars: int) -> str:
    """A free-text field (title, body): control-checked, normalized, length-limited."""
    value = optional_str(obj, key)
    if value is None:
        return ""
    return textmod.check_text(value, key, max_chars)


def parse_attachments(value: object) -> tuple[AttachmentSpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            "attachments",
            f"must be an array, got {json_type(value)}",
        )
    if len(value) > MAX_ATTACHMENTS:
        fail(
            ErrorCode.REPORT_TOO_LARGE,
            "attachments",
            f"has {len(value)} entries; the limit is {MAX_ATTACHMENTS}",
            count=len(value),
            limit=MAX_ATTACHMENTS,
        )
    specs: list[AttachmentSpec] = []
    names: dict[str, int] = {}
    for index, item in enumerate(value):
        spec = _parse_attachment(index, item)
        folded = spec.name.casefold()
        if folded in names:
            fail(
                ErrorCode.REPORT_INVALID_FIELD,
                f"{spec.field}.name",
                f"{spec.name!r} duplicates the name of attachments[{names[folded]}] "
                "(names compare ignoring case)",
            )
        names[folded] = index
        specs.append(spec)
    return tuple(specs)


def _parse_attachment(index: int, item: object) -> AttachmentSpec:
    field = f"attachments[{index}]"
    if not isinstance(item, dict):
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            field,
            f"must be an object with name, kind and text or file; got {json_type(item)}",
        )
    unknown = [key[:80] for key in sorted(set(item) - set(ATTACHMENT_KEYS))[:10]]
    if unknown:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            f"{field}.{unknown[0]}",
            f"unknown key(s) {', '.join(map(repr, unknown))}; an attachment has only "
            f"{', '.join(ATTACHMENT_KEYS)}",
            unknown_keys=unknown,
        )
    name = validate_single_line(
        required_str(item, "name", f"{field}.name"), f"{field}.name", MAX_ATTACHMENT_NAME_CHARS
    )
    kind_value = required_str(item, "kind", f"{field}.kind")
    try:
        kind = AttachmentKind(kind_value)
    except ValueError:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            f"{field}.kind",
            f"unknown kind {shorten(kind_value)}; use one of "
            f"{', '.join(kind.value for kind in AttachmentKind)}",
        )
    inline = optional_str(item, "text", f"{field}.text")
    file = optional_str(item, "file", f"{field}.file")
    url = optional_str(item, "url", f"{field}.url")
    if url is not None:
        if inline is not None or file is not None:
            fail(ErrorCode.REPORT_INVALID_FIELD, field, "give one of text, file or url")
        url = parse_url(url, f"{field}.url")
        return AttachmentSpec(
            index=index, name=name, kind=kind, inline_text=None, file=None, url=url
        )
    if inline is not None and file is not None:
        fail(ErrorCode.REPORT_INVALID_FIELD, field, "give either text or file, not both")
    if inline is None and file is None:
        fail(ErrorCode.REPORT_MISSING_FIELD, f"{field}.text", "an attachment needs text or file")
    if inline is not None and kind in BINARY_KINDS:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            f"{field}.text",
            f"a {kind.value} attachment must be a file, not inline text",
        )
    if file is not None:
        file = validate_relative_path(file, f"{field}.file")
    return AttachmentSpec(index=index, name=name, kind=kind, inline_text=inline, file=file)


def parse_url(value: str, field: str) -> str:
    """An absolute ``http(s)`` URL on one line, at most :data:`MAX_URL_CHARS` characters."""
    if len(value) > MAX_URL_CHARS:
        fail(
            ErrorCode.REPORT_TOO_LARGE,
            field,
            f"has {len(value)} characters; the limit is {MAX_URL_CHARS}",
        )
    if not URL_PATTERN.fullmatch(value):
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            field,
            f"{shorten(value)} is not an absolute http(s) URL of printable ASCII without spaces",
        )
    return value
