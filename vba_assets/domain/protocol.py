"""Stage protocol versions: how a revision's requests, rules and artifacts are built.

A revision freezes its protocol version when it starts (``input.json``). Everything that decides
the bytes of a request, whether a reply is accepted, or what an artifact holds is chosen by that
version, so a revision keeps replaying byte for byte and verifying under the rules it was made
with, whatever was added later. A new rule, a new wording or a new artifact format is a new
version here; an old version is never changed.

=======  =====================================================================================
version  what it changed
=======  =====================================================================================
1        the first protocol: the output schema reaches the model only through the provider's
         output channel (tool / response format)
2        the output schema also ends the user message (providers in ``json_object`` mode receive
         no schema otherwise)
3        content without timing: captures and dispatch records hold no wall-clock values (query
         time, ``started_at``, ``elapsed_ms`` go to ``events.jsonl``), so the same case, replies
         and snapshot give byte-identical artifacts in any workspace; correction rounds name each
         rule by its own code instead of ``LLM_OUTPUT_RULES``
4        (under construction in this release, not yet frozen by a published revision) the
         prompt version ``v2`` and the changes of the quality, interpretation and provider work:
         each adds its own :class:`ProtocolSpec` flag, true from 4 on, and its rules ``since=4``;
         sealed records: ``events.jsonl`` must be hash-chained, the ``started`` event binds both
         frozen inputs and ``package.json`` by sha256, and each ``accepted`` event binds the stage
         artifact, its accepted dispatch record, that record's context manifest and every
         rejected record before it, so every file of a completed revision is reachable by hash
         (artifact bytes are unchanged: they stay content, equal for equal replies);
         cache-first requests (issue 15): the output schema is sent once, in the provider's
         structured-output channel when its dialect has one (strict tool, JSON output,
         ``json_schema``), else once at the end of the system text; the data notice, the offsets
         note and every other fixed text close the system text, so the user message holds
         per-case data only; a correction round shows each issue's offending value at its path
         the complete interpretation contract: out-of-scope classes with consequences, relative
         dates in eight languages, restatements that name the selected subjects, clarifications
         that name the candidates, name-only evidence refused; context manifests that account
         for the conversation history and callbacks
5        limits that cannot contradict each other (issue 30, :mod:`vba_assets.domain.limits`):
         a resolution context holds at most ``MAX_UNRESOLVED`` D aliases (the unsearched names
         past it are ``not_examined``, over the limit, with no alias); the interpretation's
         ``unknowns`` has room for every D alias and every unresolvable date; a clarification
         names the subjects whose listing fits its budget (the first always)
6        (under construction in this release, not yet frozen by a published revision) resolution
         quality on unseen reports (issue 29), with prompt version ``v3``: each change adds its
         own :class:`ProtocolSpec` flag, true from 6 on, and its rules ``since=6``; grounded
         tie-breaks: a capture whose rows hold several entities named exactly the term also
         records their quest relations (``quest_relations``) and zones (``zone_markers``), and a
         selection among them cites the grounded fact that tells them apart (``tiebreak``: a
         quest title, a zone name, a link id or a data column); one N alias per selected entry (the mentions of every search that
         selected it), observation sentences split outside URLs and markup; causal wording
         refused in the reporters' languages; exact-name coverage: a truncated contains capture
         is completed by a literal exact-name capture (kind ``exact_name``) whose complete,
         unique row may ground a selection; corrected terms: a name search may carry
         ``corrected_from``, the cited span whose misspelled text the term corrects (a bounded
         edit distance, :mod:`vba_assets.domain.resolution.corrections`), and a selection from
         it names the corrected term exactly; batched exact names: the names a plan leaves
         unsearched (past ``max_searches``) are each looked up by one exact-name query and
         assessed as searches of their own (kind ``batched_exact_name``)
=======  =====================================================================================

:data:`RULES` records which version introduced each rule of the three model stages; a validator
run for a revision reports only the rules of its version (:meth:`ProtocolSpec.applies`).
"""

from dataclasses import dataclass, replace
from typing import Literal

from vba_assets.errors import ErrorCode, StoreError

ProtocolVersion = Literal[1, 2, 3, 4, 5, 6]
#: The version a new revision freezes.
CURRENT_PROTOCOL_VERSION: ProtocolVersion = 6


