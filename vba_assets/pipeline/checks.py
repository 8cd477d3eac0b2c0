"""Independent re-checks of accepted artifacts, run as Dagster asset checks on every partition.

They re-derive what the stage already enforced, from the files alone, so a tampered or buggy artifact
is caught even when it was reused from an earlier run. Each takes the :class:`FrozenRevision` and
returns a :class:`CheckOutcome` of :class:`~vba_assets.domain.findings.Finding` s (one code per
problem); none raises for bad data: :func:`evaluate_safely` turns an unreadable input into a
``CHECK_INPUT_UNREADABLE`` finding. Which check guards which stage, and whether it blocks, is in
:mod:`vba_assets.pipeline.registry`.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ValidationError

from vba_assets.domain.catalog.world import SearchResult
from vba_assets.domain.findings import Finding, errors
from vba_assets.domain.frozen_inputs import ResolutionInput
from vba_assets.domain.interpretation.rules import interpretation_validator
from vba_assets.domain.resolution.batched import batched_origins, planned_searches
from vba_assets.domain.resolution.captures import (
    exact_capture_findings,
    exact_row_limit,
    exact_template_findings,
    identity_capture_findings,
)
from vba_assets.domain.resolution.models import (
    BATCHED_EXACT_NAME,
    EXACT_NAME,
    ProposedSearch,
    capture_key,
)
from vba_assets.domain.resolution.relation_facts import relation_capture_findings
from vba_assets.domain.resolution.rules import validate_assessment, validate_plan
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, VbaError
from vba_assets.pipeline import replay_verifiers
from vba_assets.pipeline.artifacts import (
    compute_candidate_index,
    load_assessment,
    load_candidate_index,
    load_captures,
    load_plan,
)
from vba_assets.pipeline.capture_runs import Captures, needs_exact
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.stage_requests import interpretation_context, interpretation_stage
from vba_assets.store.layout import version_record

#: What every capture's SQL must look like: a parameterized LIKE with an escape clause and a limit.
_CAPTURE_SQL = re.compile(
    r"^SELECT\s.+\sFROM\s.+\sWHERE\s.+\sLIKE\s.+\sESCAPE\s.+\sORDER BY\s.+\sLIMIT\s.+$",
    re.S,
)
#: The only literal a capture's SQL may hold: the LIKE escape character (SQLite '\', MySQL '\\').
_ESCAPE_CLAUSE = re.compile(r"ESCAPE\s+'\\{1,2}'")


def capture_sql_is_template(sql: str) -> bool:
    """A capture's SQL must be the parameterized contains search, with no literal but the escape."""
    return bool(_CAPTURE_SQL.match(sql)) and "'" not in _ESCAPE_CLAUSE.sub("", sql)


@dataclass
class CheckOutcome:
    """The findings of one check, or why it did not apply (``skipped``)."""

    findings: list[Finding] = field(default_factory=list)
    skipped: str | None = None

    @property
    def passed(self) -> bool:
        return not errors(self.findings)

    @classmethod
    def not_applicable(cls, why: str) -> "CheckOutcome":
        return cls(skipped=why)


Check = Callable[[FrozenRevision], CheckOutcome]


def evaluate_safely(check: Check, rev: FrozenRevision) -> CheckOutcome:
    """A check that cannot even read its inputs (tampered or corrupt artifacts, a file it may not
    open, a directory where a file belongs) has failed."""
    try:
        return check(rev)
    except (VbaError, ValidationError, ValueError, KeyError, OSError) as exc:
        message = f"the check could not evaluate: {type(exc).__name__}: {exc}"
        return CheckOutcome([Finding(code=ErrorCode.CHECK_INPUT_UNREADABLE, message=message)])


def _resolution_skip(rev: FrozenRevision) -> CheckOutcome | None:
    if not rev.resolution_enabled:
        return CheckOutcome.not_applicable("entity resolution disabled")
    if load_plan(rev) is None:
        return CheckOutcome.not_applicable("no accepted plan")
    if rev.resolution is None:  # the plan was accepted, so it was written before: now it is gone
        message = "an accepted plan, but no entity-resolution input to check it against"
        return CheckOutcome(
            [
                Finding(
                    code=ErrorCode.ARTIFACT_MISSING, artifact=rev.layout.er_input, message=message
                )
            ]
        )
    return None


def check_case_sources(rev: FrozenRevision) -> CheckOutcome:
    """The revision's case.json is canonical, matches the record of its report version
    (``package.json``, or ``reports/<VVVV>/version.json``), and has a readable source."""
    package, relpath = rev.package, rev.case_relpath
    actual = package.artifact_ref(relpath).sha256
    case_doc = rev.case_doc()  # refuses non-canonical bytes
    record = version_record(rev.report_version)
    recorded = package.read_json(record).get("case_json_sha256")
    findings = []
    if recorded != actual:
        findings.append(
            Finding(
                code=ErrorCode.CASE_HASH_MISMATCH,
                artifact=relpath,
                message=f"{record} records {relpath} sha256 {recorded}, the file has {actual}",
            )
        )
    if not any(s.get("readable") for s in case_doc.get("sources", [])):
        findings.append(
            Finding(
                code=ErrorCode.CASE_NO_READABLE_SOURCE,
                artifact=relpath,
                message="no source is readable by the model",
            )
        )
    return CheckOutcome(findings)


