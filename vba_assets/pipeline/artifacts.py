"""Reading and recomputing a revision's accepted artifacts (no model call, no query, no write).

Used by the stages (to reuse checkpoints), the asset checks, replay verification, previews and the
evaluation: the candidate index and the F/N/D context are always recomputable from the plan, the
captures and the assessment.
"""

from typing import Any

from pydantic import BaseModel

from vba_assets.domain.limits import MAX_UNRESOLVED
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.resolution.aliases import ResolutionContext
from vba_assets.domain.resolution.context import (
    build_candidate_index,
    build_resolution_context,
    search_ids,
)
from vba_assets.domain.resolution.models import (
    EXACT_NAME,
    CandidateIndex,
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.store.layout import dispatch_name

#: Why a stage of a revision without entity resolution holds a ``disabled`` artifact.
DISABLED_REASON = "no [entity_resolution] block in the project config"
#: The key of each model stage's output inside its accepted artifact.
OUTPUT_KEYS = {
    Stage.RESOLUTION_PLAN: "plan",
    Stage.RESOLUTION_ASSESSMENT: "assessment",
    Stage.INTERPRETATION: "interpretation",
}


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
    """``key -> (sha256, capture)`` of every capture written so far (hash-checked): the key is
    the search id (``Q1``) of a search's own capture and ``Q1/exact_name`` of the exact-name
    capture that completes it (protocol v6, :attr:`CaptureArtifact.key`)."""
    captures: dict[str, tuple[str, CaptureArtifact]] = {}
    directory = rev.layout.captures_dir
    for relpath in rev.package.list_dir(directory):
        digest = relpath.rsplit("/", 1)[-1].removesuffix(".json")
        capture = CaptureArtifact.model_validate(rev.package.read_object(directory, digest))
        captures.setdefault(capture.key, (digest, capture))
    return captures


def exact_captures(
    rev: FrozenRevision, captures: dict[str, tuple[str, CaptureArtifact]]
) -> dict[str, tuple[str, CaptureArtifact]]:
    """``search_id -> (sha256, capture)`` of the exact-name captures among ``captures`` that
    the revision's protocol reads (v6 on; none before, whatever files lie there)."""
    if not rev.spec.exact_name_coverage:
        return {}
    return {
        capture.search_id: (digest, capture)
        for digest, capture in captures.values()
        if capture.kind == EXACT_NAME
    }


def plan_captures(
    rev: FrozenRevision,
    plan: ResolutionPlanOutput,
    loaded: dict[str, tuple[str, CaptureArtifact]] | None = None,
) -> list[tuple[str, str, CaptureArtifact]]:
    """``(search_id, sha256, capture)`` of every search of ``plan``, in plan order (protocol v6:
    the batched names' searches after the plan's own, :mod:`vba_assets.domain.resolution.batched`).

    Raises:
        StoreError: ``ARTIFACT_MISSING`` naming the searches that have no capture yet.
    """
    captures = load_captures(rev) if loaded is None else loaded
    ids = search_ids(plan, rev.spec.batched_exact_names)
    missing = [sid for sid in ids if sid not in captures]
    if missing:
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{rev.case_id} revision {rev.revision}: searches {missing} have no capture "
            "yet; materialize resolution_captures first",
            missing=missing,
        )
    return [(sid, *captures[sid]) for sid in ids]


def compute_candidate_index(rev: FrozenRevision, plan: ResolutionPlanOutput) -> CandidateIndex:
    """The candidate index of ``plan``, recomputed from its captures (and, protocol v6, the
    exact-name captures that complete truncated ones)."""
    loaded = load_captures(rev)
    own = [(sha, cap) for _, sha, cap in plan_captures(rev, plan, loaded)]
    batched = rev.spec.batched_exact_names
    return build_candidate_index(plan, own, exact_captures(rev, loaded), batched)


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
    limit = MAX_UNRESOLVED if rev.spec.bounded_lists else None
    return build_resolution_context(
        plan,
        compute_candidate_index(rev, plan),
        assessment,
        limit,
        merge=rev.spec.merged_entities,
        batched=rev.spec.batched_exact_names,
    )


def load_resolution_context(rev: FrozenRevision) -> ResolutionContext | None:
    relpath = rev.layout.context
    if not rev.package.exists(relpath):
        return None
    doc = rev.package.read_json(relpath)
    return None if doc.get("status") == "disabled" else ResolutionContext.model_validate(doc)


# --- the documents the stages write (also recomputed by vba verify) -------------------------------


def disabled_document(stage: Stage) -> dict[str, Any]:
    """The artifact of a resolution stage in a revision frozen without entity resolution."""
    return {
        "schema_version": 1,
        "status": "disabled",
        "stage": stage.value,
        "reason": DISABLED_REASON,
    }


def _stage_fields(rev: FrozenRevision, stage: Stage, value: BaseModel) -> dict[str, Any]:
    output = value.model_dump(mode="json")
    if stage is Stage.RESOLUTION_PLAN:
        assert isinstance(value, ResolutionPlanOutput)
        return {"search_ids": search_ids(value), "plan": output}
    if stage is Stage.INTERPRETATION:
        prompt = "resolved" if rev.resolution_enabled else "unresolved"
        return {"prompt": prompt, "interpretation": output}
    return {OUTPUT_KEYS[stage]: output}


def accepted_document(
    rev: FrozenRevision, stage: Stage, value: BaseModel, accepted: DispatchRecord
) -> dict[str, Any]:
    """The accepted artifact of a model stage: its validated output and the dispatch it came from.

    Content only: the same replies give the same bytes (the dispatch record, which also holds
    request ids and usage, is bound by sha256 in the ``accepted`` event, see
    :func:`accepted_event_fields`).
    """
    return {
        "schema_version": 1,
        "status": "accepted",
        **_stage_fields(rev, stage, value),
        "accepted_dispatch": dispatch_name(stage, accepted.attempt),
        "request_sha256": accepted.base_request_sha256,
    }


def accepted_event_fields(rev: FrozenRevision, stage: Stage, attempt: int) -> dict[str, Any]:
    """The ``accepted`` event of a model stage whose accepted dispatch is ``attempt``: the
    artifact, the accepted dispatch record, its context manifest and every rejected record of the
    stage before it, each by sha256 (the chained log makes them reachable by hash)."""
    package, layout = rev.package, rev.layout
    relpath = layout.artifact(stage)
    assert relpath is not None
    manifest = layout.manifest(stage, attempt)
    return {
        "stage": stage.value,
        "artifact": relpath,
        "sha256": package.artifact_ref(relpath).sha256,
        "accepted_dispatch": layout.dispatch(stage, attempt),
        "accepted_dispatch_sha256": package.artifact_ref(layout.dispatch(stage, attempt)).sha256,
        "accepted_manifest_sha256": (
            package.artifact_ref(manifest).sha256 if package.exists(manifest) else None
        ),
        "rejected_dispatches": [  # as their 'rejected' events named them (no record parsed)
            {"record": event["record"], "sha256": event["sha256"]}
            for event in sorted(
                (
                    e
                    for e in package.read_events(layout.revision)
                    if e["event"] == "rejected"
                    and e.get("stage") == stage.value
                    and isinstance(e.get("attempt"), int)
                    and e["attempt"] < attempt
                ),
                key=lambda e: e["attempt"],
            )
        ],
    }