@dataclass(frozen=True)
class Rule:
    """One rule of a model stage: its code, the version that introduced it and what it demands."""

    code: ErrorCode
    since: int
    stage: str
    summary: str


def _rules(stage: str, since: int, *rules: tuple[ErrorCode, str]) -> dict[ErrorCode, Rule]:
    return {code: Rule(code, since, stage, summary) for code, summary in rules}


_CITATIONS = (
    (ErrorCode.CITATION_SOURCE_UNREADABLE, "a citation names an existing, readable source"),
    (ErrorCode.CITATION_SPAN_OUT_OF_RANGE, "a span lies inside its source"),
    (ErrorCode.CITATION_SPAN_MISMATCH, "the quote is exactly the text at its offsets"),
    (ErrorCode.CITATION_INVISIBLE_CHARACTER, "a span never crosses a zero-width or bidi control"),
    (ErrorCode.CITATION_QUOTE_NOT_FOUND, "a quote occurs verbatim in the source it cites"),
)

#: Every stage rule and the protocol version that introduced it.
RULES: dict[ErrorCode, Rule] = {
    **_rules("any", 1, *_CITATIONS),
    **_rules(
        "resolution_plan",
        1,
        (ErrorCode.PLAN_TOO_MANY_SEARCHES, "at most max_searches searches"),
        (ErrorCode.PLAN_CATALOG_UNKNOWN, "every catalog is a configured catalog"),
        (ErrorCode.PLAN_TERM_MALFORMED, "a term is one visible line without outer whitespace"),
        (ErrorCode.PLAN_DUPLICATE_SEARCH, "no duplicate (term, catalog) pair"),
        (ErrorCode.PLAN_TERM_NOT_IN_QUOTE, "the term occurs in every quote it cites"),
    ),
    **_rules(
        "resolution_assessment",
        1,
        (ErrorCode.ASSESSMENT_UNKNOWN_SEARCH, "every verdict names a search of the plan"),
        (ErrorCode.ASSESSMENT_DUPLICATE_SEARCH, "a search is assessed once"),
        (ErrorCode.ASSESSMENT_MISSING_SEARCH, "every search is assessed"),
        (ErrorCode.ASSESSMENT_TRUNCATED_SELECTION, "a truncated search selects nothing"),
        (ErrorCode.ASSESSMENT_NOT_A_CANDIDATE, "a selection is a candidate of its own search"),
        (ErrorCode.ASSESSMENT_WRONG_CAPTURE, "a selection cites its capture and capture row"),
        (ErrorCode.ASSESSMENT_MENTION_NOT_CITED, "a selection cites one of its search's mentions"),
        (ErrorCode.ASSESSMENT_NO_EVIDENCE, "a selection cites report context beyond the name"),
        (ErrorCode.ASSESSMENT_STATUS_FIELDS, "ambiguous/no_match carry the fields of their kind"),
    ),
    **_rules(
        "interpretation",
        1,
        (ErrorCode.INTERPRETATION_REF_UNKNOWN, "every ref and citation names an existing alias"),
        (ErrorCode.INTERPRETATION_REF_NOT_SET, "a mention of an N/D alias references it"),
        (ErrorCode.INTERPRETATION_ALIAS_REPEATED, "an alias is listed once"),
        (ErrorCode.INTERPRETATION_MENTION_UNSUPPORTED, "an entity cites one of its own mentions"),
        (ErrorCode.INTERPRETATION_SELECTION_NOT_RETAINED, "every selected entity is retained"),
        (
            ErrorCode.INTERPRETATION_UNRESOLVED_NOT_RETAINED,
            "every unresolved identity is an unknown",
        ),
        (
            ErrorCode.INTERPRETATION_AMBIGUOUS_CERTAIN_SUBJECT,
            "an ambiguous report states no affected subject as certain",
        ),
        (
            ErrorCode.INTERPRETATION_QUEST_GIVER_AS_SUBJECT,
            "a quest giver is never the only affected subject",
        ),
        (ErrorCode.INTERPRETATION_CITATION_UNKNOWN, "an observation cites a source of this case"),
        (ErrorCode.INTERPRETATION_CAUSAL_WORDING, "no causal or diagnostic wording"),
        (
            ErrorCode.INTERPRETATION_RELATIVE_DATE_IN_RESTATEMENT,
            "the restatement has no unresolved relative date",
        ),
        (ErrorCode.INTERPRETATION_SUBTASK_NOT_QUESTION, "a sub-task is a question"),
        (ErrorCode.INTERPRETATION_CLARIFICATION, "an ambiguous report asks one question"),
        (ErrorCode.INTERPRETATION_DATE_MISMATCH, "a date equals the controller's resolution"),
        (ErrorCode.INTERPRETATION_DATE_UNRESOLVED, "an unresolvable date is null and an unknown"),
    ),
    # the complete interpretation contract (issue 13)
    **_rules(
        "resolution_assessment",
        4,
        (
            ErrorCode.ASSESSMENT_EVIDENCE_NAME_ONLY,
            "evidence holds report words beyond the name (case, punctuation, spaces and formatting "
            "tags ignored)",
        ),
    ),
    **_rules(
        "interpretation",
        4,
        (ErrorCode.INTERPRETATION_SCOPE_CLASS, "out of scope names its class; in scope none"),
        (
            ErrorCode.INTERPRETATION_OUT_OF_SCOPE_WORK,
            "an out-of-scope report has no affected subject and no sub-task",
        ),
        (ErrorCode.INTERPRETATION_IN_SCOPE_NO_SUBTASK, "an in-scope report has a sub-task"),
        (
            ErrorCode.INTERPRETATION_RESTATEMENT_NAMES,
            "the restatement names every selected affected subject",
        ),
        (ErrorCode.INTERPRETATION_RESTATEMENT_ALIAS, "the restatement holds no alias code"),
        (
            ErrorCode.INTERPRETATION_CLARIFICATION_CANDIDATES,
            "a clarification names the competing candidates (names and ids) or the unmatched name",
        ),
    ),
    # grounded tie-breaks and exact-name coverage (issue 29 items 3-4, ARCHITECTURE 15)
    **_rules(
        "resolution_assessment",
        6,
        (
            ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED,
            "a selection among entities sharing the selected name cites a grounded tie-break "
            "(report span and captured fact) that holds for it and for none of the others",
        ),
        (
            ErrorCode.ASSESSMENT_EXACT_NOT_UNIQUE,
            "a truncated search selects only the one entity of its complete exact-name capture "
            "whose name equals the term",
        ),
    ),
    # corrected search terms (issue 29 item 5, ARCHITECTURE 6.1)
    **_rules(
        "resolution_plan",
        6,
        (
            ErrorCode.PLAN_CORRECTION_REFUSED,
            "a corrected term holds only letters, spaces, apostrophes and hyphens, corrects one "
            "of its own mentions that does not already hold it, and is within the bounded "
            "distance of it (letters only, case and accents folded)",
        ),
    ),
    **_rules(
        "resolution_assessment",
        6,
        (
            ErrorCode.ASSESSMENT_CORRECTION_DISAGREES,
            "a selection from a corrected search is an entity one of whose names is the "
            "corrected term",
        ),
    ),
    # identity references (issue 11, ARCHITECTURE 6.1)
    **_rules(
        "resolution_plan",
        4,
        (
            ErrorCode.PLAN_REFERENCE_NOT_IN_LINK,
            "an identity reference's link span holds the identity's digits as a whole number",
        ),
    ),
    **_rules(
        "resolution_assessment",
        4,
        (
            ErrorCode.ASSESSMENT_LINK_DISAGREES,
            "a linked identity is selected only when the report's words agree with one of its names",
        ),
    ),
    # resolution quality on unseen reports (issue 29)
    **_rules(
        "interpretation",
        6,
        (
            ErrorCode.INTERPRETATION_CAUSAL_WORDING_MULTILINGUAL,
            "no causal or diagnostic wording in the reporters' other languages (de, es, fr, pt, "
            "ru, pl, zh, ko)",
        ),
    ),
}


