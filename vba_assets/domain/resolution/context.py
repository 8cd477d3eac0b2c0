"""Candidate index and resolution context: deterministic controller steps (ARCHITECTURE 6.3, 6.5).

Both are recomputable from the accepted plan, the captures and the accepted assessment, which is
what replay and the asset checks do: the same inputs always give the same bytes.
"""

from collections.abc import Sequence

from vba_assets.domain.catalog.matching import RankedCandidate, rank_search_results
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    CaptureArtifact,
    FactAlias,
    ResolutionAssessmentOutput,
    ResolutionContext,
    ResolutionPlanOutput,
    SearchCandidates,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
)

CAPTURES_POINTER = "/entity_resolution/captures"
ASSESSMENT_POINTER = "/entity_resolution/assessment"


def search_ids(plan: ResolutionPlanOutput) -> list[str]:
    """``Q1..Qn`` in plan order."""
    return [f"Q{number}" for number in range(1, len(plan.searches) + 1)]


def candidate_ids(search_id: str, candidates: Sequence[RankedCandidate]) -> list[str]:
    """``Q1-C1..Q1-Cn`` in rank order."""
    return [f"{search_id}-C{rank}" for rank in range(1, len(candidates) + 1)]


def build_candidate_index(
    plan: ResolutionPlanOutput, captures: Sequence[tuple[str, CaptureArtifact]]
) -> CandidateIndex:
    """Rank each search's capture with the lookup tool's ranking.

    Args:
        plan: the accepted plan.
        captures: ``(sha256, capture)`` for every search, in plan order.
    """
    searches = []
    for position, (search_id, (digest, capture)) in enumerate(
        zip(search_ids(plan), captures, strict=True), start=1
    ):
        if capture.search_id != search_id:
            raise ValueError(f"capture {digest} belongs to {capture.search_id}, not {search_id}")
        candidates = rank_search_results(capture.search.term, [capture.result])
        searches.append(
            SearchCandidates(
                search_id=search_id,
                term=capture.search.term,
                catalog=capture.search.catalog,
                role=capture.search.role,
                capture_sha256=digest,
                capture_alias=f"F{position}",
                truncated=capture.result.truncated,
                candidates=candidates,
                candidate_ids=candidate_ids(search_id, candidates),
            )
        )
    return CandidateIndex(searches=searches)


def build_resolution_context(
    plan: ResolutionPlanOutput,
    index: CandidateIndex,
    assessment: ResolutionAssessmentOutput,
) -> ResolutionContext:
    """F, N and D aliases from a VALIDATED assessment (call the rules first)."""
    facts = [
        FactAlias(
            alias=search.capture_alias,
            pointer=f"{CAPTURES_POINTER}/{search.capture_sha256}",
            search_id=search.search_id,
            catalog=search.catalog,
            term=search.term,
            truncated=search.truncated,
            rows=len(search.candidates),
        )
        for search in index.searches
    ]
    verdicts = {verdict.search_id: (i, verdict) for i, verdict in enumerate(assessment.assessments)}
    selected: list[SelectedEntityAlias] = []
    unresolved: list[UnresolvedIdentityAlias] = []
    for search, proposed in zip(index.searches, plan.searches, strict=True):
        position, verdict = verdicts[search.search_id]
        pointer = f"{ASSESSMENT_POINTER}#/assessments/{position}"
        if verdict.status == "selected" and verdict.candidate_id is not None:
            candidate = search.candidates[search.candidate_ids.index(verdict.candidate_id)]
            selected.append(
                SelectedEntityAlias(
                    alias=f"N{len(selected) + 1}",
                    search_id=search.search_id,
                    entity_type=candidate.entity_type,
                    identity=candidate.identity,
                    name=candidate.name,
                    catalog=candidate.catalog,
                    capture_pointer=f"{CAPTURES_POINTER}/{search.capture_sha256}",
                    capture_row=candidate.source_index,
                    mentions=list(proposed.mentions),
                    assessment_pointer=pointer,
                    role=search.role,
                )
            )
            continue
        ids = dict(zip(search.candidate_ids, search.candidates, strict=True))
        competing = [ids[c].identity for c in verdict.competing_candidate_ids if c in ids]
        status = (
            "truncated" if search.truncated and verdict.status != "no_match" else verdict.status
        )
        unresolved.append(
            UnresolvedIdentityAlias(
                alias=f"D{len(unresolved) + 1}",
                search_id=search.search_id,
                term=search.term,
                role=search.role,
                status=status,
                candidate_identities=competing,
                mentions=list(proposed.mentions),
                assessment_pointer=pointer,
            )
        )
    return ResolutionContext(facts=facts, selected=selected, unresolved=unresolved)
