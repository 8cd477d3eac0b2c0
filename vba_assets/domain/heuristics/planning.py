"""The heuristic resolution plan (model call 1 without a model).

Steps, all deterministic:

1. Candidate spans of every readable source (:mod:`.spans`).
2. With a catalog search: the bounded gazetteer pass (:mod:`.gazetteer`) adds every span that
   exactly equals a catalog name or localized name, and in German and Russian every run of words
   whose stems equal a seen name's (an inflected mention, :mod:`.inflection`); text spans inside
   or around such a span give way to it. Without a catalog search this step is skipped and every
   span stays a candidate. A possessive glued to a capitalized word ("Rattlegore's Bridge") is
   marked as part of a place or item name.
3. Spans are grouped into terms (case-insensitive, :mod:`.terms`); each term gets its role cues
   (:mod:`.roles`), its exact catalog matches split into strong and weak evidence (a localized
   ASCII match in another language than the report's is weak) and the catalogs whose seen names
   contain it.
4. Admission (:mod:`.admission`): exact catalog names written like names, terms with a subject
   cue (a misspelled name is narrowed to a part some catalog name contains), capitalized
   multi-word names some catalog name contains; never common nouns (professions, classes, words
   the report also writes in lower case), possessive parts of place names or places.
5. Ranking: a unique strong exact match in some catalog first, then other exact matches, then
   the rest; within each, terms with a subject cue first, then terms that are not part of
   another candidate ("longer spans over their substrings"), then first mention. Terms are taken
   in that order up to ``max_searches``; a term that is a word-for-word part of an already taken
   term is skipped and its cues count for the longer term, unless it is a strong exact catalog
   name of several words with a mention outside the longer term ("Large Crag Boars ... the Crag
   Boars next to them"). Never two searches with the same (term, catalog).
6. Catalog: the one with a unique strong exact match (primary ``name`` catalogs before localized
   ones), else one with any strong exact match, else one with a weak exact match, else one whose
   names contain the term, else by the report's language (a localized catalog for a non-English
   report or a term with non-ASCII letters).
7. Role: ``affected_subject`` with more affected than quest-giver cues, ``quest_giver`` with a
   quest-giver cue, ``location_context`` with a locative cue and a zone-like word, else
   ``other_context``; when no term is the affected subject, the first ``other_context`` term
   becomes it (the report is usually about the first name it mentions that is not a giver).

What it cannot do: it has no notion of meaning. It cannot tell a creature from an item or quest
that shares its words unless capitalization separates them, cannot resolve pronouns, and its cues
are phrase lists (see :mod:`.roles`). A report whose entity is only described ("the big boar near
the farm") yields no search.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.catalog.world import CatalogSearch
from vba_assets.domain.heuristics.admission import admit_terms, mark_compounds
from vba_assets.domain.heuristics.gazetteer import (
    Gazetteer,
    build_gazetteer,
    catalog_name_spans,
    run_searches,
)
from vba_assets.domain.heuristics.inflection import inflected_spans
from vba_assets.domain.heuristics.lexicon import guess_language, is_stopword
from vba_assets.domain.heuristics.roles import RoleCues, zone_like
from vba_assets.domain.heuristics.search_words import catalogs_for
from vba_assets.domain.heuristics.spans import SourceText, Span, extract_spans, tokenize_source
from vba_assets.domain.heuristics.terms import Term, fold, group_terms, report_facts
from vba_assets.domain.prompting.stage_context import CatalogView, PlanStageContext
from vba_assets.domain.resolution.models import (
    MentionCitation,
    ProposedSearch,
    ResolutionPlanOutput,
    SearchRole,
)

MAX_MENTIONS = 8
_TEXT_KINDS = ("run", "run_tail", "subrun", "singular", "quoted")
_WORD = re.compile(r"[^\W_]+(?:['’ʼ‘-][^\W_]+)*")
_LOCATION_TYPES = ("zone", "area", "map", "location", "place", "region", "subzone")


def _is_part(short: Sequence[str], long: Sequence[str]) -> bool:
    """True when ``short`` is a contiguous proper word sequence of ``long``."""
    width = len(short)
    if not short or width >= len(long):
        return False
    return any(tuple(long[i : i + width]) == tuple(short) for i in range(len(long) - width + 1))


def _inside(span: Span, others: Sequence[Span], *, strict_container: bool) -> bool:
    """True when ``span`` lies inside another span's extent (or, with ``strict_container``,
    contains another span)."""
    for other in others:
        if other.source != span.source or (other.start, other.end) == (span.start, span.end):
            continue
        if other.start <= span.start and span.end <= other.extent:
            return True
        if strict_container and span.start <= other.start and other.end <= span.end:
            return True
    return False


def collect_spans(
    sources: Sequence[SourceText],
    catalogs: Sequence[CatalogView],
    search: CatalogSearch | None,
    language: str,
) -> tuple[list[Span], Gazetteer | None]:
    """Steps 1-2: text spans, and with a catalog search the catalog-name spans that win over them."""
    spans = extract_spans(sources)
    if search is None:
        singulars = {(s.source, s.start, s.end) for s in spans if s.kind == "singular"}
        spans = [s for s in spans if (s.source, s.start, s.end - 1) not in singulars]
        return mark_compounds(spans, sources), None
    gazetteer = build_gazetteer(
        sources, catalogs, search, english=language == "en", language=language
    )
    phrases: dict[str, str] = {}
    for span in spans:
        words = _WORD.findall(span.text)
        if (
            span.kind in _TEXT_KINDS
            and len(words) > 1
            and not gazetteer.exact(span.text)
            and all(gazetteer.fully_truncated(w) or is_stopword(w) for w in words)
        ):
            phrases.setdefault(fold(span.text), span.text)
    english = language == "en"
    run_searches(
        gazetteer,
        search,
        [(phrase, catalogs_for(phrase, catalogs, english=english)) for phrase in phrases.values()],
    )
    names = catalog_name_spans(sources, gazetteer)
    inflected = [
        s
        for s in inflected_spans(sources, gazetteer.seen_names(), language)
        if not _inside(s, names, strict_container=False)
    ]
    names = [s for s in names if not _inside(s, inflected, strict_container=False)] + inflected
    kept = [s for s in spans if not _inside(s, names, strict_container=True)]
    merged: dict[tuple[str, int, int], Span] = {(s.source, s.start, s.end): s for s in kept}
    for span in names:
        merged[(span.source, span.start, span.end)] = span
    ordered = sorted(merged.values(), key=lambda s: (s.position, s.kind))
    return mark_compounds(ordered, sources), gazetteer


def rank_terms(terms: Sequence[Term]) -> list[Term]:
    """Step 5's order (see the module docstring)."""
    words = {term.key: term.words for term in terms}
    lengths = sorted({len(w) for w in words.values()})

    def key(term: Term) -> tuple[int, int, int, tuple[int, int, int], str]:
        own = words[term.key]
        part_of_other = len(own) < lengths[-1] and any(
            _is_part(own, other) for other in words.values()
        )
        cue = 0 if term.cues.any_subject_cue else 1
        return (term.exact_class, cue, int(part_of_other), term.first, term.key)

    return sorted(terms, key=key)


