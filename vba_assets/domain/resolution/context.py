"""Candidate index and resolution context: deterministic controller steps (ARCHITECTURE 6.3, 6.5).

Both are recomputable from the accepted plan, the captures and the accepted assessment, which is
what replay and the asset checks do: the same inputs always give the same bytes.
"""

from collections.abc import Mapping, Sequence
from typing import cast

from vba_assets.domain.catalog.matching import (
    MatchTier,
    RankedCandidate,
    RowRef,
    identity_key,
    match_tier,
    rank_key,
    rank_search_results,
)
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.catalog.world import SearchResult
from vba_assets.domain.limits import not_examined_reason
from vba_assets.domain.resolution.aliases import (
    FactAlias,
    NotExaminedName,
    ResolutionContext,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
    UnresolvedStatus,
)
from vba_assets.domain.resolution.batched import batched_origins, planned_searches
from vba_assets.domain.resolution.links import agrees, report_words
from vba_assets.domain.resolution.merging import merge_selected
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    CaptureArtifact,
    ExactCoverage,
    ProposedSearch,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
    SearchCandidates,
)

CAPTURES_POINTER = "/entity_resolution/captures"
ASSESSMENT_POINTER = "/entity_resolution/assessment"
PLAN_POINTER = "/entity_resolution/plan"
#: The ``search_id`` of a ``not_searched`` unknown (a name over ``max_searches``, protocol v4).
NOT_SEARCHED = "none"


def search_ids(plan: ResolutionPlanOutput, batched: bool = False) -> list[str]:
    """``Q1..Qn`` in plan order, then (``batched``, protocol v6) the batched names' searches."""
    return [search_id for search_id, _ in planned_searches(plan, batched)]


def candidate_ids(search_id: str, candidates: Sequence[RankedCandidate]) -> list[str]:
    """``Q1-C1..Q1-Cn`` in rank order."""
    return [f"{search_id}-C{rank}" for rank in range(1, len(candidates) + 1)]


def exact_is_unique(term: str, result: SearchResult) -> bool:
    """Whether an exact-name capture (protocol v6) may ground a selection: it is complete (not
    truncated), every row is of one entity, and a row's name equals ``term`` after
    :func:`normalize_for_match` (the match tiers' normalization)."""
    wanted = normalize_for_match(term)
    return (
        not result.truncated
        and len({identity_key(row.identity) for row in result.rows}) == 1
        and any(normalize_for_match(row.name) == wanted for row in result.rows)
    )


def exact_candidate_ids(search_id: str, candidates: Sequence[RankedCandidate]) -> list[str]:
    """``Q1-X1..Q1-Xn``: the candidates of a search's exact-name capture (protocol v6)."""
    return [f"{search_id}-X{rank}" for rank in range(1, len(candidates) + 1)]


def _exact_coverage(
    search_id: str, term: str, digest: str, capture: CaptureArtifact, alias: str
) -> ExactCoverage:
    candidates = rank_search_results(term, [capture.result])
    return ExactCoverage(
        capture_sha256=digest,
        capture_alias=alias,
        truncated=capture.result.truncated,
        unique=exact_is_unique(term, capture.result),
        candidates=candidates,
        candidate_ids=exact_candidate_ids(search_id, candidates),
        quest_relations=capture.quest_relations,
        zone_markers=capture.zone_markers,
    )


