"""The replay verifiers of the stages: no API request, no database (ARCHITECTURE 8, "Replay").

Per stage (listed in :mod:`vba_assets.pipeline.registry`): every recorded request of a model stage
rebuilt byte for byte from the frozen artifacts, the accepted reply re-validated under the
revision's protocol and the artifact recomputed from its accepted dispatch record; the candidate
index and the F/N/D context recomputed from the captures. Everything wrong is a :class:`Finding`;
nothing raises for bad data. :func:`vba_assets.pipeline.verification.verify_revision` runs them
with the store's checks, the accounting and the asset checks.
"""

from collections.abc import Callable

from pydantic import BaseModel

from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.findings import Finding
from vba_assets.domain.llm.call import conversation, judge_reply
from vba_assets.domain.llm.contract import DispatchRecord, ModelRequest
from vba_assets.domain.protocol import protocol
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.artifacts import (
    OUTPUT_KEYS,
    accepted_doc,
    accepted_document,
    compute_candidate_index,
    compute_resolution_context,
    load_plan,
    load_resolution_context,
)
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.pipeline.stage_requests import rebuild_request

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
    spec = protocol(request.protocol_version)  # the rebuilt request's, resolved once
    for record in records:
        rejected = [r for r in records if r.outcome == "rejected" and r.attempt < record.attempt]
        if record.base_request_sha256 != base:
            what = f"its stage request ({record.base_request_sha256[:12]} != rebuilt {base[:12]})"
        elif record.request_sha256 != request.sha256(conversation(request, rejected, spec)):
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