def _primary_first(catalog_names: Sequence[str], catalogs: Sequence[CatalogView]) -> str | None:
    kinds = {c.name: c.kind for c in catalogs}
    ordered = sorted(catalog_names, key=lambda n: (kinds.get(n) != "name",))
    return ordered[0] if ordered else None


def choose_catalog(term: Term, catalogs: Sequence[CatalogView], language: str) -> str:
    """Step 6 (see the module docstring)."""
    strong = term.strong_exact
    unique = [name for name, ids in strong.items() if len(ids) == 1]
    weak_unique = [n for n, ids in term.exact.items() if n not in strong and len(ids) == 1]
    chosen = (
        _primary_first(unique, catalogs)
        or _primary_first(list(strong), catalogs)
        or _primary_first(weak_unique, catalogs)
        or _primary_first(list(term.exact), catalogs)
        or _primary_first(term.containing, catalogs)
    )
    if chosen is not None:
        return chosen
    primary = next((c.name for c in catalogs if c.kind == "name"), catalogs[0].name)
    localized = next((c.name for c in catalogs if c.kind == "localized_name"), None)
    non_ascii = any(ord(char) > 127 and char.isalpha() for char in term.text)
    if localized is not None and (non_ascii or language != "en"):
        return localized
    return primary


def _role(term: Term, cues: RoleCues, catalog: CatalogView | None) -> SearchRole:
    if cues.affected > 0 and cues.affected >= cues.quest_giver:
        return "affected_subject"
    if cues.quest_giver > 0:
        return "quest_giver"
    location_catalog = catalog is not None and any(
        word in catalog.entity_type.casefold() for word in _LOCATION_TYPES
    )
    if cues.location > 0 and (zone_like(term.text) or location_catalog):
        return "location_context"
    return "other_context"


