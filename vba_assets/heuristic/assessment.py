"""The heuristic resolution assessment (model call 2 without a model).

One rule decides, for each search, in this order:

1. no candidate -> ``no_match``;
2. truncated search (more rows matched than were captured) -> ``ambiguous``: a unique selection
   is impossible, whatever the names; except (protocol v6) when the search's exact-name capture
   is complete and holds one entity named exactly as the term: that row is selected as in rule 3
   (:func:`assess_exact_coverage`, citing the exact-name capture);
3. exactly one candidate has an English or localized name equal to the term (after
   :func:`~vba_assets.domain.catalog.matching.normalize_for_match`), and it is not a technical helper entry
   (a name matching a ``helper_name_patterns`` regex of its own catalog or of a primary ``name``
   catalog of the same entity type), and the match is not weak evidence (below) -> ``selected``,
   citing the capture alias, the capture row, the search's first mention and, as evidence, the
   sentence (or line) of the source around that mention;
4. no candidate's name equals the term, but exactly one entity's name is a near spelling of what
   the report wrote (a misspelled mention) and it is no helper entry -> ``selected``, cited the
   same way; since protocol v6 only when the mention agrees with that name word by word
   (:mod:`.spelling_words`: "Commander Durand", a later expansion's creature, is not a
   misspelling of "Commander Duron");
   since protocol v6 also a boss's short form: the complete capture holds the term as whole
   words of one entity's names only, a boss's ("Morogrim", :mod:`.short_forms`);
5. otherwise ``ambiguous``, listing the tied exact candidates, or when none is exact the
   candidates of the best match tier.

A search for an identity the report links or writes (protocol v4) is decided by
:func:`assess_reference` instead. A batched name's search (protocol v6, an exact-name lookup of a
name the plan left unsearched) is ``ambiguous`` unless the report writes the term as a name
(:func:`~.exact_coverage.written_as_name`, the guard of rule 2's exact-name capture): its rows are
all named exactly the term, so rule 3 would select a common word ("Whirlwind") as readily as a
name. The name tests (equality, helper patterns, near spellings) are
in :mod:`.candidate_names`; this module applies them in the order above, and :mod:`.selections`
builds the verdicts they give.

Weak evidence: in a report written in English (guessed from its words, as the planner does), an
exact match found only in a localized catalog on a plain-ASCII term. English names live in the
primary catalog, so such a row is another language's spelling ("Panzallena", the Spanish name of
Bellygrub) or an untranslated copy (a deDE row that kept the English "Arcanist Adurin" of one of
the two entries the primary catalog holds under that name), and it is not selected.

Selecting on any unique best-tier candidate (e.g. the only whole-phrase match) was measured on
real tracker reports to lose a third of the precision, so a name that is merely similar is never
selected (rule 4 asks far more of a near spelling: see :data:`~.candidate_names.MIN_SPELLING`).

Grounded tie-breaks (protocol v6, :mod:`.tiebreaks`): when several candidates carry the exact
name, the one a grounded fact of the report tells apart (its link, a quest title that only it
starts or ends in the capture's quest relations, its subname) is selected, the fact cited in the
verdict's ``tiebreak``; a selection among same-name candidates without one becomes ``ambiguous``.
The same holds when the report's words are a near spelling or whole-word beginning of one full
name that several rows carry (rule 4 would select it if it were unique,
:func:`~.tiebreaks.spelling_group`): its link, quest or zone, never a level-1 or helper row.

Since heuristic-9 a selection whose every mention is part of a longer name the report writes
("Golden Cloud Serpent" for the catalog's "Cloud Serpent") becomes ``ambiguous``
(:mod:`.embedded_names`), and the one row of a name above level 1 beside level-1 script copies is
told apart by the ``level`` tie-break.

What it cannot do: it does not read the report beyond names and those facts. Two entries with the
same name stay ambiguous when the report states only a level or a rank (other than "boss") that
would tell them apart; a misspelling resolves only to a near spelling clearly ahead of every other
entity's name.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.resolution.links import agrees, words_for
from vba_assets.domain.resolution.models import (
    EvidenceQuote,
    ResolutionAssessmentOutput,
    SearchAssessmentOutput,
)
from vba_assets.domain.stage_context import (
    AssessmentStageContext,
    CandidateView,
    SearchView,
    SourceView,
)
from vba_assets.domain.text_budget import check_budget
from vba_assets.heuristic.candidate_names import (
    MIN_SPELLING,
    SPELLING_MARGIN,
    candidate_names,
    closest_spelling,
    helper_patterns,
    is_exact,
    is_helper,
)
from vba_assets.heuristic.embedded_names import without_embedded_names
from vba_assets.heuristic.exact_coverage import exact_competitors, written_as_name
from vba_assets.heuristic.lexicon import guess_language
from vba_assets.heuristic.selections import (
    ambiguous_data,
    assess_exact_coverage,
    first_cited,
    selected_verdict,
    tiebreak_selection,
    weak_localized,
)
from vba_assets.heuristic.short_forms import short_form
from vba_assets.heuristic.spans import tokenize_source
from vba_assets.heuristic.spelling_words import words_agree
from vba_assets.heuristic.tiebreaks import (
    EXACT_FACTS,
    spelling_group,
    without_ungrounded_tie,
)


def report_language(sources: Sequence[SourceView]) -> str:
    """The guessed language of the readable sources (the planner's guess)."""
    words = [
        token.text
        for order, source in enumerate(sources)
        if source.readable and source.text
        for token in tokenize_source(source.alias, order, source.text).tokens
    ]
    return guess_language(words)


def assess_search(
    search: SearchView,
    sources: dict[str, str],
    patterns: dict[str, list[re.Pattern[str]]],
    language: str = "en",
    tiebreaks: bool = False,
) -> SearchAssessmentOutput:
    """The verdict on one search (see the module docstring for the rule order); with
    ``tiebreaks`` (protocol v6) a selection among same-name candidates is grounded
    (:func:`tiebreak_selection`, :func:`without_ungrounded_tie`)."""
    verdict = _assess_search(search, sources, patterns, language, tiebreaks)
    if not tiebreaks:
        return verdict
    return without_embedded_names(search, without_ungrounded_tie(search, verdict), sources)


def _assess_search(
    search: SearchView,
    sources: dict[str, str],
    patterns: dict[str, list[re.Pattern[str]]],
    language: str,
    tiebreaks: bool,
) -> SearchAssessmentOutput:
    term = search.term
    candidates = list(search.candidates)
    if not candidates:
        return SearchAssessmentOutput(
            search_id=search.search_id,
            status="no_match",
            rationale=f"heuristic: the search for {term!r} in {search.catalog} returned no "
            "candidate; a miss is scoped to this catalog, filter and snapshot",
        )
    if search.reference is not None:
        return assess_reference(search, sources, patterns)
    if search.unsearched is not None and not written_as_name(search, sources, language):
        data = ambiguous_data(
            search,
            candidates,
            f"the exact-name lookup of {term!r}, a name the plan left unsearched, found rows of "
            "that name, but the report writes it as ordinary words (lower case, a common word, "
            "after a determiner or inside a longer word), so nothing is selected",
        )
        return SearchAssessmentOutput.model_validate(data)
    # a term that is only part of what the report wrote (a misspelled or inflected name) is
    # never decided by an exact match of that part: the whole mention is compared instead
    # (protocol v6: a corrected term is the whole name the misspelled mention stands for)
    whole = search.corrected_from is not None or any(
        normalize_for_match(m.quote) == normalize_for_match(term) for m in search.mentions
    )
    exact = [c for c in candidates if is_exact(c, term)] if whole else []
    best_tier = min(c.tier for c in candidates)
    best = [c for c in candidates if c.tier == best_tier]
    if search.truncated:
        covered = assess_exact_coverage(search, sources, patterns, language, whole)
        if covered is not None:
            return covered
        data = ambiguous_data(
            search,
            exact_competitors(search) or exact or best,
            f"the search for {term!r} was truncated (more rows matched than were captured), so "
            "no unique selection is possible",
        )
        return SearchAssessmentOutput.model_validate(data)
    if len(exact) > 1 and tiebreaks:
        broken = tiebreak_selection(search, sources, patterns)
        if broken is not None:
            return broken
    if len(exact) > 1:
        data = ambiguous_data(
            search,
            exact,
            f"{len(exact)} candidates have a name equal to {term!r}; name equality cannot tell "
            "them apart and the heuristic does not weigh their data columns",
        )
        return SearchAssessmentOutput.model_validate(data)
    if not exact:
        close = closest_spelling(search, candidates)
        if close is not None and tiebreaks and not _agrees(search, close):
            close = None  # v6: another word than a misspelling of the name's (.spelling_words)
        if close is not None and not is_helper(close, patterns):
            selected = selected_verdict(
                search,
                close,
                sources,
                f"misspelled mention. No candidate's name equals {term!r}, but the report's "
                f"words {_quotes(search)} are a near spelling of {close.name!r} (identity "
                f"{close.identity}) and of no other candidate (Indel similarity at least "
                f"{MIN_SPELLING}, {SPELLING_MARGIN} ahead of the next entity).",
            )
            if selected is not None:
                return selected
        short = short_form(search, sources, language) if tiebreaks and close is None else None
        if short is not None and not is_helper(short, patterns):  # v6: a boss's short form
            selected = selected_verdict(
                search,
                short,
                sources,
                f"short form. The complete capture for {term!r} holds it as whole words of one "
                f"entity's name only ({short.name!r}, identity {short.identity}, a boss), and the "
                "report writes it as a name.",
            )
            if selected is not None:
                return selected
        group = spelling_group(search) if tiebreaks and close is None else None
        if group is not None:  # v6: a near spelling / prefix of a name several rows carry
            broken = tiebreak_selection(search, sources, patterns, EXACT_FACTS, group)
            if broken is not None:
                return broken
        data = ambiguous_data(
            search,
            best,
            f"no candidate's name equals {term!r}; the best tier is {best_tier.label} with "
            f"{len(best)} candidate(s), and a similar name alone is not a justification",
        )
        return SearchAssessmentOutput.model_validate(data)
    chosen = exact[0]
    if weak_localized(chosen, term, language):
        data = ambiguous_data(
            search,
            exact,
            f"the only candidate named {term!r} ({chosen.candidate_id}) matches in the localized "
            "catalog only, and the report is written in English: a localized name in another "
            "language than the report's is weak evidence (it may be an untranslated copy of an "
            "English name other entries carry), so it is not selected",
        )
        return SearchAssessmentOutput.model_validate(data)
    if is_helper(chosen, patterns):
        data = ambiguous_data(
            search,
            exact,
            f"the only candidate named {term!r} ({chosen.candidate_id}) matches a helper-name "
            "pattern (a technical entry such as a trigger or kill credit), so it is not selected",
        )
        return SearchAssessmentOutput.model_validate(data)
    cited = first_cited(search, chosen, sources)
    if cited is None:
        data = ambiguous_data(
            search,
            exact,
            f"{chosen.candidate_id} is the only candidate named {term!r}, but no mention has "
            "report context beyond the bare name to cite, so it is not selected",
        )
        return SearchAssessmentOutput.model_validate(data)
    mention, quote = cited
    return SearchAssessmentOutput(
        search_id=search.search_id,
        status="selected",
        candidate_id=chosen.candidate_id,
        capture=search.capture_alias,
        capture_row=chosen.capture_row,
        mention=mention,
        evidence=[EvidenceQuote(source=mention.source, quote=quote)],
        rationale=f"heuristic: exact unique name match. {term!r} equals the name of exactly one "
        f"candidate of this untruncated search ({chosen.candidate_id}: {chosen.name!r}, identity "
        f"{chosen.identity}) and it matches no helper-name pattern. The evidence is the report "
        "sentence around the first mention with context; the heuristic weighs no context beyond "
        "the name",
    )


def _agrees(search: SearchView, candidate: CandidateView) -> bool:
    """Protocol v6: the mention agrees word by word with the near spelling (issue 29)."""
    quotes = [mention.quote for mention in search.mentions]
    return words_agree(quotes, candidate_names(candidate))


def _quotes(search: SearchView) -> str:
    return ", ".join(dict.fromkeys(repr(m.quote) for m in search.mentions))


def assess_reference(
    search: SearchView, sources: dict[str, str], patterns: dict[str, list[re.Pattern[str]]]
) -> SearchAssessmentOutput:
    """An identity-reference search (protocol v4): the linked entity is selected when the
    report's words for it agree with one of its fetched names (the controller's own test,
    :mod:`vba_assets.domain.resolution.links`), else ``ambiguous`` (a ``link_disagrees`` unknown
    for the interpretation). A helper entry is never selected."""
    assert search.reference is not None
    identity = search.reference.identity
    words = words_for(search.term, search.reference, search.mentions)
    names = [name for candidate in search.candidates for name in candidate_names(candidate)]
    chosen = search.candidates[0]
    if not agrees(words, names):
        said = ", ".join(repr(w) for w in words) or "no words (only the link)"
        data = ambiguous_data(
            search,
            search.candidates,
            f"the report links identity {identity} ({', '.join(repr(n) for n in names[:3])}), "
            f"but its words for it ({said}) agree with none of the fetched names: a link proves "
            "only what was linked",
        )
        return SearchAssessmentOutput.model_validate(data)
    if is_helper(chosen, patterns):
        data = ambiguous_data(
            search,
            search.candidates,
            f"the linked identity {identity} ({chosen.name!r}) matches a helper-name pattern "
            "(a technical entry such as a trigger or kill credit), so it is not selected",
        )
        return SearchAssessmentOutput.model_validate(data)
    selected = selected_verdict(
        search,
        chosen,
        sources,
        f"linked identity. The report links identity {identity} and its words for it "
        f"({', '.join(repr(w) for w in words)}) agree with the fetched name {chosen.name!r}.",
    )
    if selected is None:
        data = ambiguous_data(
            search,
            search.candidates,
            f"the linked identity {identity} agrees with the report's words, but no mention has "
            "report context beyond the bare name to cite",
        )
        return SearchAssessmentOutput.model_validate(data)
    return selected


def assess_searches(
    context: AssessmentStageContext, catalogs: Sequence[CatalogConfig], tiebreaks: bool = False
) -> ResolutionAssessmentOutput:
    """One verdict per search of ``context``, in the order of the searches; ``tiebreaks``: the
    request's protocol has grounded tie-breaks (v6)."""
    sources = {s.alias: s.text for s in context.sources if s.readable and s.text is not None}
    patterns = helper_patterns(catalogs)
    language = report_language(context.sources)
    assessments = []
    for search in context.searches:
        check_budget()
        assessments.append(assess_search(search, sources, patterns, language, tiebreaks))
    return ResolutionAssessmentOutput(assessments=assessments)
