"""Entity-resolution artifacts and model outputs (ARCHITECTURE 6; seed entity-resolution.txt).

Two kinds of models live here:

* **Model outputs** (:class:`ResolutionPlanOutput`, :class:`ResolutionAssessmentOutput`): what a model
  (or the heuristic baseline) must reply. Strict (``extra="forbid"``): there is no field in which a
  table, a column, SQL, a URL or a credential could be expressed. Field descriptions reach the model
  through the JSON schema.
* **Controller artifacts** (:class:`CaptureArtifact`, :class:`CandidateIndex`): written by the
  controller, never by a model. The resolution context and its F/N/D aliases
  (:class:`~.aliases.ResolutionContext`) are in :mod:`.aliases`.

The rules that go beyond the schema (grounding, limits, candidate membership) are in
:mod:`.rules` (the plan) and :mod:`.assessment_rules`; they produce
:class:`~vba_assets.domain.findings.Finding` lists that feed the correction loop.
"""

import typing
from typing import Literal

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.catalog.identity_digits import MAX_IDENTITY
from vba_assets.domain.catalog.matching import RankedCandidate
from vba_assets.domain.catalog.world import RelationResult, SearchResult, ZoneResult
from vba_assets.domain.limits import MAX_MENTIONS, MAX_QUOTE_CHARS, MAX_TERM_CHARS

#: The contextual roles a search may give a name. A role is a model's contextual reading of the
#: report, never evidence of cause.
SearchRole = Literal["affected_subject", "quest_giver", "location_context", "other_context"]
SEARCH_ROLES: tuple[SearchRole, ...] = typing.get_args(SearchRole)

#: How every model-selected entity is labelled in the interpretation context.
SELECTION_ROLE_LABEL: Literal["model_contextual_selection_not_causation"] = (
    "model_contextual_selection_not_causation"
)


# --------------------------------------------------------------------------------------------
# Model output: the plan (model call 1)


class MentionCitation(StrictModel):
    """An exact span of a readable case source."""

    source: str = Field(description="Source alias from the case, e.g. 'S2'.", pattern=r"^S[0-9]+$")
    quote: str = Field(
        min_length=1,
        max_length=MAX_QUOTE_CHARS,
        description="The exact text of the span, copied character for character from the source.",
    )
    start: int = Field(ge=0, description="Offset of the span's first character in the source text.")
    end: int = Field(ge=1, description="Offset just past the span's last character (exclusive).")


def is_unset(value: object) -> bool:
    """A protocol v4 field at its default is left out of the JSON: v1-v3 artifacts keep their bytes."""
    return value is None or value == [] or value == ""


class IdentityReference(StrictModel):
    """A database identity the report itself gives for the entity: a link to the entity's page of
    a public database ('https://www.wowhead.com/npc=3432/mankrik', '...?npc=3432') or its id
    written beside the name ('Loolruna (id 19694)'). The controller fetches that identity instead
    of searching the term. A link proves only what was linked: the assessment may select it only
    when the report's own words agree with one of the fetched names."""

    identity: int = Field(ge=1, le=MAX_IDENTITY, description="The linked identity, e.g. 3432.")
    link: MentionCitation = Field(
        description="The exact span that holds the identity's digits: the link, the URL or the "
        "id written beside the name (its digits must occur in it as a whole number)."
    )


