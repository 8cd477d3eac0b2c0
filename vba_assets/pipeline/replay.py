"""Verify a revision anywhere: no API request, no database (ARCHITECTURE 8, "Replay").

From the package alone: every artifact's hash and canonical form (the store's ``verify``), every
file accounted for (:mod:`vba_assets.pipeline.integrity`), every asset check of the registry, then
per stage (:mod:`vba_assets.pipeline.registry`): every recorded request of a model stage rebuilt
byte for byte from the frozen artifacts, the accepted reply re-validated under the revision's
protocol and the artifact recomputed from its accepted dispatch record; the candidate index and
the F/N/D context recomputed from the captures. Everything wrong is a :class:`Finding`; nothing
raises for bad data.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.findings import Finding, errors, unique
from vba_assets.domain.llm.call import conversation, judge_reply
from vba_assets.domain.llm.contract import DispatchRecord, ModelRequest
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, VbaError
from vba_assets.pipeline.artifacts import (
    OUTPUT_KEYS,
    accepted_doc,
    accepted_document,
    compute_candidate_index,
    compute_resolution_context,
    load_plan,
    load_resolution_context,
)
from vba_assets.pipeline.frozen import FrozenRevision, load_frozen
from vba_assets.pipeline.integrity import account_package, account_revision
from vba_assets.pipeline.recorder import revision_records
from vba_assets.pipeline.requests import rebuild_request
from vba_assets.store import CasePackage
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


StageVerifier = Callable[[FrozenRevision, list[DispatchRecord]], "tuple[str, list[Finding]] | None"]


def verify_model_stage(stage: Stage) -> StageVerifier:
    """The verifier of a model stage: every recorded request rebuilt from the frozen artifacts, the
    accepted reply re-validated under the revision's protocol, and the artifact recomputed from the
    accepted dispatch record byte for byte."""

    def verify(
        rev: FrozenRevision, records: list[DispatchRecord]
    ) -> tuple[str, list[Finding]] | None:
        relpath = rev.layout.artifact(stage)
        assert relpath is not None
        doc = accepted_doc(rev, relpath)
        if doc is None:
            return None
        stage_records = sorted((r for r in records if r.stage == stage), key=lambda r: r.attempt)
        accepted = [r for r in stage_records if r.outcome == "accepted"]
        if not accepted:
            return "", [
                _finding(
                    ErrorCode.REPLAY_NO_ACCEPTED_DISPATCH,
                    stage,
                    relpath,
                    "accepted artifact without an accepted dispatch record",
                )
            ]
        record = accepted[0]
        request, validate = rebuild_request(rev, stage)
        findings = _request_findings(stage, relpath, request, stage_records)
        result = validate(doc[OUTPUT_KEYS[stage]])
        if isinstance(result, list) and result:
            findings.append(
                _finding(
                    ErrorCode.REPLAY_REPLY_INVALID,
                    stage,
                    relpath,
                    f"the accepted output no longer validates: {result[0].line()}",
                )
            )
        reply = record.reply()
        value, issues = judge_reply(reply, validate) if reply is not None else (None, [])
        if reply is None or issues or not isinstance(value, BaseModel):
            why = issues[0].line() if issues else "it holds no reply"
            findings.append(
                _finding(
                    ErrorCode.REPLAY_REPLY_INVALID,
                    stage,
                    relpath,
                    f"the accepted dispatch's reply does not validate: {why}",
                )
            )
        elif canonical_bytes(accepted_document(rev, stage, value, record)) != (
            rev.package.read_bytes(relpath)
        ):
            findings.append(
                _finding(
                    ErrorCode.REPLAY_ARTIFACT_DIFFERS,
                    stage,
                    relpath,
                    f"differs from the artifact recomputed from its accepted dispatch "
                    f"(attempt {record.attempt})",
                )
            )
        return (
            "requests rebuilt, reply re-validated, artifact recomputed from its dispatch",
            findings,
        )

    return verify


def _request_findings(
    stage: Stage, relpath: str, request: ModelRequest, records: list[DispatchRecord]
) -> list[Finding]:
    """Every attempt's recorded request hashes against the request rebuilt now."""
    findings = []
    base = request.sha256()
    for record in records:
        rejected = [r for r in records if r.outcome == "rejected" and r.attempt < record.attempt]
        if record.base_request_sha256 != base:
            what = f"its stage request ({record.base_request_sha256[:12]} != rebuilt {base[:12]})"
        elif record.request_sha256 != request.sha256(conversation(request, rejected)):
            what = "its request with the correction rounds before it"
        else:
            continue
        findings.append(
            _finding(
                ErrorCode.REPLAY_REQUEST_DIFFERS,
                stage,
                relpath,
                f"attempt {record.attempt}: {what} differs from the one rebuilt from the frozen "
                "artifacts",
            )
        )
    return findings


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


#: The artifact each verifier vouches for (its "ok" line is printed only if nothing is wrong with it).
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
    # the registry and the checks import this module
    from vba_assets.pipeline.checks import evaluate_safely
    from vba_assets.pipeline.registry import STAGE_SPECS

    rev = load_frozen(package, revision)
    report = ReplayReport(package.case_id, revision)
    layout = rev.layout
    if not package.exists(CASE_JSON) or not package.path(layout.dir).is_dir():
        missing = CASE_JSON if not package.exists(CASE_JSON) else layout.dir
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


__all__ = ["ReplayReport", "verify_revision"]
