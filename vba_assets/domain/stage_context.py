"""The structured content of each model stage (``ModelRequest.stage_context``) and its builders.

One model per stage holds exactly what the stage may see. The request builders render it into the
user message (so a real model reads the same facts), and the deterministic heuristic provider reads
it directly (so it never parses prompts). It is built from frozen artifacts only
(:func:`plan_stage_context`, :func:`assessment_stage_context`, :func:`interpretation_stage_context`),
so a replayed revision rebuilds it byte for byte.
"""

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, ValidationError, model_serializer

from vba_assets.domain.base import StrictModel
from vba_assets.domain.case.builder import Case
from vba_assets.domain.catalog.matching import MatchTier, RankedCandidate
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.world import RelationResult, Scalar, ZoneResult
from vba_assets.domain.resolution.aliases import ResolutionContext
from vba_assets.domain.resolution.batched import batched_origins, planned_searches
from vba_assets.domain.resolution.models import (
    SEARCH_ROLES,
    CandidateIndex,
    IdentityReference,
    MentionCitation,
    ResolutionPlanOutput,
    SearchRole,
)
from vba_assets.errors import ErrorCode, StoreError


class SourceView(StrictModel):
    """A case source as the model sees it (unreadable sources carry no text)."""

    alias: str
    kind: str
    name: str | None = None
    readable: bool
    text: str | None = None
    unreadable_reason: str | None = None


class CatalogView(StrictModel):
    """A catalog the plan may name; tables and columns are never shown."""

    name: str
    entity_type: str
    kind: Literal["name", "localized_name"]


def catalog_of_kind(kind: str, catalogs: Sequence[CatalogView]) -> str | None:
    """The name of the first catalog of ``kind`` (``name`` or ``localized_name``), or None."""
    return next((c.name for c in catalogs if c.kind == kind), None)


class PlanStageContext(StrictModel):
    """Model call 1: the readable sources and the catalogs."""

    stage: Literal["resolution_plan"] = "resolution_plan"
    case_id: str
    sources: list[SourceView]
    catalogs: list[CatalogView]
    max_searches: int
    roles: list[SearchRole] = Field(default_factory=lambda: list(SEARCH_ROLES))


class CandidateView(StrictModel):
    """One ranked candidate of a search, with its capture row."""

    candidate_id: str
    identity: int | str
    name: str
    tier: MatchTier
    catalog: str
    catalog_kind: str
    capture_row: int
    data: dict[str, Scalar]
    other_names: list[str] = Field(
        default_factory=list, description="Other matching rows of the same entity (e.g. locales)."
    )


class ExactView(StrictModel):
    """Protocol v6: the exact-name capture that completes a truncated search, and its candidates.

    ``unique``: the capture is complete and holds one entity whose name equals the term; only
    then may that candidate be selected, citing this capture and its row.
    """

    capture_alias: str
    truncated: bool
    unique: bool
    candidates: list[CandidateView]
    quest_relations: RelationResult | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The exact capture's quest relations when it holds a tie (tie-break facts).",
    )
    zone_markers: ZoneResult | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The exact capture's zone markers when it holds a tie (tie-break facts).",
    )


class SearchView(StrictModel):
    """One executed search and its candidates."""

    search_id: str
    term: str
    catalog: str
    role: SearchRole
    mentions: list[MentionCitation]
    capture_alias: str
    truncated: bool
    candidates: list[CandidateView]
    reference: IdentityReference | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Protocol v4: the identity the report links, fetched instead of the term.",
    )
    quest_relations: RelationResult | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Protocol v6: the quests the candidates named exactly the term start or "
        "end, with every title (grounded tie-break facts of the capture).",
    )
    zone_markers: ZoneResult | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Protocol v6: the zones the candidates named exactly the term have spawn "
        "markers in, with every zone name (grounded tie-break facts of the capture).",
    )
    exact: ExactView | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Protocol v6: the exact-name capture that completes this truncated search.",
    )
    corrected_from: MentionCitation | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Protocol v6: the misspelled mention whose text the term corrects; select "
        "only a candidate one of whose names is exactly the term.",
    )
    unsearched: int | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Protocol v6: a batched name's search: the position of the name in the "
        "plan's unsearched list; its capture holds only the rows named exactly the term.",
    )


