"""The structured content of each model stage (``ModelRequest.stage_context``).

One model per stage holds exactly what the stage may see. The request builders render it into the
user message (so a real model reads the same facts), and the deterministic heuristic provider reads
it directly (so it never parses prompts). It is built from frozen artifacts only, so a replayed
revision rebuilds it byte for byte.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from vba_assets.domain.matching import MatchTier
from vba_assets.domain.research import Scalar
from vba_assets.domain.resolution_models import (
    SEARCH_ROLES,
    MentionCitation,
    ResolutionContext,
    SearchRole,
)


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceView(_Frozen):
    """A case source as the model sees it (unreadable sources carry no text)."""

    alias: str
    kind: str
    name: str | None = None
    readable: bool
    text: str | None = None
    unreadable_reason: str | None = None


class CatalogView(_Frozen):
    """A catalog the plan may name; tables and columns are never shown."""

    name: str
    entity_type: str
    kind: Literal["name", "localized_name"]


class PlanStageContext(_Frozen):
    """Model call 1: the readable sources and the catalogs."""

    stage: Literal["resolution_plan"] = "resolution_plan"
    case_id: str
    sources: list[SourceView]
    catalogs: list[CatalogView]
    max_searches: int
    roles: list[SearchRole] = Field(default_factory=lambda: list(SEARCH_ROLES))


class CandidateView(_Frozen):
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


class SearchView(_Frozen):
    """One executed search and its candidates."""

    search_id: str
    term: str
    catalog: str
    role: SearchRole
    mentions: list[MentionCitation]
    capture_alias: str
    truncated: bool
    candidates: list[CandidateView]


class AssessmentStageContext(_Frozen):
    """Model call 2: the sources and every search with its candidates."""

    stage: Literal["resolution_assessment"] = "resolution_assessment"
    case_id: str
    sources: list[SourceView]
    searches: list[SearchView]


class CaseHeader(_Frozen):
    """Case facts the interpretation needs besides the sources."""

    case_id: str
    title: str | None
    reported_at: str = Field(description="UTC, ISO-8601: the anchor for relative dates.")
    reported_at_offset: str | None = Field(
        default=None, description="The reporter's UTC offset, e.g. '+02:00', for local days."
    )


class InterpretationStageContext(_Frozen):
    """Model call 3: the frozen case plus, when resolution ran, its F/N/D aliases."""

    stage: Literal["interpretation"] = "interpretation"
    case: CaseHeader
    sources: list[SourceView]
    resolution: ResolutionContext | None = Field(
        default=None, description="None when entity resolution is disabled (unresolved prompt)."
    )
