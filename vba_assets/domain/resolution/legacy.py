"""The plan's output schema of protocols 1-3, kept byte for byte (pure).

Protocol 4 added identity references and unsearched names to
:class:`~vba_assets.domain.resolution.models.ProposedSearch` and
:class:`~vba_assets.domain.resolution.models.ResolutionPlanOutput` (fields left out of the JSON
when unset, so older artifacts keep their bytes). A revision frozen at protocol 1-3 must still
send, and be judged by, the schema it was made with: these copies are that schema. They carry the
same class names, docstrings and field descriptions as the originals, so their JSON schema is
identical to the one those revisions sent (``tests/golden`` pins it), and they refuse the fields a
later protocol added. :func:`plan_output_model` chooses per protocol.

Protocol 6 added the grounded ``tiebreak`` of an assessment's verdict (issue 29 item 4); the
assessment schema of protocols 1-5 is kept the same way (:func:`assessment_output_model`).
"""

from typing import Literal

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.resolution import legacy_v4, models
from vba_assets.domain.resolution.models import EvidenceQuote, MentionCitation, SearchRole


class ProposedSearch(StrictModel):
    """One literal name search the controller may run."""

    term: str = Field(
        min_length=1,
        max_length=100,
        description="The name to search for, exactly as it occurs inside every cited quote "
        "(a singular inside a plural is fine: 'Wolpertinger' inside 'Wolpertingers').",
    )
    catalog: str = Field(description="One of the configured catalog names listed in the request.")
    role: SearchRole = Field(
        description="The contextual role of the named entity in the report: the affected subject "
        "(what the report is about), a quest giver, a location, or other context."
    )
    mentions: list[MentionCitation] = Field(
        min_length=1, max_length=8, description="Where the report names it."
    )


class ResolutionPlanOutput(StrictModel):
    """Model call 1: the grounded searches to run. An empty list is valid (no entity named)."""

    searches: list[ProposedSearch] = Field(
        description="At most max_searches searches, no duplicate (term, catalog) pair."
    )


def plan_output_model(
    identity_references: bool, corrected_terms: bool = False
) -> type[StrictModel]:
    """The plan schema a protocol sends and validates replies with: the current
    :class:`~vba_assets.domain.resolution.models.ResolutionPlanOutput` when the protocol has
    corrected terms (v6 on), the v4-v5 copy of :mod:`.legacy_v4` when it has identity references
    (v4, v5), else this module's v1-v3 copy."""
    if corrected_terms:
        return models.ResolutionPlanOutput
    return legacy_v4.ResolutionPlanOutput if identity_references else ResolutionPlanOutput


def as_current_plan(value: StrictModel) -> models.ResolutionPlanOutput:
    """A validated plan of either schema as the current model (the same JSON either way)."""
    if isinstance(value, models.ResolutionPlanOutput):
        return value
    return models.ResolutionPlanOutput.model_validate(value.model_dump(mode="json"))


class SearchAssessmentOutput(StrictModel):
    """The verdict on one search."""

    search_id: str = Field(pattern=r"^Q[0-9]+$", description="The search, e.g. 'Q1'.")
    status: Literal["selected", "ambiguous", "no_match"]
    candidate_id: str | None = Field(
        default=None,
        description="With 'selected': the chosen candidate of THIS search, e.g. 'Q1-C1'.",
    )
    capture: str | None = Field(
        default=None, description="With 'selected': the F alias of this search's capture."
    )
    capture_row: int | None = Field(
        default=None, ge=0, description="With 'selected': the candidate's row in that capture."
    )
    mention: MentionCitation | None = Field(
        default=None, description="With 'selected': one of this search's cited mentions."
    )
    competing_candidate_ids: list[str] = Field(
        default_factory=list, description="With 'ambiguous': the candidates that remain possible."
    )
    evidence: list[EvidenceQuote] = Field(
        default_factory=list,
        description="With 'selected': report context that supports the choice; a similar name "
        "alone is not a justification.",
    )
    rationale: str = Field(min_length=1, max_length=1000)


class ResolutionAssessmentOutput(StrictModel):
    """Model call 2: exactly one verdict per search."""

    assessments: list[SearchAssessmentOutput]


def assessment_output_model(grounded_tiebreaks: bool) -> type[StrictModel]:
    """The assessment schema a protocol sends and validates replies with: the current
    :class:`~vba_assets.domain.resolution.models.ResolutionAssessmentOutput` (with ``tiebreak``)
    from grounded tie-breaks on (v6), else this module's v1-v5 copy."""
    return models.ResolutionAssessmentOutput if grounded_tiebreaks else ResolutionAssessmentOutput


def as_current_assessment(value: StrictModel) -> models.ResolutionAssessmentOutput:
    """A validated assessment of either schema as the current model (the same JSON either way)."""
    if isinstance(value, models.ResolutionAssessmentOutput):
        return value
    return models.ResolutionAssessmentOutput.model_validate(value.model_dump(mode="json"))
