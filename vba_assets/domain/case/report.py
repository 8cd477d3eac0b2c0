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
* An attachment given as a ``url`` is never fetched: admitted unreadable (``not_fetched``), its
  sha256 that of the URL's UTF-8 bytes.
* The optional ``source`` block (:mod:`.report_source`) is provenance, never a case source.
* Binary attachments (kind ``screenshot``, bytes that are not UTF-8, or bytes containing NUL) and
  text attachments longer than :data:`MAX_ATTACHMENT_TEXT_CHARS` are admitted but unreadable.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from vba_assets.domain.canonical import sha256_hex
from vba_assets.domain.case import text as textmod
from vba_assets.domain.case.ids import validate_case_id
from vba_assets.domain.case.report_fields import (
    BINARY_KINDS,
    AttachmentKind,
    AttachmentSpec,
    ParsedTimestamp,
    load_json_object,
    optional_str,
    parse_attachments,
    parse_reported_at,
    required_str,
    text_field,
)
from vba_assets.domain.case.report_source import ReportSource, parse_source
from vba_assets.domain.case.text import reject as fail
from vba_assets.domain.case.text import shorten, validate_single_line
from vba_assets.errors import ErrorCode, InputError

MiB = 1024 * 1024
#: Largest accepted ``report.json`` in bytes.
MAX_REPORT_JSON_BYTES = 1 * MiB
#: Largest accepted report: ``report.json`` plus every attachment file, in bytes.
MAX_TOTAL_BYTES = 8 * MiB
MAX_TITLE_CHARS = 300
MAX_BODY_CHARS = 200_000
MAX_REPORTER_CHARS = 200
#: A text attachment longer than this is admitted but unreadable (``too_long``).
MAX_ATTACHMENT_TEXT_CHARS = 100_000

#: The keys a report may have. Anything else is rejected by name.
REPORT_KEYS = ("case_id", "title", "body", "reported_at", "reporter", "attachments", "source")
#: The label of ``report.json`` in the report digest, whatever the submitted file was called.
REPORT_DIGEST_LABEL = "report.json"


class UnreadableReason(StrEnum):
    """Why an admitted attachment is not given to the model."""

    BINARY_KIND = "binary_kind"
    NOT_UTF8 = "not_utf8"
    NUL_BYTES = "nul_bytes"
    TOO_LONG = "too_long"
    #: An attachment given as a ``url`` (an image linked from a tracker issue): never fetched.
    NOT_FETCHED = "not_fetched"


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
    #: Provenance (``source`` block): frozen into ``case.json``, never a case source.
    source: ReportSource | None = None


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
    obj = load_json_object(data)
    unknown = sorted(set(obj) - set(REPORT_KEYS))
    if unknown:
        fail(
            ErrorCode.REPORT_INVALID_FIELD,
            ", ".join(key[:80] for key in unknown[:10]),
            f"unknown key(s) {', '.join(shorten(key) for key in unknown[:10])}; a report has "
            f"only {', '.join(REPORT_KEYS)}",
            unknown_keys=[key[:80] for key in unknown[:10]],
        )
    case_id = required_str(obj, "case_id")
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
    reported_at = parse_reported_at(required_str(obj, "reported_at"), "reported_at")
    title = text_field(obj, "title", MAX_TITLE_CHARS)
    body = text_field(obj, "body", MAX_BODY_CHARS)
    if not title.strip() and not body.strip():
        fail(
            ErrorCode.REPORT_EMPTY,
            "title/body",
            "both are missing or blank; a report needs a title, a body or both",
        )
    reporter = optional_str(obj, "reporter")
    if reporter is not None:
        reporter = validate_single_line(reporter, "reporter", MAX_REPORTER_CHARS)
    return ReportDocument(
        raw=data,
        case_id=case_id,
        title=title,
        body=body,
        reported_at=reported_at,
        reporter=reporter,
        attachments=parse_attachments(obj.get("attachments")),
        source=parse_source(obj.get("source")),
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
        if spec.url is not None:
            raw_url = spec.url.encode("utf-8")
            admitted.append(_unreadable(spec, raw_url, UnreadableReason.NOT_FETCHED))
            continue
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