def check_plan_grounding(rev: FrozenRevision) -> CheckOutcome:
    if (skip := _resolution_skip(rev)) is not None:
        return skip
    plan, frozen = load_plan(rev), rev.resolution
    assert plan is not None and frozen is not None
    findings = validate_plan(plan, rev.case_doc(), rev.catalogs, frozen.max_searches, rev.spec)
    return CheckOutcome([f.model_copy(update={"artifact": rev.layout.plan}) for f in findings])


def check_capture_provenance(rev: FrozenRevision) -> CheckOutcome:
    if (skip := _resolution_skip(rev)) is not None:
        return skip
    plan, frozen = load_plan(rev), rev.resolution
    assert plan is not None and frozen is not None
    findings: list[Finding] = []
    try:
        captures = load_captures(rev)  # read_object re-hashes every capture against its name
    except VbaError as exc:
        return CheckOutcome([Finding(code=exc.code, message=exc.message)])

    def add(code: ErrorCode, sid: str, message: str, artifact: str | None = None) -> None:
        findings.append(Finding(code=code, subject=sid, artifact=artifact, message=message))

    origins = batched_origins(plan, rev.spec.batched_exact_names)
    for sid, search in planned_searches(plan, rev.spec.batched_exact_names):
        if sid not in captures:
            add(ErrorCode.CAPTURE_MISSING, sid, "no capture")
            continue
        digest, capture = captures[sid]
        result, artifact = capture.result, rev.layout.capture(digest)
        if capture.search != search or (result.term, result.catalog) != (
            search.term,
            search.catalog,
        ):
            add(
                ErrorCode.CAPTURE_SEARCH_DIFFERS,
                sid,
                "the capture's search differs from the plan",
                artifact,
            )
        batched = sid in origins  # v6: a batched name's capture is an exact-name query
        if (capture.kind == BATCHED_EXACT_NAME) != batched:
            add(
                ErrorCode.CAPTURE_EXACT_DIFFERS,
                sid,
                f"capture kind {capture.kind!r}: a batched name's search (after the plan's "
                f"{len(plan.searches)}) has kind {BATCHED_EXACT_NAME!r}, a plan search none",
                artifact,
            )
        if batched:
            findings += exact_template_findings(
                result, search.term, frozen.max_candidates, sid, artifact
            )
        elif search.reference is not None:  # an identity-reference capture (protocol v4)
            findings += identity_capture_findings(search.reference.identity, result, sid, artifact)
        elif not capture_sql_is_template(result.sql):
            add(
                ErrorCode.CAPTURE_SQL_NOT_TEMPLATE,
                sid,
                "SQL is not the parameterized contains-search template",
                artifact,
            )
        limit = exact_row_limit(frozen.max_candidates) if batched else frozen.max_candidates
        findings += _result_findings(result, frozen, sid, artifact, search.reference is None, limit)
        findings += _exact_findings(rev, captures, search, sid)
        grounded = rev.spec.grounded_tiebreaks  # v6: the capture's quest relations
        findings += relation_capture_findings(capture, grounded, sid, artifact)
    return CheckOutcome(findings)


def _result_findings(
    result: SearchResult,
    frozen: ResolutionInput,
    sid: str,
    artifact: str,
    bounded: bool,
    row_limit: int,
) -> list[Finding]:
    """Snapshot, row limit (``row_limit``: ``max_candidates``, or an exact-name query's
    :func:`~vba_assets.domain.resolution.captures.exact_row_limit`) and coverage notes of one
    capture's result (``bounded``: its rows are cut at the row limit, unlike an identity
    fetch's)."""
    findings = []
    if frozen.snapshot is not None and result.snapshot != frozen.snapshot:
        findings.append(
            Finding(
                code=ErrorCode.CAPTURE_SNAPSHOT_DIFFERS,
                subject=sid,
                artifact=artifact,
                message="snapshot binding differs from the frozen input",
            )
        )
    rows_over = bounded and len(result.rows) > result.row_limit
    if result.row_limit != row_limit or rows_over:
        findings.append(
            Finding(
                code=ErrorCode.CAPTURE_ROW_LIMIT,
                subject=sid,
                artifact=artifact,
                message=f"row limit {result.row_limit} (expected {row_limit}, max_candidates "
                f"{frozen.max_candidates}) with {len(result.rows)} rows",
            )
        )
    if not result.coverage_notes:
        findings.append(
            Finding(
                code=ErrorCode.CAPTURE_NO_COVERAGE_NOTES,
                subject=sid,
                artifact=artifact,
                message="no coverage notes",
            )
        )
    return findings


