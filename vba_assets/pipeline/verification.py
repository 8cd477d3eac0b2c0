"""``vba verify``: prove a case package, or a whole workspace, from its own bytes.

:func:`verify_case` runs the store's file checks and the package accounting once, then
:func:`~vba_assets.pipeline.replay.verify_revision` for every revision folder of the case;
:func:`verify_workspace` does that for every case. No database, no API key: a copy of the folder
in another place verifies the same. Problems are findings (``error`` or ``info``), never raised.
"""

from dataclasses import dataclass, field
from typing import Any

from vba_assets.domain.findings import Finding, errors
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.integrity import account_package, revision_folders, revision_of
from vba_assets.pipeline.replay import ReplayReport, verify_revision
from vba_assets.store import CasePackage, Workspace


@dataclass
class CaseReport:
    """What :func:`verify_case` found: the package's own findings and one report per revision."""

    case_id: str
    findings: list[Finding] = field(default_factory=list)
    revisions: list[ReplayReport] = field(default_factory=list)

    def all_findings(self) -> list[Finding]:
        return [*self.findings, *(f for r in self.revisions for f in r.findings)]

    @property
    def ok(self) -> bool:
        return not errors(self.all_findings())

    def to_json(self) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "ok": self.ok,
            "findings": [f.model_dump(mode="json") for f in self.findings],
            "revisions": [
                {
                    "revision": r.revision,
                    "ok": r.ok,
                    "checked": r.checked,
                    "findings": [f.model_dump(mode="json") for f in r.findings],
                }
                for r in self.revisions
            ],
        }


def verify_case(package: CasePackage, revisions: list[str] | None = None) -> CaseReport:
    """Verify ``package`` and its revisions (``revisions``: only these)."""
    report = CaseReport(package.case_id)
    if not package.root.is_dir():
        report.findings.append(
            Finding(
                code=ErrorCode.ARTIFACT_MISSING,
                artifact=str(package.root),
                message=f"case {package.case_id} does not exist in this workspace",
            )
        )
        return report
    stored = package.verify()
    report.findings += [f for f in stored if revision_of(f.artifact or "") is None]
    report.findings += account_package(package)
    for revision in revisions if revisions is not None else revision_folders(package):
        report.revisions.append(
            verify_revision(package, revision, include_package=False, stored=stored)
        )
    return report


def verify_workspace(workspace: Workspace) -> list[CaseReport]:
    """Every case of ``workspace`` (case folders with an invalid id are not cases)."""
    return [verify_case(workspace.case(case_id)) for case_id in workspace.case_ids()]


__all__ = ["CaseReport", "verify_case", "verify_workspace"]
