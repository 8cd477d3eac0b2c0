"""Selection verdicts of the heuristic assessment (pure logic; split from :mod:`.assessment`).

:mod:`.assessment` decides which rule applies to a search; this module builds the verdicts those
rules give: a selection citing the first mention with report context (:func:`selected_verdict`),
the exact-name capture that completes a truncated search (:func:`assess_exact_coverage`, protocol
v6), the selection a grounded tie-break grounds (:func:`tiebreak_selection`), and the ``ambiguous``
data the rules fall back to (:func:`ambiguous_data`).
"""

import re
from collections.abc import Sequence

from vba_assets.domain.resolution.models import (
    EvidenceQuote,
    MentionCitation,
    SearchAssessmentOutput,
)
from vba_assets.domain.stage_context import CandidateView, SearchView
from vba_assets.heuristic.candidate_names import candidate_names, is_exact, is_helper
from vba_assets.heuristic.evidence import evidence_quote
from vba_assets.heuristic.exact_coverage import exact_tie_view, written_as_name
from vba_assets.heuristic.lexicon import foreign_looking
from vba_assets.heuristic.tiebreaks import (
    ALL_FACTS,
    EXACT_FACTS,
    describe_tiebreak,
    find_tiebreak,
)


def ambiguous_data(
    search: SearchView, competing: Sequence[CandidateView], why: str
) -> dict[str, object]:
    return {
        "search_id": search.search_id,
        "status": "ambiguous",
        "competing_candidate_ids": [c.candidate_id for c in competing],
        "rationale": f"heuristic: {why}",
    }


def weak_localized(candidate: CandidateView, term: str, language: str) -> bool:
    """True when the candidate's exact match is weak evidence (see the module docstring)."""
    return language == "en" and candidate.catalog_kind != "name" and not foreign_looking(term)


def first_cited(
    search: SearchView, chosen: CandidateView, sources: dict[str, str]
) -> tuple[MentionCitation, str] | None:
    """The first mention of ``search`` with report context beyond the bare names (the search
    term and ``chosen``'s names), and the quote around it; None when every mention is bare."""
    bare = [search.term, *candidate_names(chosen)]
    for mention in search.mentions:
        if mention.source in sources:
            quote = evidence_quote(sources[mention.source], mention, bare)
            if quote is not None:
                return mention, quote
    return None


def selected_verdict(
    search: SearchView,
    chosen: CandidateView,
    sources: dict[str, str],
    why: str,
    capture: str | None = None,
) -> SearchAssessmentOutput | None:
    """A selection of ``chosen`` citing the first mention that has context, or None;
    ``capture``: the alias of the capture that holds ``chosen`` (default: the search's own)."""
    cited = first_cited(search, chosen, sources)
    if cited is None:
        return None
    mention, quote = cited
    return SearchAssessmentOutput(
        search_id=search.search_id,
        status="selected",
        candidate_id=chosen.candidate_id,
        capture=capture or search.capture_alias,
        capture_row=chosen.capture_row,
        mention=mention,
        evidence=[EvidenceQuote(source=mention.source, quote=quote)],
        rationale=f"heuristic: {why} The evidence is the report sentence around the first "
        "mention with context; the heuristic weighs no context beyond the names",
    )


def assess_exact_coverage(
    search: SearchView,
    sources: dict[str, str],
    patterns: dict[str, list[re.Pattern[str]]],
    language: str,
    whole: bool,
) -> SearchAssessmentOutput | None:
    """Protocol v6, a truncated search: select the one entity of its exact-name capture when the
    controller marked that capture unique (complete, one entity named exactly as the term), a
    mention is the whole term, the row is no helper entry and no weak localized match, and a
    mention has report context to cite, or (several entities named exactly as the term, with
    their captured tie-break facts) the one a grounded tie-break tells apart; None otherwise (the
    search stays ambiguous)."""
    exact = search.exact
    if exact is None or not whole or not written_as_name(search, sources, language):
        return None
    tie = exact_tie_view(search)  # several exact-name entities: a grounded tie-break may choose
    if tie is not None:
        return tiebreak_selection(tie, sources, patterns, EXACT_FACTS)
    if not exact.unique:
        return None
    named = [c for c in exact.candidates if is_exact(c, search.term)]
    if len(named) != 1:
        return None
    chosen = named[0]
    if weak_localized(chosen, search.term, language) or is_helper(chosen, patterns):
        return None
    return selected_verdict(
        search,
        chosen,
        sources,
        f"exact unique name under truncation. The contains search {search.capture_alias} for "
        f"{search.term!r} was truncated, but its complete exact-name capture "
        f"{exact.capture_alias} holds one entity named exactly so ({chosen.candidate_id}: "
        f"{chosen.name!r}, identity {chosen.identity}), which matches no helper-name pattern.",
        capture=exact.capture_alias,
    )


def tiebreak_selection(
    search: SearchView,
    sources: dict[str, str],
    patterns: dict[str, list[re.Pattern[str]]],
    kinds: Sequence[str] = ALL_FACTS,
    group: CandidateView | None = None,
) -> SearchAssessmentOutput | None:
    """Protocol v6: the selection of the one same-name candidate a grounded fact of the report
    tells apart (:func:`~vba_assets.heuristic.tiebreaks.find_tiebreak`), citing the fact's span
    and row in ``tiebreak`` and as evidence; None when there is no such fact. ``group``: a
    candidate of the full name a short or partial term found on several rows (the tie is that
    name's rows, not the term's)."""
    found = find_tiebreak(search, sources, patterns, kinds, group)
    if found is None:
        return None
    chosen, tiebreak = found
    why = describe_tiebreak(search, chosen, tiebreak)
    selected = selected_verdict(search, chosen, sources, why) or _selected_by_fact(
        search, chosen, sources, why
    )
    if selected is None:
        return None
    if tiebreak.fact == "level":  # the fact is the capture's; its span is the cited mention
        if selected.mention is None or not selected.evidence:
            return None  # bare mentions: nothing in the report beyond the name
        return selected.model_copy(
            update={"tiebreak": tiebreak.model_copy(update={"span": selected.mention})}
        )
    cited = EvidenceQuote(source=tiebreak.span.source, quote=tiebreak.span.quote)
    return selected.model_copy(
        update={"tiebreak": tiebreak, "evidence": [*selected.evidence, cited]}
    )


def _selected_by_fact(
    search: SearchView, chosen: CandidateView, sources: dict[str, str], why: str
) -> SearchAssessmentOutput | None:
    """A tie-break selection whose mentions are all bare (a list item ``- Tirion Fordring``):
    it cites the first readable mention, and its evidence is the tie-break's own span (the quest
    title or zone the report writes, added by the caller), which is report context beyond the
    name; None without a readable mention."""
    mention = next((m for m in search.mentions if m.source in sources), None)
    if mention is None:
        return None
    return SearchAssessmentOutput(
        search_id=search.search_id,
        status="selected",
        candidate_id=chosen.candidate_id,
        capture=search.capture_alias,
        capture_row=chosen.capture_row,
        mention=mention,
        evidence=[],
        rationale=f"heuristic: {why} Every mention is a bare name; the evidence is the "
        "tie-break's report span",
    )
