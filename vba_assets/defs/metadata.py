"""What an asset, a check or a blocked step shows in the Dagster UI, as metadata a person can read.

* Findings are listed once each, as a ``MetadataValue.table`` (a typed schema the UI renders and
  the GraphQL API returns as rows): the code, its severity, what it concerns in the case's own
  terms (``Q2``, ``N1``, ``S3[10:27]``: the search, alias or mention), the file, the message. The
  candidate index and a model stage's context manifest are tables the same way.
* The assessment's rationale is shown in full in its own entry (the preview table shortens it).
* A model stage's context manifest is its own entry, not the tail of the preview.
* A block carries its code, its ``retry_at`` and what to do about it.

Report text is escaped so it can never turn into markdown (links, images, HTML).
"""

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg

from vba_assets.domain.findings import Finding, unique
from vba_assets.domain.prompting.manifest import ContextManifest
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.previews import CANDIDATE_COLUMNS, manifest_rows

#: Characters that would turn report text into markdown (links, images, emphasis, HTML, code).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def inert(text: object) -> str:
    """Text as inert markdown on one line (every markdown character escaped)."""
    value = "" if text is None else str(text)
    return _MARKDOWN.sub(r"\\\1", value.replace("\r", " ").replace("\n", " "))


#: The columns of a findings table.
FINDINGS_SCHEMA = dg.TableSchema(
    columns=[
        dg.TableColumn("code", "string", description="The finding's error code."),
        dg.TableColumn("severity", "string", description="error, or info (does not fail)."),
        dg.TableColumn("concerns", "string", description="Search, alias or mention (Q2, N1, S3)."),
        dg.TableColumn("file", "string", description="Artifact and JSON pointer."),
        dg.TableColumn("message", "string"),
    ]
)


def findings_table(findings: Sequence[Finding]) -> dg.TableMetadataValue:
    """Each finding once: code, severity, what it concerns, the file (and pointer), the message."""
    records = [
        dg.TableRecord(
            {
                "code": finding.code.value,
                "severity": "error" if finding.is_error else "info",
                "concerns": finding.subject or "-",
                "file": " ".join(part for part in (finding.artifact, finding.path) if part) or "-",
                "message": finding.message,
            }
        )
        for finding in unique(findings)
    ]
    return dg.MetadataValue.table(records, FINDINGS_SCHEMA)


CANDIDATES_SCHEMA = dg.TableSchema(
    columns=[
        dg.TableColumn(name, "int" if name == "identity" else "string")
        for name in CANDIDATE_COLUMNS
    ]
)


def candidates_table(rows: Sequence[Mapping[str, object]]) -> dg.TableMetadataValue:
    """The candidate index, one row per candidate (``identity`` empty for a search without one)."""
    records = [
        dg.TableRecord(
            {k: v if isinstance(v, str | int) and v != "" else None for k, v in row.items()}
        )
        for row in rows
    ]
    return dg.MetadataValue.table(records, CANDIDATES_SCHEMA)


_MANIFEST_COLUMNS = ("item", "lifecycle", "source", "insertions", "each", "chars", "est_tokens")
MANIFEST_SCHEMA = dg.TableSchema(
    columns=[
        dg.TableColumn(name, "string" if index < 3 else "int")
        for index, name in enumerate(_MANIFEST_COLUMNS)
    ]
)


def manifest_table(manifest: ContextManifest) -> dg.TableMetadataValue:
    """The context manifest of an accepted request: chars and estimated tokens per item."""
    records = []
    for row in manifest_rows(manifest):
        data: dict[str, str | int | float | bool | None] = {}
        for index, (name, cell) in enumerate(zip(_MANIFEST_COLUMNS, row, strict=True)):
            data[name] = cell if index < 3 else (int(cell) if cell else None)
        records.append(dg.TableRecord(data))
    return dg.MetadataValue.table(records, MANIFEST_SCHEMA)


def rationale_markdown(assessment_doc: Mapping[str, Any]) -> str | None:
    """Every search's verdict with its full rationale (None for a disabled assessment)."""
    if assessment_doc.get("status") != "accepted":
        return None
    entries = []
    for verdict in assessment_doc.get("assessment", {}).get("assessments", []):
        chosen = verdict.get("candidate_id") or ", ".join(
            verdict.get("competing_candidate_ids") or []
        )
        head = f"**{inert(verdict.get('search_id'))}** {inert(verdict.get('status'))}"
        head += f" ({inert(chosen)})" if chosen else ""
        entries.append(f"- {head}: {inert(verdict.get('rationale'))}")
    return "\n".join(entries) or "no search was assessed"


def split_manifest(preview: str, manifest: str | None) -> str:
    """The preview without the manifest table the registry's preview appends to it."""
    if manifest and preview.endswith(manifest):
        return preview[: -len(manifest)].rstrip()
    return preview


#: What an operator does about each kind of block or refusal (shown with the failure).
RESUME_HINTS: dict[ErrorCode, str] = {
    ErrorCode.RESEARCH_UNAVAILABLE: (
        "the world DB was unreachable; re-materialize the partition after retry_at "
        "(accepted work is kept)"
    ),
    ErrorCode.LLM_PROVIDER_RETRY_PENDING: (
        "the model provider asked to retry later; re-materialize the partition after retry_at"
    ),
    ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES: (
        "the correction budget is exhausted; review the rejected records, then start a new "
        "revision (`vba revision new`)"
    ),
    ErrorCode.INTERPRETATION_INVALID_RESPONSES: (
        "the correction budget is exhausted; review the rejected records, then start a new "
        "revision (`vba revision new`)"
    ),
    ErrorCode.STAGE_BUDGET_EXCEEDED: (
        "the stage spent its CPU budget on text work; raise [budget] stage_cpu_s in the project "
        "config, then re-materialize the partition (or `vba resume`): accepted work is kept"
    ),
    ErrorCode.REVISION_LOCKED: (
        "another run holds this revision; wait for it (the run queue allows one run per "
        "partition, see dagster.yaml)"
    ),
    ErrorCode.REVISION_FROZEN: (
        "the revision was started with another provider or model; start a new revision"
    ),
    ErrorCode.REVISION_UNKNOWN: "create the revision with `vba revision new` first",
}

#: Codes that end a run as a lifecycle block (ARCHITECTURE 9): the revision waits, nothing is lost.
BLOCK_CODES = frozenset(
    {
        ErrorCode.RESEARCH_UNAVAILABLE,
        ErrorCode.LLM_PROVIDER_RETRY_PENDING,
        ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES,
        ErrorCode.INTERPRETATION_INVALID_RESPONSES,
        ErrorCode.STAGE_BUDGET_EXCEEDED,
    }
)


def failure_metadata(code: ErrorCode, detail: Mapping[str, object]) -> dict[str, Any]:
    """``code``, ``retry_at`` (when the block has one), ``resume`` and every detail field."""
    metadata: dict[str, Any] = {"code": code.value}
    if "retry_at" in detail:
        metadata["retry_at"] = str(detail["retry_at"])
    if code in RESUME_HINTS:
        metadata["resume"] = RESUME_HINTS[code]
    metadata.update({f"detail.{k}": detail_value(v) for k, v in sorted(detail.items())})
    return metadata


def detail_value(value: object) -> Any:
    """A detail field as metadata: numbers stay numbers, lists and mappings become
    ``MetadataValue.json`` (never a Python ``repr``), anything else its text."""
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, Mapping | list | tuple):
        return dg.MetadataValue.json(json.loads(json.dumps(value, default=str)))
    return "" if value is None else str(value)
