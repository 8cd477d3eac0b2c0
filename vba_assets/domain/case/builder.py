"""The deterministic CaseBuilder (ARCHITECTURE 5): an admitted report becomes ``case.json``.

The case holds only what the report says: no import time, package id, path or anything else that
depends on the machine, so the same report gives byte-identical ``case.json`` everywhere (the bytes
are the RFC 8785 canonical JSON of :meth:`Case.to_json`, written by ``vba_assets.intake``).

Sources get stable aliases ``S1..Sn`` in a fixed order: ``S1`` is always the title and ``S2`` always
the body (an absent one is an empty readable source), then one source per attachment in report
order. The report's ``source`` block (provenance) is kept as ``source``, outside the sources.
Offsets in ``format_controls`` are code point indices into the source's ``text``.
"""

from typing import Any, Literal

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.canonical import sha256_hex
from vba_assets.domain.case.report import AdmittedAttachment, AdmittedReport
from vba_assets.domain.case.report_source import ReportSource
from vba_assets.domain.case.text import find_format_controls

CASE_SCHEMA_VERSION: Literal[1] = 1
TITLE_ALIAS = "S1"
BODY_ALIAS = "S2"


class FormatControl(StrictModel):
    """An invisible zero-width or bidi control character kept in a source's text."""

    offset: int = Field(description="Code point index into the source's normalized text.")
    codepoint: str = Field(description="'U+XXXX'.")


class CaseSource(StrictModel):
    """One canonical source the model may cite by its alias."""

    alias: str = Field(description="'S1', 'S2', ...: stable for the life of the case.")
    kind: str = Field(description="'title', 'body' or the attachment kind.")
    name: str = Field(description="'title', 'body' or the attachment's name.")
    text: str | None = Field(description="NFC text with '\\n' newlines; null when unreadable.")
    sha256: str = Field(description="Of the text as UTF-8; of the raw bytes when unreadable.")
    chars: int | None = Field(description="Code points of the text; null when not decodable.")
    readable: bool
    unreadable_reason: str | None
    format_controls: list[FormatControl]


class Case(StrictModel):
    """The content of ``case.json``."""

    schema_version: Literal[1] = CASE_SCHEMA_VERSION
    case_id: str
    title: str
    reported_at: str = Field(description="UTC, 'YYYY-MM-DDTHH:MM:SS[.fff]Z'.")
    reported_at_offset: str = Field(
        description="The reporter's UTC offset ('+02:00'), for their local calendar day."
    )
    reporter: str | None
    sources: list[CaseSource]
    report_sha256: str = Field(description="Digest of the raw submitted files (report.py).")
    provenance: ReportSource | None = Field(
        default=None,
        alias="source",  # the key in case.json; ``source(alias)`` is the method below
        description="The report's source block (provenance); never a source the model cites.",
    )

    def to_json(self) -> dict[str, Any]:
        """The JSON object written (canonicalized) as ``case.json``.

        ``source`` is left out when the report has none, so such a case keeps the bytes it had
        before the block existed.
        """
        data = self.model_dump(mode="json", by_alias=True)
        if data["source"] is None:
            del data["source"]
        return data

    def source(self, alias: str) -> CaseSource | None:
        """The source with this alias, or None."""
        return next((source for source in self.sources if source.alias == alias), None)

    @property
    def unreadable_sources(self) -> list[CaseSource]:
        return [source for source in self.sources if not source.readable]


def build_case(report: AdmittedReport) -> Case:
    """Build the case of an admitted report. Pure and deterministic."""
    document = report.document
    sources = [
        _text_source(TITLE_ALIAS, "title", document.title),
        _text_source(BODY_ALIAS, "body", document.body),
    ]
    sources.extend(
        _attachment_source(f"S{number}", attachment)
        for number, attachment in enumerate(report.attachments, start=len(sources) + 1)
    )
    return Case(
        case_id=document.case_id,
        title=document.title,
        reported_at=document.reported_at.utc,
        reported_at_offset=document.reported_at.offset,
        reporter=document.reporter,
        sources=sources,
        report_sha256=report.report_sha256,
        source=document.source,
    )


def _format_controls(text: str) -> list[FormatControl]:
    return [
        FormatControl(offset=hit.offset, codepoint=hit.label) for hit in find_format_controls(text)
    ]


def _text_source(alias: str, kind: str, text: str) -> CaseSource:
    return CaseSource(
        alias=alias,
        kind=kind,
        name=kind,
        text=text,
        sha256=sha256_hex(text.encode("utf-8")),
        chars=len(text),
        readable=True,
        unreadable_reason=None,
        format_controls=_format_controls(text),
    )


def _attachment_source(alias: str, attachment: AdmittedAttachment) -> CaseSource:
    return CaseSource(
        alias=alias,
        kind=attachment.kind.value,
        name=attachment.name,
        text=attachment.text,
        sha256=attachment.sha256,
        chars=attachment.chars,
        readable=attachment.readable,
        unreadable_reason=(
            attachment.unreadable_reason.value if attachment.unreadable_reason else None
        ),
        format_controls=_format_controls(attachment.text) if attachment.text is not None else [],
    )
