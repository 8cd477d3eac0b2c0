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
   the report also writes in lower case), possessive parts of place names or places, nor, when
   every catalog holds creatures, a term that names only items, gameobjects or quests in any
   locale ("Cruel Barb", "Hearthstone").
5. Ranking: a unique strong exact match in some catalog first, then other exact matches, then
   the rest (an exact name that is one common word of the report's language, "Trash", after the
   other exact names); within each, terms with a subject cue first, then terms that are not part of
   another candidate ("longer spans over their substrings"), then first mention; a term aiming at
   a creature an earlier term already aims at (its localized name, :mod:`.ranking`) moves last. Terms are taken
   in that order up to ``max_searches``; a term that is a word-for-word part of an already taken
   term is skipped and its cues count for the longer term, unless it is a strong exact catalog
   name of several words with a mention outside the longer term ("Large Crag Boars ... the Crag
   Boars next to them"). Never two searches with the same (term, catalog): a term searched by
   the same text as a taken one ("Thuzad" of "Kel’Thuzad" and of "Kel‘Thuzad") adds its
   mentions to that search.
6. Catalog: the one with a unique strong exact match (primary ``name`` catalogs before localized
   ones), else one with any strong exact match, else one with a weak exact match, else one whose
   names contain the term, else by the report's language (a localized catalog for a non-English
   report or a term with non-ASCII letters).
7. Role: with a name index, :class:`~.role_reader.RoleReader` decides every taken term's role at
   once (quest relations, the title, the sentence). Without one, the cues alone:
   ``affected_subject`` with more affected than quest-giver cues, ``quest_giver`` with a
   quest-giver cue, ``location_context`` with a locative cue and a zone-like word, else
   ``other_context``; when no term is the affected subject, the first ``other_context`` term
   becomes it (the report is usually about the first name it mentions that is not a giver).

A searched term is always literal text of its mentions, chosen so that any contains search finds
it (:mod:`.literal_terms`): a typographic apostrophe is left out, and a name whose non-ASCII
letters differ in case from the catalog's is searched by the stretch the catalog holds as written.

