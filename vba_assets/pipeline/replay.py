"""Verify a revision anywhere: no API request, no database (ARCHITECTURE 8, "Replay").

From the package alone: every artifact's hash and canonical form (the store's ``verify``), then per
stage (:mod:`vba_assets.pipeline.registry`): a model stage's request rebuilt byte for byte from the
frozen artifacts and compared with its accepted dispatch record, the accepted reply re-validated
under the revision's protocol and compared with the artifact; the candidate index and the F/N/D
context recomputed from the captures. Everything wrong is a :class:`Finding`; nothing raises for
bad data.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.findings import Finding, errors
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, VbaError
from vba_assets.pipeline.artifacts import (
    accepted_doc,
    compute_candidate_index,
    compute_resolution_context,
    load_plan,
    load_resolution_context,
)
from vba_assets.pipeline.frozen import FrozenRevision, load_frozen
from vba_assets.pipeline.recorder import revision_records
from vba_assets.pipeline.requests import rebuild_request
from vba_assets.store import CasePackage
from vba_assets.store.layout import CASE_JSON

#: The key of each model stage's output inside its accepted artifact.
OUTPUT_KEYS = {
    Stage.RESOLUTION_PLAN: "plan",
    Stage.RESOLUTION_ASSESSMENT: "assessment",
    Stage.INTERPRETATION: "interpretation",
}


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


StageVerifier = Callable[[FrozenRevision, list[DispatchRecord]], "tuple[str, list[Finding]] | None"]


def verify_model_stage(stage: Stage) -> StageVerifier:
    """The verifier of a model stage: request rebuilt, reply re-validated, artifact = reply."""

    def verify(
        rev: FrozenRevision, records: list[DispatchRecord]
    ) -> tuple[str, list[Finding]] | None:
        relpath = rev.layout.artifact(stage)
        assert relpath is not None
        doc = accepted_doc(rev, relpath)
        if doc is None:
            return None
        artifact_output = doc[OUTPUT_KEYS[stage]]
        record = next((r for r in records if r.stage == stage and r.outcome == "accepted"), None)
        if record is None:
            return "", [
                _finding(
                    ErrorCode.REPLAY_NO_ACCEPTED_DISPATCH,
                    stage,
                    relpath,
                    "accepted artifact without an accepted dispatch record",
                )
            ]
        request, validate = rebuild_request(rev, stage)
        findings = []
        if request.sha256() != record.base_request_sha256:
            findings.append(
                _finding(
                    ErrorCode.REPLAY_REQUEST_DIFFERS,
                    stage,
                    relpath,
                    f"the request rebuilt from frozen artifacts differs from the recorded one "
                    f"({request.sha256()[:12]} != {record.base_request_sha256[:12]})",
                )
            )
        result = validate(artifact_output)
        if isinstance(result, list) and result:
            findings.append(
                _finding(
                    ErrorCode.REPLAY_REPLY_INVALID,
                    stage,
                    relpath,
                    f"the accepted reply no longer validates: {result[0].line()}",
                )
            )
        recorded = validate(json.loads(record.output_text)) if record.output_text else None
        if not isinstance(recorded, BaseModel):
            findings.append(
                _finding(
                    ErrorCode.REPLAY_REPLY_INVALID,
                    stage,
                    relpath,
                    "the accepted dispatch's reply does not validate",
                )
            )
        elif recorded.model_dump(mode="json") != artifact_output:
            findings.append(
                _finding(
                    ErrorCode.REPLAY_ARTIFACT_DIFFERS,
                    stage,
                    relpath,
                    "the artifact differs from the reply its accepted dispatch recorded",
                )
            )
        return "request rebuilt, reply re-validated, artifact = recorded reply", findings

    return verify


def verify_candidate_index(
    rev: FrozenRevision, _: list[DispatchRecord]
) -> tuple[str, list[Finding]] | None:
    plan = load_plan(rev)
    if plan is None or not rev.package.exists(rev.layout.candidates):
        return None
    stored = rev.package.read_bytes(rev.layout.candidates)
    if stored == canonical_bytes(compute_candidate_index(rev, plan).model_dump(mode="json")):
        return "recomputed from captures", []
    return "", [
        _finding(
            ErrorCode.RECOMPUTE_MISMATCH,
            Stage.CANDIDATE_INDEX,
            rev.layout.candidates,
            "does not recompute from the captures",
        )
    ]


def verify_resolution_context(
    rev: FrozenRevision, _: list[DispatchRecord]
) -> tuple[str, list[Finding]] | None:
    if accepted_doc(rev, rev.layout.assessment) is None:
        return None
    if load_resolution_context(rev) == compute_resolution_context(rev):
        return "F/N/D aliases recomputed", []
    return "", [
        _finding(
            ErrorCode.RECOMPUTE_MISMATCH,
            Stage.RESOLUTION_ASSESSMENT,
            rev.layout.context,
            "context.json does not recompute from plan, captures and assessment",
        )
    ]


def _finding(code: ErrorCode, stage: Stage, artifact: str, message: str) -> Finding:
    return Finding(code=code, subject=stage.value, artifact=artifact, message=message)


def verify_revision(package: CasePackage, revision: str) -> ReplayReport:
    """Everything verifiable about one revision; problems are findings, never raised."""
    from vba_assets.pipeline.registry import STAGE_SPECS  # the registry imports this module

    rev = load_frozen(package, revision)
    report = ReplayReport(package.case_id, revision)
    for required in (CASE_JSON, rev.layout.input):
        if not package.exists(required):
            report.findings.append(
                Finding(
                    code=ErrorCode.ARTIFACT_MISSING,
                    artifact=required,
                    message="nothing to verify: it does not exist",
                )
            )
            return report
    report.findings += errors(package.verify())
    try:
        records = revision_records(package, rev.layout)
        rev.spec  # noqa: B018 - an unknown protocol version is a finding, not a crash
    except (VbaError, ValidationError) as exc:
        report.findings.append(_unreadable(None, exc))
        return report
    for spec in STAGE_SPECS:
        for name, verifier in spec.verifiers:
            try:
                outcome = verifier(rev, records)
            except (VbaError, ValidationError, ValueError, KeyError, TypeError) as exc:
                report.findings.append(_unreadable(spec.stage, exc))
                continue
            if outcome is None:
                continue
            line, findings = outcome
            report.findings += findings
            if not findings:
                report.checked.append(f"{name}: {line}")
    return report


def _unreadable(stage: Stage | None, exc: Exception) -> Finding:
    message = exc.message if isinstance(exc, VbaError) else f"{type(exc).__name__}: {exc}"
    return Finding(
        code=ErrorCode.CHECK_INPUT_UNREADABLE,
        subject=stage.value if stage else None,
        message=f"replay could not read its inputs: {message}",
    )


__all__ = ["ReplayReport", "verify_revision"]