@dataclass(frozen=True)
class ProtocolSpec:
    """What one protocol version decides.

    Attributes:
        version: The number frozen in a revision's ``input.json``.
        schema_in_message: The output schema ends the user message (v2, v3).
        timing_in_content: Captures and dispatch records carry wall-clock values (v1, v2).
        generic_rule_code: Correction rounds name every rule ``LLM_OUTPUT_RULES`` (v1, v2).
        sealed_records: Events are hash-chained and every file of a revision is reachable by
            hash from the accepted artifacts or the chain (v4 on); older revisions verify
            without it (their unchained logs are reported as information, not as tampering).
        native_schema: The schema is sent once (v4 on): only in the provider's structured-output
            field for a dialect that has one (``schemas.NATIVE_DIALECTS``), else once at the end
            of the system text; the neutral request names its ``schema_dialect``.
        static_first: Every static item precedes every per-case item (v4 on): the data notice
            and the offsets note end the system text (examples are rendered the same way), so
            the user message starts with the first per-case item.
        correction_values: A correction round names each issue's offending value, read from the
            rejected reply at the issue's JSON path (v4 on).
        complete_interpretation: The interpretation contract of issue 13 (v4 on): the reply
            names an out-of-scope class (``InterpretationOutputV4``), relative dates are resolved
            in the reporters' eight languages with dateparser
            (:mod:`vba_assets.domain.interpretation.dates`), the stage context names its protocol
            and the competing candidates' names, and the v4 rules of :data:`RULES` apply.
        request_account: A context manifest states which conversation history its request
            includes and that no callback mutated it (v4 on).
        identity_references: Real-report resolution (issue 11, v4 on): a plan search may be an
            identity reference (the id a report links, fetched and captured like a search; the
            assessment selects it only when the report's words agree with a fetched name, else
            a ``link_disagrees`` unknown), and a plan lists the names it leaves unsearched over
            ``max_searches`` (``not_searched`` unknowns); the plan schema of v1-v3 is kept in
            :mod:`vba_assets.domain.resolution.legacy`.
        bounded_lists: Every rule that requires listing things is bounded by the limits of the
            output schema (issue 30, v5 on, :mod:`vba_assets.domain.limits`): at most
            ``MAX_UNRESOLVED`` D aliases (the rest ``not_examined``), ``unknowns`` with room
            for all of them (``InterpretationOutputV5``), a clarification bounded by its
            listing budget.
        grounded_tiebreaks: Grounded tie-breaking of same-name rows (issue 29 item 4, v6 on):
            when a complete contains capture (or the exact-name capture completing a truncated
            one) holds several entities whose name equals the term, the controller also
            records, in that capture, the quests those entities start or end with every title
            of them (``CaptureArtifact.quest_relations``) and the zones they have spawn markers
            in with every zone name (``zone_markers``), each one literal parameterized query on
            allowlisted tables; the assessment request shows them, and a selection among those
            entities must carry a ``tiebreak`` (:mod:`vba_assets.domain.resolution.tiebreaks`)
            citing the report span and the captured fact (a quest relation row, a zone row,
            the linked identity, a data column) that holds for the selected entity only. No
            such fact keeps the search ambiguous.
        merged_entities: One entity per creature (issue 29 item 2, v6 on): the searches that
            select the same entry (English name, localized name, link, short form) give ONE
            ``N`` alias with all their mentions (:func:`~vba_assets.domain.resolution.context.
            build_resolution_context`); the heuristic splits observation sentences outside URLs
            and markup.
        multilingual_causal: Causal and diagnostic wording is refused in the reporters'
            languages (issue 29 item 6, v6 on, :mod:`vba_assets.domain.interpretation.causal`),
            not in English only.
        exact_name_coverage: Exact-name coverage under truncation (issue 29, v6 on): a truncated
            contains capture is followed by one literal, parameterized exact-name query on the
            same catalog (``name = term`` under the backend's collation,
            ``exact_row_limit(max_candidates) + 1`` rows: at least 33, the rows of one name being
            few), recorded as its own capture (``kind`` ``exact_name``, ``completes`` naming the
            truncated capture); when that capture is complete and holds exactly one entity whose
            name equals the term (:func:`~vba_assets.domain.catalog.names.normalize_for_match`),
            that row may be selected citing the exact capture. The truncated capture itself
            still cannot select.
        corrected_terms: Misspellings searched by their corrected name (issue 29 item 5, v6
            on): a name search may carry ``corrected_from``, one of its mentions whose text the
            term corrects; the controller accepts it only when the term holds letters, spaces,
            apostrophes and hyphens only, the quote does not already hold the term, and the
            two are close (:func:`~vba_assets.domain.resolution.corrections.correction_refusal`:
            Levenshtein distance of their letters, case and accents folded, at most 2 and at
            most a third of the longer, both at least 4 letters, the same first letter unless
            the distance is 1). The capture is the usual literal contains query on the
            corrected term and records both texts (its ``search``); a selection from it must be
            an entity one of whose names equals the corrected term.
        batched_exact_names: The names a plan leaves unsearched are looked up by exact name
            (issue 29 item 5, v6 on, :mod:`vba_assets.domain.resolution.batched`): after the
            plan's own searches, each of the first unsearched names (at most
            :data:`~vba_assets.domain.resolution.batched.MAX_BATCHED_NAMES`, and never more
            than :data:`~vba_assets.domain.limits.MAX_SEARCHES` searches in all) becomes a
            search ``Q<n+1>``... on the catalog of the plan's first name search, whose capture
            is one literal exact-name query (``kind`` ``batched_exact_name``). It is assessed
            like any search; an unsearched name past the batch stays a ``not_searched`` unknown.
    """

    version: ProtocolVersion
    schema_in_message: bool
    timing_in_content: bool
    generic_rule_code: bool
    sealed_records: bool = False
    native_schema: bool = False
    static_first: bool = False
    correction_values: bool = False
    complete_interpretation: bool = False
    request_account: bool = False
    identity_references: bool = False
    bounded_lists: bool = False
    grounded_tiebreaks: bool = False
    merged_entities: bool = False
    multilingual_causal: bool = False
    exact_name_coverage: bool = False
    corrected_terms: bool = False
    batched_exact_names: bool = False

    def applies(self, code: ErrorCode) -> bool:
        """Whether a finding with ``code`` counts under this version (non-rule codes always do)."""
        rule = RULES.get(code)
        return rule is None or rule.since <= self.version

    def correction_code(self, code: ErrorCode) -> ErrorCode:
        """The code a correction round shows the model for a finding with ``code``."""
        return ErrorCode.LLM_OUTPUT_RULES if self.generic_rule_code and code in RULES else code


