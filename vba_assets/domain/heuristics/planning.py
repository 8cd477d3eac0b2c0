"""The heuristic resolution plan (model call 1 without a model).

Steps, all deterministic:

1. Candidate spans of every readable source (:mod:`.spans`).
2. With a catalog search: the bounded gazetteer pass (:mod:`.gazetteer`) adds every span that
   exactly equals a catalog name or localized name; text spans inside or around such a span give
   way to it. Without a catalog search this step is skipped and every span stays a candidate.
3. Spans are grouped into terms (case-insensitive); each term gets its role cues (:mod:`.roles`),
   its exact catalog matches and the catalogs whose seen names contain it.
4. With the gazetteer, a term is kept when it exactly matches a catalog name (a single lower-case
   word only with an affected/quest-giver cue), or when it has such a cue (a misspelled name is
   then narrowed to its longest part that some catalog name contains: "Glodrak Huntsnipper" ->
   "Glodrak"), or when it is a capitalized multi-word name some catalog name contains.
5. Ranking: a unique exact match in some catalog first, then several exact matches, then the
   rest; within each, terms with a subject cue first, then terms that are not part of another
   candidate ("longer spans over their substrings"), then first mention. Terms are taken in that
   order up to ``max_searches``; a term that is a word-for-word part of an already taken term is
   skipped and its cues count for the longer term. Never two searches with the same (term,
   catalog).
6. Catalog: the one with a unique exact match (primary ``name`` catalogs before localized ones),
   else one with any exact match, else one whose names contain the term, else by the report's
   language (a localized catalog for a non-English report or a term with non-ASCII letters).
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
from dataclasses import dataclass, field

from vba_assets.domain.heuristics.gazetteer import (
    Gazetteer,
    build_gazetteer,
    catalog_name_spans,
    run_searches,
)
from vba_assets.domain.heuristics.lexicon import guess_language, is_stopword
from vba_assets.domain.heuristics.roles import RoleCues, mention_cues, zone_like
from vba_assets.domain.heuristics.spans import SourceText, Span, extract_spans, tokenize_source
from vba_assets.domain.matching import tokenize
from vba_assets.domain.research import CatalogSearch
from vba_assets.domain.resolution_models import (
    MentionCitation,
    ProposedSearch,
    ResolutionPlanOutput,
    SearchRole,
)
from vba_assets.domain.stage_context import CatalogView, PlanStageContext

MAX_MENTIONS = 8
#: A misspelled name is narrowed to a part that the names of at most this many entities contain.
MAX_NARROWED = 3
_TEXT_KINDS = ("run", "run_tail", "subrun", "singular", "quoted")
_WORD = re.compile(r"[^\W_]+(?:['’ʼ‘-][^\W_]+)*")
_LOCATION_TYPES = ("zone", "area", "map", "location", "place", "region", "subzone")


@dataclass
class Term:
    """All mentions of one case-insensitive term, and what the catalogs say about it."""

    key: str
    spans: list[Span]
    exact: dict[str, list[int | str]] = field(default_factory=dict)
    containing: list[str] = field(default_factory=list)
    cues: RoleCues = field(default_factory=RoleCues)

    @property
    def text(self) -> str:
        """The surface form: the first mention with a capital letter, else the first mention."""
        return next((s.text for s in self.spans if s.text != s.text.lower()), self.spans[0].text)

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(tokenize(self.text))

    @property
    def weak(self) -> bool:
        return all(span.weak for span in self.spans)

    @property
    def first(self) -> tuple[int, int, int]:
        return self.spans[0].position

    @property
    def proper(self) -> bool:
        """Some mention is capitalized like a name (see :attr:`Span.proper`)."""
        return any(span.proper for span in self.spans)

    @property
    def exact_class(self) -> int:
        """0: a unique exact match in some catalog; 1: several exact matches; 2: none."""
        if any(len(ids) == 1 for ids in self.exact.values()):
            return 0
        return 1 if self.exact else 2


def _fold(text: str) -> str:
    return text.casefold()


def _is_part(short: Sequence[str], long: Sequence[str]) -> bool:
    """True when ``short`` is a contiguous proper word sequence of ``long``."""
    width = len(short)
    if not short or width >= len(long):
        return False
    return any(tuple(long[i : i + width]) == tuple(short) for i in range(len(long) - width + 1))


def _inside(span: Span, others: Sequence[Span], *, strict_container: bool) -> bool:
    for other in others:
        if other.source != span.source or (other.start, other.end) == (span.start, span.end):
            continue
        if other.start <= span.start and span.end <= other.end:
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
        return spans, None
    gazetteer = build_gazetteer(sources, catalogs, search, english=language == "en")
    phrases: dict[str, str] = {}
    for span in spans:
        words = _WORD.findall(span.text)
        if (
            span.kind in _TEXT_KINDS
            and len(words) > 1
            and not gazetteer.exact(span.text)
            and all(gazetteer.fully_truncated(w) or is_stopword(w) for w in words)
        ):
            phrases.setdefault(_fold(span.text), span.text)
    run_searches(gazetteer, search, [(phrase, catalogs) for phrase in phrases.values()])
    names = catalog_name_spans(sources, gazetteer)
    kept = [s for s in spans if not _inside(s, names, strict_container=True)]
    merged: dict[tuple[str, int, int], Span] = {(s.source, s.start, s.end): s for s in kept}
    for span in names:
        merged[(span.source, span.start, span.end)] = span
    return sorted(merged.values(), key=lambda s: (s.position, s.kind)), gazetteer


def group_terms(
    spans: Sequence[Span], sources: Sequence[SourceText], gazetteer: Gazetteer | None
) -> list[Term]:
    """Step 3: one :class:`Term` per case-insensitive text, in order of first mention."""
    texts = {source.alias: source.text for source in sources}
    terms: dict[str, Term] = {}
    for span in spans:
        term = terms.setdefault(_fold(span.text), Term(_fold(span.text), []))
        term.spans.append(span)
        term.cues = term.cues + mention_cues(texts[span.source], span.start, span.end)
    for term in terms.values():
        term.spans.sort(key=lambda s: s.position)
        if gazetteer is not None:
            term.exact = gazetteer.exact(term.text)
            term.containing = [] if term.exact else gazetteer.containing_catalogs(term.text)
    return sorted(terms.values(), key=lambda t: t.first)


def _narrowed(term: Term, gazetteer: Gazetteer) -> Term | None:
    """The longest word sequence of ``term`` that names of a few entities contain (misspellings).

    "Glodrak Huntsnipper" -> "Glodrak" (one entity's names contain it). A part that the names of
    many entities contain says nothing about which one is meant and is not used.
    """
    words = _WORD.findall(term.spans[0].text)
    for width in range(len(words) - 1, 0, -1):
        for first in range(len(words) - width + 1):
            part = words[first : first + width]
            if all(is_stopword(w) or len(w) < 3 for w in part):
                continue
            spans: list[Span] = []
            for span in term.spans:
                found = list(_WORD.finditer(span.text))
                if len(found) != len(words):
                    continue
                start = span.start + found[first].start()
                end = span.start + found[first + width - 1].end()
                text = span.text[start - span.start : end - span.start]
                spans.append(
                    Span(span.source, span.order, start, end, text, "narrowed", width, span.weak)
                )
            matches = gazetteer.containing_entities(spans[0].text, MAX_NARROWED) if spans else 0
            if 0 < matches <= MAX_NARROWED:
                narrowed = Term(_fold(spans[0].text), spans, cues=term.cues)
                narrowed.exact = gazetteer.exact(narrowed.text)
                if not narrowed.exact:
                    narrowed.containing = gazetteer.containing_catalogs(narrowed.text)
                return narrowed
    return None


def _merge_spans(left: Sequence[Span], right: Sequence[Span]) -> list[Span]:
    merged: dict[tuple[str, int, int], Span] = {}
    for span in [*left, *right]:
        merged.setdefault((span.source, span.start, span.end), span)
    return sorted(merged.values(), key=lambda s: s.position)


def admit_terms(
    terms: Sequence[Term], gazetteer: Gazetteer | None, location_catalog: bool
) -> list[Term]:
    """Step 4: the terms worth a search.

    Without a gazetteer: every term capitalized like a name (not only at a sentence start) or
    with a subject cue.

    ``location_catalog``: some catalog holds places; otherwise a term whose only cue is locative
    ("in Dun Morogh") and that no catalog name equals is not searched.
    """
    if gazetteer is None:
        return [t for t in terms if not t.weak and (t.proper or t.cues.any_subject_cue)]
    admitted: dict[str, Term] = {}
    for term in terms:
        subject_cue = term.cues.any_subject_cue
        only_place = term.cues.location > 0 and not subject_cue and not location_catalog
        if term.exact:
            named = term.proper or any(span.words > 1 for span in term.spans)
            keep: Term | None = term if (named or subject_cue) else None
        elif term.weak or only_place:
            keep = None
        elif subject_cue:
            keep = term if term.containing else (_narrowed(term, gazetteer) or term)
        elif term.containing and len(term.words) > 1 and term.proper:
            keep = term
        else:
            keep = None
        if keep is None:
            continue
        existing = admitted.get(keep.key)
        if existing is None:
            admitted[keep.key] = keep
        else:
            existing.spans = _merge_spans(existing.spans, keep.spans)
            existing.cues = existing.cues + keep.cues
    return sorted(admitted.values(), key=lambda t: t.first)


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
    unique = [name for name, ids in term.exact.items() if len(ids) == 1]
    chosen = (
        _primary_first(unique, catalogs)
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
        if container is not None:
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
    terms = admit_terms(group_terms(spans, sources, gazetteer), gazetteer, location_catalog)
    searches = select_searches(rank_terms(terms), catalogs, language, context.max_searches)
    return ResolutionPlanOutput(searches=searches)