def build_candidate_index(
    plan: ResolutionPlanOutput,
    captures: Sequence[tuple[str, CaptureArtifact]],
    exact: Mapping[str, tuple[str, CaptureArtifact]] | None = None,
    batched: bool = False,
) -> CandidateIndex:
    """Rank each search's capture with the lookup tool's ranking.

    Args:
        plan: the accepted plan.
        captures: ``(sha256, capture)`` for every search, in plan order.
        exact: protocol v6: ``search_id -> (sha256, capture)`` of the exact-name captures that
            complete truncated searches; each gets the next F alias after the searches' own
            (``F<n+1>``... in plan order). None or empty: no exact coverage (v1-v5).
        batched: protocol v6: ``captures`` also holds the batched names' searches
            (:mod:`.batched`), after the plan's own.
    """
    exact = exact or {}
    ids = search_ids(plan, batched)
    next_alias = len(ids) + 1
    searches = []
    for position, (search_id, (digest, capture)) in enumerate(
        zip(ids, captures, strict=True), start=1
    ):
        if capture.search_id != search_id:
            raise ValueError(f"capture {digest} belongs to {capture.search_id}, not {search_id}")
        if capture.search.reference is not None:
            candidates = rank_identity_rows(capture.search.term, capture.result)
        else:
            candidates = rank_search_results(capture.search.term, [capture.result])
        coverage = None
        if search_id in exact and capture.result.truncated and capture.search.reference is None:
            exact_digest, exact_capture = exact[search_id]
            if exact_capture.completes != digest or exact_capture.search != capture.search:
                raise ValueError(
                    f"exact-name capture {exact_digest} does not complete {search_id}'s capture"
                )
            coverage = _exact_coverage(
                search_id, capture.search.term, exact_digest, exact_capture, f"F{next_alias}"
            )
            next_alias += 1
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
                reference=capture.search.reference,
                quest_relations=capture.quest_relations,
                zone_markers=capture.zone_markers,
                exact=coverage,
            )
        )
    return CandidateIndex(searches=searches)


def rank_identity_rows(term: str, result: SearchResult) -> list[RankedCandidate]:
    """The candidates of an identity-reference capture (protocol v4): one per fetched entity.

    Every row is kept (they are the linked entity's names, one per locale); each row's tier is
    its match tier against ``term``, or :attr:`MatchTier.LINKED` when its name does not match the
    term at all. The representative row of an entity is its best tier, then a primary-name row,
    then :func:`rank_key`; the other rows go to ``also_matched``, best first.
    """
    localized = result.catalog_kind == "localized_name"
    groups: dict[tuple[int, int, str], list[tuple[tuple[object, ...], int, MatchTier]]] = {}
    for index, row in enumerate(result.rows):
        tier = match_tier(term, row.name, localized=localized) or MatchTier.LINKED
        key = (*rank_key(tier, row.name, row.identity), index)
        groups.setdefault(identity_key(row.identity), []).append((key, index, tier))
    candidates = []
    for rows in groups.values():
        rows.sort(key=lambda item: item[0])
        (_, best, tier), others = rows[0], rows[1:]
        row = result.rows[best]
        candidates.append(
            RankedCandidate(
                identity=row.identity,
                name=row.name,
                tier=tier,
                entity_type=result.entity_type,
                catalog=result.catalog,
                catalog_kind=result.catalog_kind,
                term=result.term,
                source_index=best,
                data=dict(row.data),
                also_matched=[
                    RowRef(
                        catalog=result.catalog,
                        term=result.term,
                        source_index=index,
                        name=result.rows[index].name,
                        tier=other_tier,
                    )
                    for _, index, other_tier in others
                ],
            )
        )
    candidates.sort(key=lambda c: rank_key(c.tier, c.name, c.identity))
    return candidates


def candidate_names(candidate: RankedCandidate) -> list[str]:
    """Every name of a candidate: its own and those of the entity's other captured rows."""
    return list(dict.fromkeys([candidate.name, *(ref.name for ref in candidate.also_matched)]))


def link_agrees(search: ProposedSearch, candidates: Sequence[RankedCandidate]) -> bool:
    """Whether the report's words agree with a name of the fetched entity (:mod:`.links`)."""
    names = [name for candidate in candidates for name in candidate_names(candidate)]
    return agrees(report_words(search), names)


