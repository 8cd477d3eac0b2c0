"""The plan's output schema of protocols 4-5, kept byte for byte (pure).

Protocol 6 added ``corrected_from`` to
:class:`~vba_assets.domain.resolution.models.ProposedSearch` (issue 29 item 5: a misspelled name
searched by its corrected spelling) and reworded the term's description. A revision frozen at
protocol 4 or 5 must still send, and be judged by, the schema it was made with: these copies are
that schema (the same class names, docstrings and field descriptions, so the JSON schema is the
one those revisions sent), and they refuse ``corrected_from``.
:func:`~vba_assets.domain.resolution.legacy.plan_output_model` chooses per protocol.
"""

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.limits import MAX_MENTIONS, MAX_TERM_CHARS
from vba_assets.domain.resolution.models import (
    IdentityReference,
    MentionCitation,
    SearchRole,
    UnsearchedName,
    is_unset,
)


class ProposedSearch(StrictModel):
    """One literal name search the controller may run, or a fetch of an identity the report
    links (with ``reference``)."""

    term: str = Field(
        min_length=1,
        max_length=MAX_TERM_CHARS,
        description="The name to search for, exactly as it occurs inside every cited quote "
        "(a singular inside a plural is fine: 'Wolpertinger' inside 'Wolpertingers').",
    )
    catalog: str = Field(description="One of the configured catalog names listed in the request.")
    role: SearchRole = Field(
        description="The contextual role of the named entity in the report: the affected subject "
        "(what the report is about), a quest giver, a location, or other context."
    )
    mentions: list[MentionCitation] = Field(
        min_length=1, max_length=MAX_MENTIONS, description="Where the report names it."
    )
    reference: IdentityReference | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Only when the report links or writes the entity's database id: the id and "
        "the span that holds it. The controller then fetches that id instead of searching the "
        "term; the term stays the report's own words for the entity (the link text or the name "
        "beside the link), or the id's digits when the report names it only by the link.",
    )


class ResolutionPlanOutput(StrictModel):
    """Model call 1: the grounded searches to run. An empty list is valid (no entity named)."""

    searches: list[ProposedSearch] = Field(
        description="At most max_searches searches, no duplicate (term, catalog) pair."
    )
    unsearched: list[UnsearchedName] = Field(
        default_factory=list,
        exclude_if=is_unset,
        description="Names the report gives that are left out because max_searches is reached "
        "(the least informative ones); they become unknowns of the interpretation.",
    )