class ProposedSearch(StrictModel):
    """One literal name search the controller may run, or a fetch of an identity the report
    links (with ``reference``)."""

    term: str = Field(
        min_length=1,
        max_length=MAX_TERM_CHARS,
        description="The name to search for, exactly as it occurs inside every cited quote "
        "(a singular inside a plural is fine: 'Wolpertinger' inside 'Wolpertingers'), or, with "
        "corrected_from, the corrected spelling of a misspelled name ('Onyxia' for 'Onixya').",
    )
    catalog: str = Field(description="One of the configured catalog names listed in the request.")
    role: SearchRole = Field(
        description="The contextual role of the named entity in the report: the affected subject "
        "(what the report is about), a quest giver, a location, or other context."
    )
    mentions: list[MentionCitation] = Field(
        min_length=1, max_length=MAX_MENTIONS, description="Where the report names it."
    )
    corrected_from: MentionCitation | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Only for a misspelled name the report writes (no catalog name holds it as "
        "written): one of the mentions, whose text the term corrects. The term is then the "
        "corrected name, letters, spaces, apostrophes and hyphens only, at most 2 letter edits "
        "from the quote (case, accents, spaces and punctuation ignored).",
    )
    reference: IdentityReference | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Only when the report links or writes the entity's database id: the id and "
        "the span that holds it. The controller then fetches that id instead of searching the "
        "term; the term stays the report's own words for the entity (the link text or the name "
        "beside the link), or the id's digits when the report names it only by the link.",
    )

    @property
    def is_reference(self) -> bool:
        """True for an identity-reference search (protocol v4)."""
        return self.reference is not None


class UnsearchedName(StrictModel):
    """A name the report gives that the plan does not search because max_searches is reached."""

    term: str = Field(
        min_length=1, max_length=MAX_TERM_CHARS, description="The name as the report writes it."
    )
    mentions: list[MentionCitation] = Field(
        min_length=1, max_length=MAX_MENTIONS, description="Where the report names it."
    )
    role: SearchRole = Field(description="Its contextual role, as for a search.")


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


# --------------------------------------------------------------------------------------------
# Model output: the assessment (model call 2)


class EvidenceQuote(StrictModel):
    """Report context that supports a decision, beyond the bare name."""

    source: str = Field(pattern=r"^S[0-9]+$")
    quote: str = Field(min_length=1, max_length=500, description="Exact text from that source.")


class GroundedTiebreak(StrictModel):
    """Protocol v6: the grounded fact that tells the selected candidate apart from the other
    candidates of its search that carry the same name."""

    fact: Literal["quest", "link", "data_column", "zone", "level"] = Field(
        description="'quest': the report names a quest that the selected entity starts or ends "
        "and none of the others does; 'link': the report links the selected identity "
        "(npc=<id>) or writes its digits as a number of their own ('ID of the NPC: 21140'); "
        "'data_column': the report states a data column value only it has (its subname, or "
        "the word 'boss' for the only one of rank 3); 'zone': the report names a zone that "
        "only the selected entity has spawn markers in; 'level': the selected entity is the "
        "only one above level 1 (maxlevel), every other one of that name is a level-1 script "
        "copy, and the span is the selection's own mention."
    )
    span: MentionCitation = Field(
        description="The exact report span of the fact: the quest title, the link or the "
        "written number, the column value as the report writes it, or (with 'level') the "
        "selection's mention."
    )
    relation_row: int | None = Field(
        default=None,
        ge=0,
        description="With 'quest': the row of this search's quest relations (its capture) whose "
        "title the span names.",
    )
    column: str | None = Field(
        default=None,
        description="With 'data_column': the data column whose value the span states ('subname', "
        "'Title', or 'rank' for the word 'boss').",
    )
    zone_row: int | None = Field(
        default=None,
        ge=0,
        exclude_if=is_unset,
        description="With 'zone': the row of this search's zone markers (its capture) whose "
        "zone name the span names.",
    )


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
    tiebreak: GroundedTiebreak | None = Field(
        default=None,
        exclude_if=is_unset,
        description="With 'selected', when other candidates of the search carry the same name: "
        "the grounded fact that tells the selected one apart. Without one, answer 'ambiguous'.",
    )


class ResolutionAssessmentOutput(StrictModel):
    """Model call 2: exactly one verdict per search."""

    assessments: list[SearchAssessmentOutput]


# --------------------------------------------------------------------------------------------
# Controller artifacts