_V4 = ProtocolSpec(
    4,
    schema_in_message=False,
    timing_in_content=False,
    generic_rule_code=False,
    sealed_records=True,
    native_schema=True,
    static_first=True,
    correction_values=True,
    complete_interpretation=True,
    request_account=True,
    identity_references=True,
)

_V5 = replace(_V4, version=5, bounded_lists=True)

PROTOCOLS: dict[int, ProtocolSpec] = {
    1: ProtocolSpec(1, schema_in_message=False, timing_in_content=True, generic_rule_code=True),
    2: ProtocolSpec(2, schema_in_message=True, timing_in_content=True, generic_rule_code=True),
    3: ProtocolSpec(3, schema_in_message=True, timing_in_content=False, generic_rule_code=False),
    4: _V4,
    5: _V5,
    6: replace(
        _V5,
        version=6,
        grounded_tiebreaks=True,
        merged_entities=True,
        multilingual_causal=True,
        exact_name_coverage=True,
        corrected_terms=True,
        batched_exact_names=True,
    ),
}


def protocol(version: int) -> ProtocolSpec:
    """The spec of ``version``.

    Raises:
        StoreError: ``PROTOCOL_VERSION_UNKNOWN`` for a version this release does not know (a
            revision made by a newer release, or a damaged input).
    """
    spec = PROTOCOLS.get(version)
    if spec is None:
        raise StoreError(
            ErrorCode.PROTOCOL_VERSION_UNKNOWN,
            f"protocol version {version!r} is unknown to this release (known: "
            f"{sorted(PROTOCOLS)}); the revision was made by a newer release or is damaged",
            protocol_version=version,
        )
    return spec


def resolved(spec: "ProtocolSpec | int") -> ProtocolSpec:
    """``spec`` itself, or the spec of a version number (:func:`protocol`).

    The builders take the spec a frozen revision resolved once (``FrozenRevision.spec``); a
    version number (a persisted record's, or a caller's literal) is resolved here, at the
    boundary, and the spec is passed down from there.
    """
    return spec if isinstance(spec, ProtocolSpec) else protocol(spec)


def current_protocol() -> ProtocolSpec:
    """The spec a new revision freezes (:data:`CURRENT_PROTOCOL_VERSION`)."""
    return protocol(CURRENT_PROTOCOL_VERSION)