What it cannot do: it has no notion of meaning. It cannot tell a creature from an item or quest
that shares its words unless capitalization separates them, cannot resolve pronouns, and its cues
are phrase lists (see :mod:`.roles`). A report whose entity is only described ("the big boar near
the farm") yields no search.
"""

from collections.abc import Iterator, Sequence

from vba_assets.domain.case.text import fold
from vba_assets.domain.resolution.models import (
    IdentityReference,
    ProposedSearch,
    ResolutionPlanOutput,
    SearchRole,
    UnsearchedName,
)
from vba_assets.domain.stage_context import CatalogView, PlanStageContext, catalog_of_kind
from vba_assets.domain.text_budget import check_budget
from vba_assets.heuristic.admission import admit_terms, mark_compounds, not_for_creatures
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.corrected_plan import PlanParts, corrected_searches
from vba_assets.heuristic.gazetteer import (
    Gazetteer,
    build_gazetteer,
    catalog_name_spans,
)
from vba_assets.heuristic.inflection import inflected_spans
from vba_assets.heuristic.intervals import Containment
from vba_assets.heuristic.lexicon import guess_language
from vba_assets.heuristic.literal_terms import case_safe, literal_term
from vba_assets.heuristic.markup import read_markup
from vba_assets.heuristic.misspellings import misspellings, sharpened, without_dead_terms
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.ranking import distinct_first
from vba_assets.heuristic.references import attach_references
from vba_assets.heuristic.role_reader import RoleReader
from vba_assets.heuristic.roles import RoleCues, zone_like
from vba_assets.heuristic.spans import SourceText, Span, extract_spans, tokenize_source
from vba_assets.heuristic.terms import Term, group_terms, report_facts

MAX_MENTIONS = 8
#: The longest term a plan may propose (``ProposedSearch.term``, under the world DB's own limit of
#: 200): a longer "word" of a report (a log line, a URL, a token) is never searched or proposed.
MAX_TERM_CHARS = 100
_LOCATION_TYPES = ("zone", "area", "map", "location", "place", "region", "subzone")


def _is_part(short: Sequence[str], long: Sequence[str]) -> bool:
    """True when ``short`` is a contiguous proper word sequence of ``long``."""
    width = len(short)
    if not short or width >= len(long):
        return False
    return any(tuple(long[i : i + width]) == tuple(short) for i in range(len(long) - width + 1))


def _parts(words: Sequence[str]) -> Iterator[tuple[str, ...]]:
    """Every contiguous proper word run of ``words``: what :func:`_is_part` finds in them."""
    for width in range(1, len(words)):
        for start in range(len(words) - width + 1):
            yield tuple(words[start : start + width])


def _containment(spans: Sequence[Span]) -> dict[str, Containment]:
    """The spans of each source, indexed for :func:`_inside`."""
    by_source: dict[str, list[tuple[int, int, int]]] = {}
    for span in spans:
        by_source.setdefault(span.source, []).append((span.start, span.end, span.extent))
    return {source: Containment(intervals) for source, intervals in by_source.items()}


def _inside(span: Span, others: dict[str, Containment], *, strict_container: bool) -> bool:
    """True when ``span`` lies inside another span's extent (or, with ``strict_container``,
    contains another span); ``others`` from :func:`_containment`."""
    check_budget()  # called per span
    index = others.get(span.source)
    if index is None:
        return False
    return index.inside(span.start, span.end) or (
        strict_container and index.around(span.start, span.end)
    )


def collect_spans(
    sources: Sequence[SourceText],
    catalogs: Sequence[CatalogView],
    index: NameIndex | None,
    language: str,
) -> tuple[list[Span], Gazetteer | None]:
    """Steps 1-2: text spans, and with a name index the catalog-name spans that win over them."""
    spans = extract_spans(sources)
    if index is None:
        singulars = {(s.source, s.start, s.end) for s in spans if s.kind == "singular"}
        spans = [s for s in spans if (s.source, s.start, s.end - 1) not in singulars]
        return mark_compounds(spans, sources), None
    gazetteer = build_gazetteer(catalogs, index)
    names = catalog_name_spans(sources, gazetteer)
    found = _containment(names)
    inflected = [
        s
        for s in inflected_spans(sources, gazetteer.inflection_index(language), language)
        if not _inside(s, found, strict_container=False)
    ]
    found_inflected = _containment(inflected)
    names = [s for s in names if not _inside(s, found_inflected, strict_container=False)]
    names += inflected
    named = _containment(names)
    kept = [s for s in spans if not _inside(s, named, strict_container=True)]
    merged: dict[tuple[str, int, int], Span] = {(s.source, s.start, s.end): s for s in kept}
    for span in names:
        merged[(span.source, span.start, span.end)] = span
    ordered = sorted(merged.values(), key=lambda s: (s.position, s.kind))
    return mark_compounds(ordered, sources), gazetteer


def informativeness(term: Term, language: str = "en") -> int:
    """How much a search for ``term`` can tell (lower first; step 5 of the module docstring):
    0 an identity the report links or writes whose names its words agree with; 1 a unique
    strong exact catalog name; 2 other exact or inflected names; 3 a literal part of a misspelled
    name; 4 a link whose words do not match its identity, or a link without words, and an exact
    name that is one common word of the language (:mod:`.common_words`: "Trash", "Whirlwind");
    5 the rest."""
    if term.reference is not None:
        return 0 if term.reference.agrees else 4
    if term.exact_class < 2:
        if len(term.words) == 1 and common_word(term.text, language):
            return 4
        return 1 + term.exact_class
    return 3 if term.misspelling is not None else 5


def rank_terms(terms: Sequence[Term], language: str = "en") -> list[Term]:
    """Step 5's order (see the module docstring)."""
    words = {term.key: term.words for term in terms}
    lengths = sorted({len(w) for w in words.values()}) or [0]

    def key(term: Term) -> tuple[int, int, int, tuple[int, int, int], str]:
        own = words[term.key]
        part_of_other = len(own) < lengths[-1] and any(
            _is_part(own, other) for other in words.values()
        )
        cue = 0 if term.cues.any_subject_cue else 1
        return (informativeness(term, language), cue, int(part_of_other), term.first, term.key)

    return distinct_first(sorted(terms, key=key))