class CaptureArtifact(StrictModel):
    """``captures/<sha256>.json``: one executed search, content-addressed.

    ``schema_version`` 1 (protocol v1/v2) holds the query time in ``result.elapsed_ms``; version 2
    holds none (it is in the ``captured`` event).
    """

    schema_version: Literal[1, 2] = 1
    search_id: str
    search: ProposedSearch
    result: SearchResult
    quest_relations: RelationResult | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v6: the quests that the entities named exactly the term start or "
        "end, with every title (a grounded tie-break fact), queried with the capture.",
    )
    zone_markers: ZoneResult | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v6: the zones that the entities named exactly the term have spawn "
        "markers in, with every zone name (a grounded tie-break fact), queried with the capture.",
    )
    kind: Literal["exact_name", "batched_exact_name"] | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v6: 'exact_name' for the exact-name query that completes a "
        "truncated contains capture of the same search; 'batched_exact_name' for the own "
        "capture of a batched name's search (an exact-name query); absent for the own capture "
        "of a plan search.",
    )
    completes: str | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v6, with kind 'exact_name': the sha256 of the truncated capture "
        "this one completes.",
    )

    @property
    def key(self) -> str:
        """``Q1`` for a search's own capture (a batched name's included), ``Q1/exact_name`` for
        its exact-name capture."""
        return capture_key(self.search_id, self.kind)


#: The kind of capture that completes a truncated contains capture (protocol v6).
EXACT_NAME: Literal["exact_name"] = "exact_name"
#: The kind of a batched name's own capture (protocol v6, :mod:`.batched`).
BATCHED_EXACT_NAME: Literal["batched_exact_name"] = "batched_exact_name"


def capture_key(search_id: str, kind: str | None = None) -> str:
    """How captures are told apart in a revision: one per (search, kind); a batched name's
    capture is its search's own."""
    return search_id if kind in (None, BATCHED_EXACT_NAME) else f"{search_id}/{kind}"


class ExactCoverage(StrictModel):
    """Protocol v6: the exact-name capture that completes a truncated search, ranked.

    ``unique`` is the controller's verdict: the capture is complete (not truncated) and every
    row is of one entity, whose name equals the term after
    :func:`~vba_assets.domain.catalog.names.normalize_for_match`; only then may its candidate be
    selected (citing this capture and its row).
    """

    capture_sha256: str
    capture_alias: str
    truncated: bool
    unique: bool
    candidates: list[RankedCandidate]
    candidate_ids: list[str]
    quest_relations: RelationResult | None = Field(
        default=None,
        exclude_if=is_unset,
        description="The exact-name capture's quest relations when it holds a tie (grounded "
        "tie-break facts).",
    )
    zone_markers: ZoneResult | None = Field(
        default=None,
        exclude_if=is_unset,
        description="The exact-name capture's zone markers when it holds a tie (grounded "
        "tie-break facts).",
    )


class SearchCandidates(StrictModel):
    """The ranked candidates of one search, each pointing to its capture row."""

    search_id: str
    term: str
    catalog: str
    role: SearchRole
    capture_sha256: str
    capture_alias: str
    truncated: bool
    candidates: list[RankedCandidate]
    candidate_ids: list[str]
    reference: IdentityReference | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v4: the identity this search fetched instead of a contains search.",
    )
    quest_relations: RelationResult | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v6: the capture's quest relations (grounded tie-break facts).",
    )
    zone_markers: ZoneResult | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v6: the capture's zone markers (grounded tie-break facts).",
    )
    exact: ExactCoverage | None = Field(
        default=None,
        exclude_if=is_unset,
        description="Protocol v6: the exact-name capture that completes this truncated search.",
    )

    def candidate(self, candidate_id: str | None) -> RankedCandidate | None:
        """The candidate ``candidate_id`` names: of this search's capture or (v6) of its
        exact-name capture; None when neither holds it."""
        for ids, candidates in (
            (self.candidate_ids, self.candidates),
            (self.exact.candidate_ids, self.exact.candidates) if self.exact else ([], []),
        ):
            if candidate_id in ids:
                return candidates[ids.index(candidate_id)]
        return None

    def in_exact(self, candidate_id: str | None) -> bool:
        """Whether ``candidate_id`` is a candidate of the exact-name capture (v6)."""
        return self.exact is not None and candidate_id in self.exact.candidate_ids


class CandidateIndex(StrictModel):
    """``candidates.json``: the deterministic merge of the captures."""

    schema_version: Literal[1] = 1
    searches: list[SearchCandidates]
