"""Report admission (ARCHITECTURE 5): pure checks on the bytes of a submitted report.

A report is a ``report.json`` (see :data:`REPORT_KEYS`) plus the attachment files it references.
:func:`parse_report_json` checks the JSON document; :func:`admit` adds the attachment files and
decides what is readable. Both raise :class:`~vba_assets.errors.InputError` whose message starts
with the offending field (``title``, ``attachments[1].file``...) and whose ``detail['field']``
names it too. Nothing here touches the disk: reading files is ``vba_assets.intake``'s job.

Decisions (documented in ``vba_assets/samples/README.md`` too):

* Encoding: strict UTF-8. One leading byte order mark in ``report.json`` or in a text attachment
  is accepted and ignored (an encoding signature, not text); U+FEFF elsewhere is kept and listed
  as a format control.
* Characters are counted in Unicode code points of the normalized text (NFC, ``\\n`` newlines).
* Binary attachments (kind ``screenshot``, bytes that are not UTF-8, or bytes containing NUL) and
  text attachments longer than :data:`MAX_ATTACHMENT_TEXT_CHARS` are admitted but unreadable.
"""

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from enum import StrEnum
from typing import Any, NoReturn

from vba_assets.domain import text as textmod
from vba_assets.domain.ids import validate_case_id
from vba_assets.domain.text import reject as fail
from vba_assets.domain.text import shorten, validate_relative_path, validate_single_line
from vba_assets.errors import ErrorCode, InputError

MiB = 1024 * 1024
#: Largest accepted ``report.json`` in bytes.
MAX_REPORT_JSON_BYTES = 1 * MiB
#: Largest accepted report: ``report.json`` plus every attachment file, in bytes.
MAX_TOTAL_BYTES = 8 * MiB
MAX_TITLE_CHARS = 300
MAX_BODY_CHARS = 200_000
MAX_REPORTER_CHARS = 200
MAX_ATTACHMENTS = 32
MAX_ATTACHMENT_NAME_CHARS = 200
#: A text attachment longer than this is admitted but unreadable (``too_long``).
MAX_ATTACHMENT_TEXT_CHARS = 100_000

#: The keys a report may have. Anything else is rejected by name.
REPORT_KEYS = ("case_id", "title", "body", "reported_at", "reporter", "attachments")
ATTACHMENT_KEYS = ("name", "kind", "text", "file")
#: The label of ``report.json`` in the report digest, whatever the submitted file was called.
REPORT_DIGEST_LABEL = "report.json"


class AttachmentKind(StrEnum):
    """The fixed list of attachment kinds."""

    QUEST_TEXT = "quest_text"
    CHAT_LOG = "chat_log"
    SERVER_LOG = "server_log"
    COMBAT_LOG = "combat_log"
    SCREENSHOT = "screenshot"
    OTHER = "other"


#: Kinds that are never text: always admitted as unreadable, and only as a file.
BINARY_KINDS = frozenset({AttachmentKind.SCREENSHOT})


class UnreadableReason(StrEnum):
    """Why an admitted attachment is not given to the model."""

    BINARY_KIND = "binary_kind"
    NOT_UTF8 = "not_utf8"
    NUL_BYTES = "nul_bytes"
    TOO_LONG = "too_long"


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

    @property
    def field(self) -> str:
        return f"attachments[{self.index}]"


@dataclass(frozen=True)
class ReportDocument:
    """A checked ``report.json``: text fields already normalized (NFC, ``\\n``)."""

    raw: bytes
    case_id: str
    title: str
    body: str
    reported_at: ParsedTimestamp
    reporter: str | None
    attachments: tuple[AttachmentSpec, ...]

    @property
    def referenced_files(self) -> tuple[str, ...]:
        """The attachment file paths, relative to the report's folder, in report order."""
        return tuple(spec.file for spec in self.attachments if spec.file is not None)


@dataclass(frozen=True)
class AdmittedAttachment:
    """An attachment after admission: its text (normalized) or why it is unreadable."""

    name: str
    kind: AttachmentKind
    file: str | None
    text: str | None
    chars: int | None
    sha256: str
    unreadable_reason: UnreadableReason | None

    @property
    def readable(self) -> bool:
        return self.unreadable_reason is None