def _primary_first(catalog_names: Sequence[str], catalogs: Sequence[CatalogView]) -> str | None:
    kinds = {c.name: c.kind for c in catalogs}
    ordered = sorted(catalog_names, key=lambda n: (kinds.get(n) != "name",))
    return ordered[0] if ordered else None


def choose_catalog(term: Term, catalogs: Sequence[CatalogView], language: str) -> str:
    """Step 6 (see the module docstring)."""
    fixed = term.reference.catalog_kind if term.reference is not None else None
    if fixed is None and term.misspelling is not None:
        fixed = term.misspelling.catalog_kind
    if fixed is not None:
        chosen_kind = catalog_of_kind(fixed, catalogs)
        if chosen_kind is not None:
            return chosen_kind
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
    around = _containment(container.spans)
    return any(not _inside(span, around, strict_container=False) for span in term.spans)


def _reference(term: Term) -> IdentityReference | None:
    if term.reference is None:
        return None
    return IdentityReference(identity=term.reference.identity, link=term.reference.link.citation())


def _nameworthy(term: Term) -> bool:
    """Whether a term left over ``max_searches`` is a name worth listing as an unknown."""
    return term.reference is not None or term.exact_class < 2 or term.misspelling is not None


def _searched_text(term: Term) -> str:
    """The term a search proposes: literal text any contains search finds (see
    :func:`~.literal_terms.literal_term`), or a linked identity's words or digits as written."""
    return term.search_text if term.reference else literal_term(term.search_text)


def _cited(spans: Sequence[Span], more: Sequence[Span]) -> list[Span]:
    """The mentions a search cites, at most :data:`MAX_MENTIONS`: its own ``spans`` first (the
    first one stays first), then in text order those of ``more`` (another term searched by the
    same text) that are not among them."""
    own = {(s.source, s.start, s.end) for s in spans}
    others = {(s.source, s.start, s.end): s for s in more if (s.source, s.start, s.end) not in own}
    return [*spans, *sorted(others.values(), key=lambda s: s.position)][:MAX_MENTIONS]


def select_searches(
    ranked: Sequence[Term],
    catalogs: Sequence[CatalogView],
    language: str,
    max_searches: int,
    roles: RoleReader | None = None,
) -> tuple[list[ProposedSearch], list[UnsearchedName]]:
    """Steps 5-7: take terms in rank order, choose catalogs and roles, cite the mentions; the
    name-like terms left over ``max_searches`` are returned as unsearched names."""
    chosen: list[tuple[Term, str]] = []
    left: list[Term] = []
    left_parts: set[tuple[str, ...]] = set()  # the word runs some left term has a longer run of
    cues: dict[str, RoleCues] = {}
    searched: dict[tuple[str, str, int], int] = {}
    also_cited: dict[int, list[Span]] = {}
    for term in ranked:
        check_budget()
        if len(term.search_text) > MAX_TERM_CHARS:
            continue  # an over-long "word" (a log line, a URL) is never searched or proposed
        own = term.words
        container = next(
            (t for t, _ in chosen if term.reference is None and _is_part(own, t.words)), None
        )
        if container is not None and not _own_name(term, container):
            cues[container.key] = cues[container.key] + term.cues
            continue
        catalog = choose_catalog(term, catalogs, language)
        identity = term.reference.identity if term.reference is not None else 0
        key = (fold(_searched_text(term)), catalog, identity)  # the controller's duplicate key
        same = searched.get(key)
        if same is not None:
            # Another term is searched by the same text ("Thuzad" of "Kel’Thuzad" and of
            # "Kel‘Thuzad"): one search cites the mentions of both (two would be a duplicate).
            also_cited.setdefault(same, []).extend(term.spans)
            cues[chosen[same][0].key] = cues[chosen[same][0].key] + term.cues
            continue
        if len(chosen) >= max_searches:
            if _nameworthy(term) and tuple(own) not in left_parts:
                left.append(term)
                left_parts.update(_parts(own))
            continue
        searched[key] = len(chosen)
        chosen.append((term, catalog))
        cues[term.key] = term.cues
    by_name = {c.name: c for c in catalogs}
    if roles is not None:
        roles.anchor([term for term, _ in chosen], [cues[term.key] for term, _ in chosen])
    assigned = [
        roles.role(term, cues[term.key]) if roles is not None else None for term, _ in chosen
    ]
    chosen_roles = [
        role or _role(term, cues[term.key], by_name.get(catalog))
        for (term, catalog), role in zip(chosen, assigned, strict=True)
    ]
    if roles is None and "affected_subject" not in chosen_roles:
        order = sorted(range(len(chosen)), key=lambda i: chosen[i][0].first)
        fallback = next((i for i in order if chosen_roles[i] == "other_context"), None)
        if fallback is not None and not zone_like(chosen[fallback][0].text):
            chosen_roles[fallback] = "affected_subject"
    searches = [
        ProposedSearch(
            term=_searched_text(term),
            catalog=catalog,
            role=role,
            mentions=[s.citation() for s in _cited(term.spans, also_cited.get(number, []))],
            reference=_reference(term),
        )
        for number, ((term, catalog), role) in enumerate(zip(chosen, chosen_roles, strict=True))
    ]
    unsearched = [
        UnsearchedName(
            term=term.search_text,
            mentions=[s.citation() for s in term.spans[:MAX_MENTIONS]],
            role=(roles.role(term, term.cues) if roles is not None else None)
            or _role(term, term.cues, None),
        )
        for term in left
    ]
    return searches, unsearched