def _own_name(term: Term, container: Term) -> bool:
    """True when ``term`` is a strong exact catalog name of several words with a mention outside
    ``container``'s mentions ("Large Crag Boars ... the Crag Boars": two creatures, not one).
    A single word stays folded: it is usually the short form of the longer name."""
    if not term.strong_exact or len(term.words) < 2:
        return False
    return any(not _inside(span, container.spans, strict_container=False) for span in term.spans)


def select_searches(
    ranked: Sequence[Term], catalogs: Sequence[CatalogView], language: str, max_searches: int
) -> list[ProposedSearch]:
    """Steps 5-7: take terms in rank order, choose catalogs and roles, cite the mentions."""
    chosen: list[tuple[Term, str]] = []
    cues: dict[str, RoleCues] = {}
    seen: set[tuple[str, str]] = set()
    for term in ranked:
        own = term.words
        container = next((t for t, _ in chosen if _is_part(own, t.words)), None)
        if container is not None and not _own_name(term, container):
            cues[container.key] = cues[container.key] + term.cues
            continue
        if len(chosen) >= max_searches:
            continue
        catalog = choose_catalog(term, catalogs, language)
        if (term.key, catalog) in seen:
            continue
        seen.add((term.key, catalog))
        chosen.append((term, catalog))
        cues[term.key] = term.cues
    by_name = {c.name: c for c in catalogs}
    roles = [_role(term, cues[term.key], by_name.get(catalog)) for term, catalog in chosen]
    if "affected_subject" not in roles:
        order = sorted(range(len(chosen)), key=lambda i: chosen[i][0].first)
        fallback = next((i for i in order if roles[i] == "other_context"), None)
        if fallback is not None and not zone_like(chosen[fallback][0].text):
            roles[fallback] = "affected_subject"
    return [
        ProposedSearch(
            term=term.text,
            catalog=catalog,
            role=role,
            mentions=[
                MentionCitation(source=s.source, quote=s.text, start=s.start, end=s.end)
                for s in term.spans[:MAX_MENTIONS]
            ],
        )
        for (term, catalog), role in zip(chosen, roles, strict=True)
    ]


def plan_searches(context: PlanStageContext, search: CatalogSearch | None) -> ResolutionPlanOutput:
    """The heuristic plan of one case (see the module docstring).

    Args:
        context: the readable sources, the catalogs the plan may name, ``max_searches``.
        search: the read-only catalog search for the gazetteer pass, or None to skip it.

    Raises:
        ResearchUnavailable: from ``search`` when the database cannot be reached.
    """
    catalogs = list(context.catalogs)
    if not catalogs or context.max_searches < 1:
        return ResolutionPlanOutput(searches=[])
    sources = [
        tokenize_source(source.alias, order, source.text)
        for order, source in enumerate(context.sources)
        if source.readable and source.text
    ]
    language = guess_language([t.text for s in sources for t in s.tokens])
    spans, gazetteer = collect_spans(sources, catalogs, search, language)
    location_catalog = any(
        word in catalog.entity_type.casefold() for catalog in catalogs for word in _LOCATION_TYPES
    )
    facts = report_facts(sources, catalogs, location_catalog, language)
    grouped = group_terms(spans, sources, gazetteer, language)
    terms = admit_terms(grouped, gazetteer, facts, language)
    searches = select_searches(rank_terms(terms), catalogs, language, context.max_searches)
    return ResolutionPlanOutput(searches=searches)
