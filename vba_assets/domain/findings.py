"""One finding type for everything that can be wrong with a reply or an artifact.

A :class:`Finding` is what a stage rule reports to the correction loop, what an asset check shows in
the Dagster UI, what replay verification prints and what the store's package verification finds.
Each carries a distinct :class:`~vba_assets.errors.ErrorCode` (one per rule or check), so callers
select findings by code, never by searching their messages.

Serialized, a finding is ``{"code", "path", "message"}`` plus ``subject``/``artifact``/``severity``
only when they are set: dispatch records written before those fields existed keep their bytes.
"""

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.errors import ErrorCode

Severity = Literal["error", "info"]


class Finding(StrictModel):
    """One problem: a stable code, where it is and a message that says what to do instead.

    Attributes:
        code: The rule or check that found it.
        path: A JSON pointer into the document concerned (``""`` is the whole document).
        message: For people (and for the model, in a correction round).
        subject: What it concerns in the case's own terms (``Q2``, ``N1``, ``S3[10:27]``).
        artifact: The package-relative path of the file concerned, when there is one.
        severity: ``info`` findings are reported but never fail a check or a verification.
    """

    code: ErrorCode
    path: str = ""
    message: str
    subject: str | None = Field(default=None, exclude_if=lambda value: value is None)
    artifact: str | None = Field(default=None, exclude_if=lambda value: value is None)
    severity: Severity = Field(default="error", exclude_if=lambda value: value == "error")

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def line(self) -> str:
        """One readable line: ``CODE subject artifact path: message``."""
        where = " ".join(part for part in (self.subject, self.artifact, self.path) if part)
        return f"{self.code.value}{' ' + where if where else ''}: {self.message}"


def errors(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that count as failures (severity ``error``)."""
    return [finding for finding in findings if finding.is_error]


def unique(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` without repeats, in first-seen order."""
    seen: set[Finding] = set()
    result = []
    for finding in findings:
        if finding not in seen:
            seen.add(finding)
            result.append(finding)
    return result