def plan_searches(
    context: PlanStageContext, index: NameIndex | None, corrected: bool = False
) -> ResolutionPlanOutput:
    """The heuristic plan of one case (see the module docstring).

    Args:
        context: the readable sources, the catalogs the plan may name, ``max_searches``.
        index: the name index of the gazetteer step, or None to skip it.
        corrected: protocol v6 corrected terms: names written with other separators and
            misspelled names are searched by the catalog's spelling (:mod:`.corrected_plan`).
    """
    catalogs = list(context.catalogs)
    if not catalogs or context.max_searches < 1:
        return ResolutionPlanOutput(searches=[])
    sources = [
        tokenize_source(source.alias, order, source.text, read_markup(source.text))
        for order, source in enumerate(context.sources)
        if source.readable and source.text
    ]
    language = guess_language([t.text for s in sources for t in s.tokens])
    spans, gazetteer = collect_spans(sources, catalogs, index, language)
    location_catalog = any(
        word in catalog.entity_type.casefold() for catalog in catalogs for word in _LOCATION_TYPES
    )
    facts = report_facts(sources, catalogs, location_catalog, language)
    grouped = group_terms(spans, sources, gazetteer, language)
    terms = admit_terms(grouped, gazetteer, facts, language)
    readers = None
    if index is not None and gazetteer is not None:
        admitted = {id(term) for term in terms}
        linked = attach_references(grouped, sources, index, language)
        terms = [
            *terms,
            *(t for t in grouped if t.reference is not None and id(t) not in admitted),
            *linked,
        ]
        terms = [t for t in terms if t.reference is not None or not t.weak or t.exact]
        terms = [t for t in terms if not not_for_creatures(t, index, catalogs)]
        terms = [case_safe(sharpened(t, sources, index), index) for t in terms]
        terms = without_dead_terms(terms, misspellings(grouped, terms, index, facts))
        readers = RoleReader(sources, index, gazetteer)
    searches, unsearched = select_searches(
        rank_terms(terms, language), catalogs, language, context.max_searches, readers
    )
    if corrected and index is not None and gazetteer is not None and readers is not None:  # v6
        parts = PlanParts(grouped, terms, sources, facts, index, gazetteer, catalogs, readers)
        searches, unsearched = corrected_searches(searches, unsearched, parts, context.max_searches)
    return ResolutionPlanOutput(searches=searches, unsearched=unsearched)
