"""The resolution context's aliases (ARCHITECTURE 6.5): ``F`` facts, ``N`` selected entities,
``D`` unresolved identities and the names not examined, and ``context.json`` that holds them. Split
from :mod:`.models` (the model outputs and the controller's capture and candidate artifacts), which
they refer to."""

from typing import Literal

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.resolution.models import (
    SELECTION_ROLE_LABEL,
    MentionCitation,
    SearchRole,
    is_unset,
)


class FactAlias(StrictModel):
    """``F<n>``: a captured technical lookup fact."""

    alias: str
    pointer: str
    search_id: str
    catalog: str
    term: str
    truncated: bool
    rows: int
    completes: str | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v6: for an exact-name capture, the F alias of the truncated "
        "capture it completes.",
    )


class SelectedEntityAlias(StrictModel):
    """``N<n>``: a model-selected entity with exact capture-row provenance."""

    alias: str
    search_id: str
    entity_type: str
    identity: int | str
    name: str
    catalog: str
    capture_pointer: str
    capture_row: int
    mentions: list[MentionCitation]
    assessment_pointer: str
    role: SearchRole
    role_label: Literal["model_contextual_selection_not_causation"] = SELECTION_ROLE_LABEL
    merged_search_ids: list[str] = Field(
        default_factory=list,
        exclude_if=is_unset,
        description="Protocol v6: the other searches that selected the same entry (their "
        "mentions are in ``mentions``; ``search_id`` and the pointers are the representative's).",
    )


#: Why an identity stays unresolved. ``link_disagrees`` (protocol v4): the report links an
#: identity whose names its words do not match; ``not_searched`` (v4): a name the plan left out
#: because ``max_searches`` was reached.
UnresolvedStatus = Literal["ambiguous", "no_match", "truncated", "link_disagrees", "not_searched"]


class UnresolvedIdentityAlias(StrictModel):
    """``D<n>``: an identity the resolution could not settle."""

    alias: str
    search_id: str
    term: str
    role: SearchRole
    status: UnresolvedStatus
    candidate_identities: list[int | str]
    mentions: list[MentionCitation]
    assessment_pointer: str
    linked_identity: int | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v4: the identity the report links (an identity-reference search).",
    )
    linked_names: list[str] = Field(
        default_factory=list,
        exclude_if=is_unset,
        description="Protocol v4, ``link_disagrees``: the linked entity's names (every locale "
        "captured), none of which the report's words match.",
    )


class NotExaminedName(StrictModel):
    """Protocol v5: a name the plan left unsearched that got no ``D`` alias because the context
    already holds ``MAX_UNRESOLVED`` of them (:mod:`vba_assets.domain.limits`); it needs no
    unknown."""

    term: str
    role: SearchRole
    mentions: list[MentionCitation]
    pointer: str
    reason: str


class ResolutionContext(StrictModel):
    """``context.json``: F, N and D aliases added to the interpretation context (not to case.json)."""

    schema_version: Literal[1] = 1
    facts: list[FactAlias]
    selected: list[SelectedEntityAlias]
    unresolved: list[UnresolvedIdentityAlias]
    not_examined: list[NotExaminedName] = Field(
        default_factory=list,
        exclude_if=is_unset,
        description="Protocol v5: unsearched names over the limit of D aliases (no alias).",
    )