def build_resolution_context(
    plan: ResolutionPlanOutput,
    index: CandidateIndex,
    assessment: ResolutionAssessmentOutput,
    max_unresolved: int | None = None,
    merge: bool = False,
    batched: bool = False,
) -> ResolutionContext:
    """F, N and D aliases from a VALIDATED assessment (call the rules first).

    ``merge`` (protocol v6, ``ProtocolSpec.merged_entities``): the searches that select the same
    entry give one N alias with all their mentions (:mod:`.merging`); False: one per search.

    ``max_unresolved`` (protocol v5, :data:`~vba_assets.domain.limits.MAX_UNRESOLVED`): every
    unresolved search gets a ``D`` alias, then the unsearched names while fewer than that many
    exist; the rest are ``not_examined`` (over the limit), with no alias. None: no limit (v1-v4).

    ``batched`` (protocol v6, ``ProtocolSpec.batched_exact_names``): the index also holds the
    searches of the batched names (:mod:`.batched`); those names are not unsearched any more.
    """
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
    facts += [  # protocol v6: the exact-name captures, after the searches' own
        FactAlias(
            alias=search.exact.capture_alias,
            pointer=f"{CAPTURES_POINTER}/{search.exact.capture_sha256}",
            search_id=search.search_id,
            catalog=search.catalog,
            term=search.term,
            truncated=search.exact.truncated,
            rows=len(search.exact.candidates),
            completes=search.capture_alias,
        )
        for search in index.searches
        if search.exact is not None
    ]
    verdicts = {verdict.search_id: (i, verdict) for i, verdict in enumerate(assessment.assessments)}
    selected: list[SelectedEntityAlias] = []
    unresolved: list[UnresolvedIdentityAlias] = []
    kinds: dict[str, str] = {}
    planned = [search for _, search in planned_searches(plan, batched)]
    for search, proposed in zip(index.searches, planned, strict=True):
        position, verdict = verdicts[search.search_id]
        pointer = f"{ASSESSMENT_POINTER}#/assessments/{position}"
        candidate = search.candidate(verdict.candidate_id)
        if verdict.status == "selected" and candidate is not None:
            capture_sha = (
                search.exact.capture_sha256
                if search.exact is not None and search.in_exact(verdict.candidate_id)
                else search.capture_sha256
            )
            kinds[search.search_id] = candidate.catalog_kind
            selected.append(
                SelectedEntityAlias(
                    alias=f"N{len(selected) + 1}",
                    search_id=search.search_id,
                    entity_type=candidate.entity_type,
                    identity=candidate.identity,
                    name=candidate.name,
                    catalog=candidate.catalog,
                    capture_pointer=f"{CAPTURES_POINTER}/{capture_sha}",
                    capture_row=candidate.source_index,
                    mentions=list(proposed.mentions),
                    assessment_pointer=pointer,
                    role=search.role,
                )
            )
            continue
        found = [search.candidate(c) for c in verdict.competing_candidate_ids]
        competing = [c.identity for c in found if c is not None]
        status = cast(
            UnresolvedStatus,
            "truncated" if search.truncated and verdict.status != "no_match" else verdict.status,
        )
        linked: dict[str, object] = {}
        if proposed.reference is not None:
            linked["linked_identity"] = proposed.reference.identity
            if search.candidates and not link_agrees(proposed, search.candidates):
                status = "link_disagrees"
                linked["linked_names"] = [
                    name for candidate in search.candidates for name in candidate_names(candidate)
                ]
        unresolved.append(
            UnresolvedIdentityAlias.model_validate(
                {
                    "alias": f"D{len(unresolved) + 1}",
                    "search_id": search.search_id,
                    "term": search.term,
                    "role": search.role,
                    "status": status,
                    "candidate_identities": competing,
                    "mentions": list(proposed.mentions),
                    "assessment_pointer": pointer,
                    **linked,
                }
            )
        )
    not_examined: list[NotExaminedName] = []
    looked_up = set(batched_origins(plan, batched).values())
    for position, name in enumerate(plan.unsearched):
        if position in looked_up:
            continue
        pointer = f"{PLAN_POINTER}#/plan/unsearched/{position}"
        if max_unresolved is not None and len(unresolved) >= max_unresolved:
            not_examined.append(
                NotExaminedName(
                    term=name.term,
                    role=name.role,
                    mentions=list(name.mentions),
                    pointer=pointer,
                    reason=not_examined_reason(max_unresolved),
                )
            )
            continue
        unresolved.append(
            UnresolvedIdentityAlias(
                alias=f"D{len(unresolved) + 1}",
                search_id=NOT_SEARCHED,
                term=name.term,
                role=name.role,
                status="not_searched",
                candidate_identities=[],
                mentions=list(name.mentions),
                assessment_pointer=pointer,
            )
        )
    if merge:
        selected = merge_selected(selected, kinds)
    return ResolutionContext(
        facts=facts, selected=selected, unresolved=unresolved, not_examined=not_examined
    )
