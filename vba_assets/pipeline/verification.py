"""``vba verify``: prove a case package, or a whole workspace, from its own bytes.

:func:`verify_revision` proves one revision from the package alone: every artifact's hash and
canonical form (the store's ``verify``), every file accounted for
(:mod:`vba_assets.pipeline.integrity`), every asset check of the registry, then the stages' replay
verifiers (:mod:`vba_assets.pipeline.replay_verifiers`). :func:`verify_case` runs the store's file
checks and the package accounting once, then :func:`verify_revision` for every revision folder of
the case; :func:`verify_workspace` does that for every case. No database, no API key: a copy of
the folder in another place verifies the same. Problems are findings (``error`` or ``info``),
never raised.
"""

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from vba_assets.domain.findings import Finding, errors, unique
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, VbaError
from vba_assets.pipeline.checks import evaluate_safely
from vba_assets.pipeline.frozen_revision import FrozenRevision, load_frozen
from vba_assets.pipeline.integrity import (
    account_package,
    account_revision,
    revision_folders,
    revision_of,
)
from vba_assets.pipeline.recorder import revision_records
from vba_assets.pipeline.registry import STAGE_SPECS
from vba_assets.store import CasePackage, Workspace
from vba_assets.store.layout import CASE_JSON


@dataclass
class ReplayReport:
    """What :func:`verify_revision` checked (``checked``: one line per clean stage) and found."""

    case_id: str
    revision: str
    checked: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not errors(self.findings)


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


def _verifier_artifact(rev: FrozenRevision, name: str) -> str | None:
    layout = rev.layout
    return {
        "resolution_plan": layout.plan,
        "candidate_index": layout.candidates,
        "resolution_assessment": layout.assessment,
        "context": layout.context,
        "interpretation": layout.interpretation,
    }.get(name)


def verify_revision(
    package: CasePackage,
    revision: str,
    *,
    include_package: bool = True,
    stored: list[Finding] | None = None,
) -> ReplayReport:
    """Everything verifiable about one revision; problems are findings, never raised.

    The store's file checks and the package accounting (``include_package``: also the files
    outside the revision; ``stored``: the store's findings, when the caller has them), the
    revision's accounting (:mod:`vba_assets.pipeline.integrity`), every
    asset check of the registry, and the replay verifiers. ``checked`` lists a verifier's line
    only when no finding concerns its artifact.
    """
    rev = load_frozen(package, revision)
    report = ReplayReport(package.case_id, revision)
    layout = rev.layout
    try:
        case_relpath = rev.case_relpath  # the revision's report version's case.json
    except VbaError:  # an unreadable log: the accounting below says so
        case_relpath = CASE_JSON
    if not package.exists(case_relpath) or not package.path(layout.dir).is_dir():
        missing = case_relpath if not package.exists(case_relpath) else layout.dir
        report.findings.append(
            Finding(
                code=ErrorCode.ARTIFACT_MISSING,
                artifact=missing,
                message="nothing to verify: it does not exist",
            )
        )
        return report
    stored = package.verify() if stored is None else stored
    if include_package:
        report.findings += stored
        report.findings += account_package(package)
    else:
        report.findings += [f for f in stored if (f.artifact or "").startswith(f"{layout.dir}/")]
    report.findings += account_revision(package, revision)
    if not package.exists(layout.input):
        return report
    try:
        records = revision_records(package, layout)
        rev.spec  # noqa: B018 - an unknown protocol version is a finding, not a crash
        rev.resolution  # noqa: B018
    except (VbaError, ValidationError) as exc:
        report.findings.append(_unreadable(None, exc))
        return report
    lines: list[tuple[str | None, str]] = []
    for spec in STAGE_SPECS:
        produced = layout.artifact(spec.stage) or layout.plan  # captures: once there is a plan
        for check in spec.checks if package.exists(produced) else ():
            try:
                outcome = evaluate_safely(check.evaluate, rev)
            except Exception as exc:  # a malformed artifact is a finding, never a crash
                report.findings.append(_unreadable(spec.stage, exc))
                continue
            report.findings += [
                f.model_copy(update={"subject": f.subject or check.name}) for f in outcome.findings
            ]
        for name, verifier in spec.verifiers:
            try:
                outcome_ = verifier(rev, records)
            except Exception as exc:  # a malformed artifact is a finding, never a crash
                report.findings.append(_unreadable(spec.stage, exc))
                continue
            if outcome_ is None:
                continue
            line, findings = outcome_
            report.findings += findings
            lines.append((_verifier_artifact(rev, name), f"{name}: {line}"))
    report.findings = unique(report.findings)
    concerned = {f.artifact for f in report.findings if f.is_error}
    report.checked = [line for artifact, line in lines if artifact not in concerned]
    return report


def _unreadable(stage: Stage | None, exc: Exception) -> Finding:
    message = exc.message if isinstance(exc, VbaError) else f"{type(exc).__name__}: {exc}"
    return Finding(
        code=ErrorCode.CHECK_INPUT_UNREADABLE,
        subject=stage.value if stage else None,
        message=f"replay could not read its inputs: {message}",
    )


__all__ = ["CaseReport", "ReplayReport", "verify_case", "verify_revision", "verify_workspace"]