class AssessmentStageContext(StrictModel):
    """Model call 2: the sources and every search with its candidates."""

    stage: Literal["resolution_assessment"] = "resolution_assessment"
    case_id: str
    sources: list[SourceView]
    searches: list[SearchView]


class CaseHeader(StrictModel):
    """Case facts the interpretation needs besides the sources."""

    case_id: str
    title: str | None
    reported_at: str = Field(description="UTC, ISO-8601: the anchor for relative dates.")
    reported_at_offset: str | None = Field(
        default=None, description="The reporter's UTC offset, e.g. '+02:00', for local days."
    )


class CandidateLabel(StrictModel):
    """A competing candidate of an unresolved identity: its identity and catalog name (v4)."""

    identity: int | str
    name: str


#: Fields of :class:`InterpretationStageContext` that protocol v4 added; absent (not null) in the
#: serialized context when unset, so the requests of protocol v1-v3 keep their bytes.
_V4_CONTEXT_FIELDS = ("protocol_version", "candidate_names")


class InterpretationStageContext(StrictModel):
    """Model call 3: the frozen case plus, when resolution ran, its F/N/D aliases."""

    stage: Literal["interpretation"] = "interpretation"
    case: CaseHeader
    sources: list[SourceView]
    resolution: ResolutionContext | None = Field(
        default=None, description="None when entity resolution is disabled (unresolved prompt)."
    )
    protocol_version: int | None = Field(
        default=None,
        description="From protocol v4: the protocol whose contract the reply is judged by (set "
        "by the request builder, so a local provider answers in that contract).",
    )
    candidate_names: dict[str, list[CandidateLabel]] | None = Field(
        default=None,
        description="From protocol v4: D alias -> its competing candidates with their catalog "
        "names, so a clarification can name them (built from the candidate index).",
    )

    @model_serializer(mode="wrap")
    def _omit_unset_v4_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in _V4_CONTEXT_FIELDS:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @property
    def complete(self) -> bool:
        """Whether the reply is judged by the complete contract (protocol v4 on)."""
        return (self.protocol_version or 0) >= 4


# --- stage contexts from frozen artifacts ---------------------------------------------------------


def _case(case_doc: Mapping[str, Any]) -> Case:
    try:
        return Case.model_validate(case_doc)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "/".join(str(part) for part in error["loc"])
        raise StoreError(
            ErrorCode.ARTIFACT_CORRUPT,
            f"case.json is not a valid case: {where}: {error['msg']}",
            artifact="case.json",
        ) from None


def source_views(case: Case) -> list[SourceView]:
    """The sources as a model sees them: unreadable ones carry no text."""
    return [
        SourceView(
            alias=source.alias,
            kind=source.kind,
            name=source.name,
            readable=source.readable,
            text=source.text if source.readable else None,
            unreadable_reason=source.unreadable_reason,
        )
        for source in case.sources
    ]


def plan_stage_context(
    case_doc: Mapping[str, Any], catalogs: Sequence[CatalogConfig], max_searches: int
) -> PlanStageContext:
    """Model call 1 sees the sources and the catalog names (never tables or columns)."""
    case = _case(case_doc)
    return PlanStageContext(
        case_id=case.case_id,
        sources=source_views(case),
        catalogs=[
            CatalogView(name=c.name, entity_type=c.entity_type, kind=c.kind) for c in catalogs
        ],
        max_searches=max_searches,
    )