@dataclass(frozen=True)
class AdmittedReport:
    """Everything the CaseBuilder and the importer need; the raw files are kept byte for byte."""

    document: ReportDocument
    attachments: tuple[AdmittedAttachment, ...]
    files: tuple[tuple[str, bytes], ...]
    report_sha256: str


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse_report_json(data: bytes) -> ReportDocument:
    """Check a ``report.json`` and return its normalized content.

    Raises:
        InputError: naming the field, with the matching REPORT_* code or INVALID_CASE_ID.
    """
    if len(data) > MAX_REPORT_JSON_BYTES:
        fail(
            ErrorCode.REPORT_TOO_LARGE,
            "report.json",
            f"is {len(data)} bytes; the limit is {MAX_REPORT_JSON_BYTES} bytes",
            size=len(data),
            limit=MAX_REPORT_JSON_BYTES,
        )
    obj = _load_json_object(data)
    unknown = sorted(set(obj) - set(REPORT_KEYS))
    if unknown:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            ", ".join(key[:80] for key in unknown[:10]),
            f"unknown key(s) {', '.join(shorten(key) for key in unknown[:10])}; a report has "
            f"only {', '.join(REPORT_KEYS)}",
            unknown_keys=[key[:80] for key in unknown[:10]],
        )
    case_id = _required_str(obj, "case_id")
    try:
        validate_case_id(case_id)
    except InputError:
        fail(
            ErrorCode.INVALID_CASE_ID,
            "case_id",
            f"invalid case id {shorten(case_id)}: use 1-64 characters of A-Z a-z 0-9 . _ -, "
            "starting with a letter or digit (e.g. BUG-000020)",
            case_id=case_id[:80],
        )
    reported_at = parse_reported_at(_required_str(obj, "reported_at"), "reported_at")
    title = _text_field(obj, "title", MAX_TITLE_CHARS)
    body = _text_field(obj, "body", MAX_BODY_CHARS)
    if not title.strip() and not body.strip():
        fail(
            ErrorCode.REPORT_EMPTY,
            "title/body",
            "both are missing or blank; a report needs a title, a body or both",
        )
    reporter = _optional_str(obj, "reporter")
    if reporter is not None:
        reporter = validate_single_line(reporter, "reporter", MAX_REPORTER_CHARS)
    return ReportDocument(
        raw=data,
        case_id=case_id,
        title=title,
        body=body,
        reported_at=reported_at,
        reporter=reporter,
        attachments=_parse_attachments(obj.get("attachments")),
    )


def admit(
    document: ReportDocument,
    files: Mapping[str, bytes],
    report_file_name: str = REPORT_DIGEST_LABEL,
) -> AdmittedReport:
    """Admit a parsed report with the bytes of the files it references.

    Args:
        document: the result of :func:`parse_report_json`.
        files: attachment file contents keyed by the relative path written in ``report.json``;
            a referenced path that is absent from this mapping is a missing file.
        report_file_name: the name of the submitted JSON file; an attachment may not be it.
    """
    total = len(document.raw)
    seen_files: dict[str, str] = {report_file_name.casefold(): "the report itself"}
    admitted: list[AdmittedAttachment] = []
    ordered_files: list[tuple[str, bytes]] = []
    for spec in document.attachments:
        if spec.file is None:
            admitted.append(_admit_inline(spec))
            continue
        field = f"{spec.field}.file"
        folded = spec.file.casefold()
        if folded in seen_files:
            fail(
                ErrorCode.REPORT_INVALID_FIELD,
                field,
                f"{spec.file!r} is already used by {seen_files[folded]} (paths compare "
                "ignoring case)",
            )
        seen_files[folded] = field
        if spec.file not in files:
            fail(
                ErrorCode.REPORT_UNREADABLE,
                field,
                f"file {spec.file!r} is not in the report's folder",
                file=spec.file,
            )
        data = files[spec.file]
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            fail(
                ErrorCode.REPORT_TOO_LARGE,
                field,
                f"with {spec.file!r} the report exceeds {MAX_TOTAL_BYTES} bytes in total",
                limit=MAX_TOTAL_BYTES,
            )
        ordered_files.append((spec.file, data))
        admitted.append(_admit_file(spec, data))
    return AdmittedReport(
        document=document,
        attachments=tuple(admitted),
        files=tuple(ordered_files),
        report_sha256=report_digest(document.raw, ordered_files),
    )


def admit_report(
    report_json: bytes,
    files: Mapping[str, bytes],
    report_file_name: str = REPORT_DIGEST_LABEL,
) -> AdmittedReport:
    """:func:`parse_report_json` then :func:`admit`."""
    return admit(parse_report_json(report_json), files, report_file_name)


