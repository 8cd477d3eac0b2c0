"""Reading and recomputing a revision's accepted artifacts (no model call, no query).

Used by the stages (to reuse checkpoints), by the asset checks and by replay verification: the
candidate index and the F/N/D context are always recomputable from the plan, captures and assessment.
"""

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
from vba_assets.pipeline.revision import RevisionEnv


def load_plan(env: RevisionEnv) -> ResolutionPlanOutput | None:
    doc = env.package.read_json(f"{env.er_dir}/plan.json")
    if doc.get("status") != "accepted":
        return None
    return ResolutionPlanOutput.model_validate(doc["plan"])


def load_captures(env: RevisionEnv) -> dict[str, tuple[str, CaptureArtifact]]:
    """``search_id -> (sha256, capture)`` of every capture written so far."""
    captures: dict[str, tuple[str, CaptureArtifact]] = {}
    for relpath in env.package.list_dir(f"{env.er_dir}/captures"):
        digest = relpath.rsplit("/", 1)[-1].removesuffix(".json")
        capture = CaptureArtifact.model_validate(
            env.package.read_object(f"{env.er_dir}/captures", digest)
        )
        captures.setdefault(capture.search_id, (digest, capture))
    return captures


def compute_candidate_index(env: RevisionEnv) -> CandidateIndex:
    plan = load_plan(env)
    if plan is None:
        raise ValueError("no accepted plan")
    captures = load_captures(env)
    missing = [sid for sid in search_ids(plan) if sid not in captures]
    if missing:
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{env.package.case_id} revision {env.revision}: searches {missing} have no capture "
            "yet; materialize resolution_captures first",
            missing=missing,
        )
    return build_candidate_index(plan, [captures[sid] for sid in search_ids(plan)])


def load_candidate_index(env: RevisionEnv) -> CandidateIndex | None:
    doc = env.package.read_json(f"{env.er_dir}/candidates.json")
    return None if doc.get("status") == "disabled" else CandidateIndex.model_validate(doc)


def load_assessment(env: RevisionEnv) -> ResolutionAssessmentOutput | None:
    doc = env.package.read_json(f"{env.er_dir}/assessment.json")
    if doc.get("status") != "accepted":
        return None
    return ResolutionAssessmentOutput.model_validate(doc["assessment"])


def compute_resolution_context(env: RevisionEnv) -> ResolutionContext:
    """F/N/D aliases recomputed from the accepted plan, the captures and the assessment."""
    plan, assessment = load_plan(env), load_assessment(env)
    if plan is None or assessment is None:
        raise ValueError("no accepted plan and assessment")
    return build_resolution_context(plan, compute_candidate_index(env), assessment)


def load_resolution_context(env: RevisionEnv) -> ResolutionContext | None:
    relpath = f"{env.er_dir}/context.json"
    if not env.package.exists(relpath):
        return None
    doc = env.package.read_json(relpath)
    return None if doc.get("status") == "disabled" else ResolutionContext.model_validate(doc)