def _candidate_views(
    ids: Sequence[str], candidates: Sequence[RankedCandidate]
) -> list[CandidateView]:
    return [
        CandidateView(
            candidate_id=candidate_id,
            identity=candidate.identity,
            name=candidate.name,
            tier=candidate.tier,
            catalog=candidate.catalog,
            catalog_kind=candidate.catalog_kind,
            capture_row=candidate.source_index,
            data=candidate.data,
            other_names=list(
                dict.fromkeys(r.name for r in candidate.also_matched if r.name != candidate.name)
            ),
        )
        for candidate_id, candidate in zip(ids, candidates, strict=True)
    ]


def assessment_stage_context(
    case_doc: Mapping[str, Any],
    plan: ResolutionPlanOutput,
    candidate_index: CandidateIndex,
    batched: bool = False,
) -> AssessmentStageContext:
    """Model call 2 sees the sources and every search with its ranked candidates (``batched``,
    protocol v6: the batched names' searches too, :mod:`.resolution.batched`)."""
    case = _case(case_doc)
    planned = [search for _, search in planned_searches(plan, batched)]
    origins = batched_origins(plan, batched)
    if len(planned) != len(candidate_index.searches):
        raise StoreError(
            ErrorCode.ARTIFACT_CORRUPT,
            f"candidates.json has {len(candidate_index.searches)} searches, the plan "
            f"{len(planned)}",
            artifact="candidates.json",
        )
    searches = []
    for proposed, search in zip(planned, candidate_index.searches, strict=True):
        exact = search.exact
        searches.append(
            SearchView(
                search_id=search.search_id,
                term=search.term,
                catalog=search.catalog,
                role=search.role,
                mentions=list(proposed.mentions),
                capture_alias=search.capture_alias,
                truncated=search.truncated,
                candidates=_candidate_views(search.candidate_ids, search.candidates),
                reference=proposed.reference,
                corrected_from=proposed.corrected_from,
                unsearched=origins.get(search.search_id),
                quest_relations=search.quest_relations,
                zone_markers=search.zone_markers,
                exact=None
                if exact is None
                else ExactView(
                    capture_alias=exact.capture_alias,
                    truncated=exact.truncated,
                    unique=exact.unique,
                    candidates=_candidate_views(exact.candidate_ids, exact.candidates),
                    quest_relations=exact.quest_relations,
                    zone_markers=exact.zone_markers,
                ),
            )
        )
    return AssessmentStageContext(
        case_id=case.case_id, sources=source_views(case), searches=searches
    )


def candidate_names(
    resolution_context: ResolutionContext, candidate_index: CandidateIndex
) -> dict[str, list[CandidateLabel]]:
    """D alias -> its competing candidates (identity and catalog name), from the candidate index."""
    searches = {search.search_id: search for search in candidate_index.searches}
    names: dict[str, list[CandidateLabel]] = {}
    for unresolved in resolution_context.unresolved:
        search = searches.get(unresolved.search_id)
        known = {c.identity: c.name for c in search.candidates} if search is not None else {}
        if search is not None and search.exact is not None:  # protocol v6
            known = {c.identity: c.name for c in search.exact.candidates} | known
        names[unresolved.alias] = [
            CandidateLabel(identity=identity, name=known[identity])
            for identity in unresolved.candidate_identities
            if identity in known
        ]
    return names


def interpretation_stage_context(
    case_doc: Mapping[str, Any],
    resolution_context: ResolutionContext | None,
    candidate_index: CandidateIndex | None = None,
) -> InterpretationStageContext:
    """Model call 3 sees the case header, the sources and, when resolution ran, F/N/D aliases.

    ``candidate_index`` (protocol v4 callers): adds the competing candidates' names of every D
    alias (:func:`candidate_names`); without it a v4 context has no names, only identities.
    """
    case = _case(case_doc)
    names = (
        candidate_names(resolution_context, candidate_index)
        if resolution_context is not None and candidate_index is not None
        else None
    )
    return InterpretationStageContext(
        case=CaseHeader(
            case_id=case.case_id,
            title=case.title,
            reported_at=case.reported_at,
            reported_at_offset=case.reported_at_offset,
        ),
        sources=source_views(case),
        resolution=resolution_context,
        candidate_names=names,
    )
