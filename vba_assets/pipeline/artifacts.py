"""Reading and recomputing a revision's accepted artifacts (no model call, no query, no write).

Used by the stages (to reuse checkpoints), the asset checks, replay verification, previews and the
evaluation: the candidate index and the F/N/D context are always recomputable from the plan, the
captures and the assessment.
"""

from typing import Any

from vba_assets.domain.resolution.context import (
    build_candidate_index,
    build_resolution_context,
    search_ids,
)
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionContext,
    ResolutionPlanOutput,
)
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.pipeline.frozen import FrozenRevision


def accepted_doc(rev: FrozenRevision, relpath: str) -> dict[str, Any] | None:
    """The document at ``relpath`` if it exists and is ``accepted``, else None."""
    if not rev.package.exists(relpath):
        return None
    doc = rev.package.read_json(relpath)
    return doc if isinstance(doc, dict) and doc.get("status") == "accepted" else None


def load_plan(rev: FrozenRevision) -> ResolutionPlanOutput | None:
    doc = accepted_doc(rev, rev.layout.plan)
    return None if doc is None else ResolutionPlanOutput.model_validate(doc["plan"])


def load_captures(rev: FrozenRevision) -> dict[str, tuple[str, CaptureArtifact]]:
    """``search_id -> (sha256, capture)`` of every capture written so far (hash-checked)."""
    captures: dict[str, tuple[str, CaptureArtifact]] = {}
    directory = rev.layout.captures_dir
    for relpath in rev.package.list_dir(directory):
        digest = relpath.rsplit("/", 1)[-1].removesuffix(".json")
        capture = CaptureArtifact.model_validate(rev.package.read_object(directory, digest))
        captures.setdefault(capture.search_id, (digest, capture))
    return captures


def plan_captures(
    rev: FrozenRevision, plan: ResolutionPlanOutput
) -> list[tuple[str, str, CaptureArtifact]]:
    """``(search_id, sha256, capture)`` of every search of ``plan``, in plan order.

    Raises:
        StoreError: ``ARTIFACT_MISSING`` naming the searches that have no capture yet.
    """
    captures = load_captures(rev)
    missing = [sid for sid in search_ids(plan) if sid not in captures]
    if missing:
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{rev.case_id} revision {rev.revision}: searches {missing} have no capture "
            "yet; materialize resolution_captures first",
            missing=missing,
        )
    return [(sid, *captures[sid]) for sid in search_ids(plan)]


def compute_candidate_index(rev: FrozenRevision, plan: ResolutionPlanOutput) -> CandidateIndex:
    """The candidate index of ``plan``, recomputed from its captures."""
    return build_candidate_index(plan, [(sha, cap) for _, sha, cap in plan_captures(rev, plan)])


def load_candidate_index(rev: FrozenRevision) -> CandidateIndex | None:
    relpath = rev.layout.candidates
    if not rev.package.exists(relpath):
        return None
    doc = rev.package.read_json(relpath)
    return None if doc.get("status") == "disabled" else CandidateIndex.model_validate(doc)


def load_assessment(rev: FrozenRevision) -> ResolutionAssessmentOutput | None:
    doc = accepted_doc(rev, rev.layout.assessment)
    return None if doc is None else ResolutionAssessmentOutput.model_validate(doc["assessment"])


def compute_resolution_context(rev: FrozenRevision) -> ResolutionContext:
    """F/N/D aliases recomputed from the accepted plan, the captures and the assessment."""
    plan, assessment = load_plan(rev), load_assessment(rev)
    if plan is None or assessment is None:
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{rev.case_id} revision {rev.revision}: no accepted plan and assessment to build "
            "the resolution context from",
        )
    return build_resolution_context(plan, compute_candidate_index(rev, plan), assessment)


def load_resolution_context(rev: FrozenRevision) -> ResolutionContext | None:
    relpath = rev.layout.context
    if not rev.package.exists(relpath):
        return None
    doc = rev.package.read_json(relpath)
    return None if doc.get("status") == "disabled" else ResolutionContext.model_validate(doc)
