"""What an asset, a check or a blocked step shows in the Dagster UI, as metadata a person can read.

* Findings are listed once each, as a table: the code, what it concerns in the case's own terms
  (``Q2``, ``N1``, ``S3[10:27]``: the search, alias or mention), the file, the message.
* The assessment's rationale is shown in full in its own entry (the preview table shortens it).
* A model stage's context manifest is its own entry, not the tail of the preview.
* A block carries its code, its ``retry_at`` and what to do about it.

Report text is escaped so it can never turn into markdown (links, images, HTML).
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any

from vba_assets.domain.findings import Finding, unique
from vba_assets.errors import ErrorCode

#: Characters that would turn report text into markdown (links, images, emphasis, HTML, code).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def inert(text: object) -> str:
    """Text as inert markdown on one line (every markdown character escaped)."""
    value = "" if text is None else str(text)
    return _MARKDOWN.sub(r"\\\1", value.replace("\r", " ").replace("\n", " "))


def findings_table(findings: Sequence[Finding]) -> str:
    """Each finding once: code, what it concerns, the file (and JSON pointer), the message."""
    rows = unique(findings)
    if not rows:
        return "none"
    lines = ["| code | concerns | file | message |", "|---|---|---|---|"]
    for finding in rows:
        where = " ".join(part for part in (finding.artifact, finding.path) if part)
        severity = "" if finding.is_error else " (info)"
        lines.append(
            f"| `{finding.code.value}`{severity} | {inert(finding.subject or '-')} | "
            f"{inert(where or '-')} | {inert(finding.message)} |"
        )
    return "\n".join(lines)


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
    }
)


def failure_metadata(code: ErrorCode, detail: Mapping[str, object]) -> dict[str, Any]:
    """``code``, ``retry_at`` (when the block has one), ``resume`` and every detail field."""
    metadata: dict[str, Any] = {"code": code.value}
    if "retry_at" in detail:
        metadata["retry_at"] = str(detail["retry_at"])
    if code in RESUME_HINTS:
        metadata["resume"] = RESUME_HINTS[code]
    metadata.update({f"detail.{k}": str(v) for k, v in sorted(detail.items())})
    return metadata