def report_digest(report_json: bytes, files: list[tuple[str, bytes]]) -> str:
    """sha256 of the RFC 8785 JSON ``[["report.json", sha], [file, sha], ...]`` (report order).

    It covers the raw bytes of everything submitted and none of the file's outside name, so the
    same report gives the same digest from any path. For an array of strings, ``json.dumps`` with
    these options is byte-identical to RFC 8785 (paths hold no control characters).
    """
    entries = [[REPORT_DIGEST_LABEL, sha256_hex(report_json)]]
    entries.extend([path, sha256_hex(data)] for path, data in files)
    encoded = json.dumps(entries, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return sha256_hex(encoded)


def _load_json_object(data: bytes) -> dict[str, Any]:
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
            parse_constant=_reject_constant,
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
            f"must be a JSON object, got {_json_type(obj)}",
        )
    return obj


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise json.JSONDecodeError(f"duplicate key {key!r}", "", 0)
        result[key] = value
    return result


def _reject_constant(name: str) -> NoReturn:
    raise json.JSONDecodeError(f"{name} is not JSON", "", 0)


def _json_type(value: object) -> str:
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


def _required_str(obj: Mapping[str, Any], key: str, field: str | None = None) -> str:
    field = field or key
    if key not in obj:
        fail(ErrorCode.REPORT_MISSING_FIELD, field, "is required")
    value = obj[key]
    if not isinstance(value, str):
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            field,
            f"must be a string, got {_json_type(value)}",
        )
    return value


def _optional_str(obj: Mapping[str, Any], key: str, field: str | None = None) -> str | None:
    """A string, or None when the key is absent or null."""
    if obj.get(key) is None:
        return None
    return _required_str(obj, key, field)


def _text_field(obj: Mapping[str, Any], key: str, max_chars: int) -> str:
    """A free-text field (title, body): control-checked, normalized, length-limited."""
    value = _optional_str(obj, key)
    if value is None:
        return ""
    return textmod.check_text(value, key, max_chars)


def _parse_attachments(value: object) -> tuple[AttachmentSpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            "attachments",
            f"must be an array, got {_json_type(value)}",
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
            f"must be an object with name, kind and text or file; got {_json_type(item)}",
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
        _required_str(item, "name", f"{field}.name"), f"{field}.name", MAX_ATTACHMENT_NAME_CHARS
    )
    kind_value = _required_str(item, "kind", f"{field}.kind")
    try:
        kind = AttachmentKind(kind_value)
    except ValueError:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            f"{field}.kind",
            f"unknown kind {shorten(kind_value)}; use one of "
            f"{', '.join(kind.value for kind in AttachmentKind)}",
        )
    inline = _optional_str(item, "text", f"{field}.text")
    file = _optional_str(item, "file", f"{field}.file")
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


def _admit_inline(spec: AttachmentSpec) -> AdmittedAttachment:
    assert spec.inline_text is not None
    raw_text = spec.inline_text
    if len(textmod.normalize_text(raw_text)) > MAX_ATTACHMENT_TEXT_CHARS:
        return _unreadable(
            spec, raw_text.encode("utf-8", "surrogatepass"), UnreadableReason.TOO_LONG
        )
    text = textmod.check_text(raw_text, f"{spec.field}.text", None)
    return _readable(spec, text)


def _admit_file(spec: AttachmentSpec, data: bytes) -> AdmittedAttachment:
    if spec.kind in BINARY_KINDS:
        return _unreadable(spec, data, UnreadableReason.BINARY_KIND)
    try:
        decoded = textmod.decode_utf8(data)
    except UnicodeDecodeError:
        return _unreadable(spec, data, UnreadableReason.NOT_UTF8)
    if "\x00" in decoded:
        return _unreadable(spec, data, UnreadableReason.NUL_BYTES)
    chars = len(textmod.normalize_text(decoded))
    if chars > MAX_ATTACHMENT_TEXT_CHARS:
        return _unreadable(spec, data, UnreadableReason.TOO_LONG, chars)
    text = textmod.check_text(decoded, f"{spec.field}.file", None)
    return _readable(spec, text)


def _readable(spec: AttachmentSpec, text: str) -> AdmittedAttachment:
    return AdmittedAttachment(
        name=spec.name,
        kind=spec.kind,
        file=spec.file,
        text=text,
        chars=len(text),
        sha256=sha256_hex(text.encode("utf-8")),
        unreadable_reason=None,
    )


def _unreadable(
    spec: AttachmentSpec, raw: bytes, reason: UnreadableReason, chars: int | None = None
) -> AdmittedAttachment:
    return AdmittedAttachment(
        name=spec.name,
        kind=spec.kind,
        file=spec.file,
        text=None,
        chars=chars,
        sha256=sha256_hex(raw),
        unreadable_reason=reason,
    )