def _exact_findings(
    rev: FrozenRevision, captures: Captures, search: ProposedSearch, sid: str
) -> list[Finding]:
    """Protocol v6: a truncated contains capture is completed by one exact-name capture, and that
    capture is the exact-name query of the same search (:func:`exact_capture_findings`)."""
    frozen = rev.resolution
    if not rev.spec.exact_name_coverage or frozen is None or sid not in captures:
        return []
    own = captures[sid]
    exact = captures.get(capture_key(sid, EXACT_NAME))
    if exact is None:
        if needs_exact(rev, search, own[1]):
            return [
                Finding(
                    code=ErrorCode.CAPTURE_MISSING,
                    subject=sid,
                    message="the contains capture is truncated and no exact-name capture "
                    "completes it",
                )
            ]
        return []
    digest, capture = exact
    artifact = rev.layout.capture(digest)
    return [
        *exact_capture_findings(search, own, capture, frozen.max_candidates, sid, artifact),
        *_result_findings(
            capture.result, frozen, sid, artifact, True, exact_row_limit(frozen.max_candidates)
        ),
    ]


def check_candidate_index(rev: FrozenRevision) -> CheckOutcome:
    """candidates.json recomputes byte for byte from the captures (the replay verifier)."""
    if (skip := _resolution_skip(rev)) is not None:
        return skip
    outcome = replay_verifiers.verify_candidate_index(rev, [])
    if outcome is None:
        return CheckOutcome.not_applicable("no candidate index")
    return CheckOutcome(outcome[1])


def _assessment_findings(rev: FrozenRevision) -> CheckOutcome | list[Finding]:
    if (skip := _resolution_skip(rev)) is not None:
        return skip
    assessment, plan = load_assessment(rev), load_plan(rev)
    if assessment is None or plan is None:
        return CheckOutcome.not_applicable("no accepted assessment")
    index = compute_candidate_index(rev, plan)
    findings = validate_assessment(assessment, index, plan, rev.case_doc(), rev.spec)
    return [f.model_copy(update={"artifact": rev.layout.assessment}) for f in findings]


def check_selections(rev: FrozenRevision) -> CheckOutcome:
    """Every selection is a real candidate of its search, citing its capture row and a mention;
    context.json recomputes from plan, captures and assessment."""
    found = _assessment_findings(rev)
    if isinstance(found, CheckOutcome):
        return found
    findings = [f for f in found if f.code not in _TRUNCATION_CODES]
    if not found:  # context.json recomputes from plan, captures and assessment (replay's verifier)
        outcome = replay_verifiers.verify_resolution_context(rev, [])
        findings += outcome[1] if outcome else []
    return CheckOutcome(findings)


#: What ``no_truncated_selection`` reports: a selection from a truncated capture, or (protocol v6)
#: from an exact-name capture that does not establish a unique row.
_TRUNCATION_CODES = frozenset(
    {ErrorCode.ASSESSMENT_TRUNCATED_SELECTION, ErrorCode.ASSESSMENT_EXACT_NOT_UNIQUE}
)


def check_no_truncated_selection(rev: FrozenRevision) -> CheckOutcome:
    found = _assessment_findings(rev)
    if isinstance(found, CheckOutcome):
        return found
    return CheckOutcome([f for f in found if f.code in _TRUNCATION_CODES])


def check_interpretation_retention(rev: FrozenRevision) -> CheckOutcome:
    """Selected entities kept with citations, unresolved identities kept as unknowns, citations
    resolve."""
    doc = rev.package.read_json(rev.layout.interpretation)
    resolution = interpretation_context(rev)
    if resolution is not None and load_candidate_index(rev) is None:  # written before the context
        message = "a resolution context, but no candidate index for its unresolved identities"
        return CheckOutcome(
            [
                Finding(
                    code=ErrorCode.ARTIFACT_MISSING, artifact=rev.layout.candidates, message=message
                )
            ]
        )
    context = interpretation_stage(rev, resolution)
    result = interpretation_validator(context, rev.spec)(doc["interpretation"])
    if isinstance(result, list):
        return CheckOutcome(
            [f.model_copy(update={"artifact": rev.layout.interpretation}) for f in result]
        )
    return CheckOutcome()


def check_recorded_reply(stage: Stage) -> Check:
    """A model stage's artifact is the reply its accepted dispatch recorded, and that dispatch's
    request rebuilds byte for byte from the frozen artifacts (what ``vba verify`` replays), so an
    edited artifact, an edited recorded reply or a changed frozen input shows on the partition."""
    verify = replay_verifiers.verify_model_stage(stage)

    def check(rev: FrozenRevision) -> CheckOutcome:
        outcome = verify(rev, PackageRecorder(rev.package, rev.layout, stage).records())
        if outcome is None:
            return CheckOutcome.not_applicable("no accepted artifact")
        return CheckOutcome(outcome[1])

    check.__name__ = f"check_recorded_reply_{stage.value}"
    return check
