"""Identity references of the heuristic plan: database links and ids written beside names.

Real reports link a creature's page of a public database (``[Mankrik](.../?npc=3432)``,
``https://www.wowhead.com/npc=3432/mankrik``) or write its id next to the name (``Loolruna (id
19694)``, ``.go c id 19832``). :mod:`.markup` finds the links and the standalone numbers; this
module decides which term each identity belongs to, with the name index:

* a **link** (strong) or a **number** (weak) whose identity has a name that a term of the report
  agrees with (:func:`~vba_assets.domain.resolution.links.agrees_with`, the controller's own
  test, or the same word stem in a language whose names inflect: "Эндоры" of "Эндора", then the
  term is the shared beginning "Эндор") gives that term the reference. A link prefers its own
  link text, then the nearest agreeing term on its line before it, then the first agreeing term;
  a number only counts for an agreeing term that ends at most :data:`NUMBER_REACH` characters
  before it on the same line (``Name (id 19694)``, ``Name - ID : 14221``);
* a link no term agrees with still names its creature: its link text becomes a term (the
  controller then records a ``link_disagrees`` unknown when the text does not match, e.g. a quest
  title linked to an NPC page by mistake); a link without link text becomes a **link-only** term,
  searched by the id's digits and citing the URL (its slug, if any, is the report's wording).

One identity gets one reference (its first link, else its first agreeing number); a term gets
at most one. A link longer than a citation may quote (:data:`MAX_LINK_CHARS`) or that holds a
zero-width or bidi control character is not read (no cited span
may cross one: its digits and words cannot be grounded); a link text that holds one is not its
term (the link is then link-only).

What it cannot do: a link whose id the index does not know (a later expansion's creature, a
custom server's own numbering) can only be a link-only or link-text term; the controller's fetch
then finds nothing (``no_match``). A number that is a spawn GUID, a quest or an item id counts
only when an index name of that same number agrees with a nearby term, which keeps it rare.
"""

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from vba_assets.domain.case.text import has_format_control
from vba_assets.domain.resolution.links import agrees_with, slugs
from vba_assets.domain.text_budget import check_budget
from vba_assets.heuristic.inflection import inflects, stem
from vba_assets.heuristic.markup import Link
from vba_assets.heuristic.name_index import IndexedName, NameIndex
from vba_assets.heuristic.roles import mention_cues
from vba_assets.heuristic.spans import SourceText, Span
from vba_assets.heuristic.terms import Reference, Term

#: How far (characters, same line) a number may follow the name it identifies.
NUMBER_REACH = 24
#: The longest link that is read: a citation quotes at most this many characters
#: (:class:`~vba_assets.domain.resolution.models.MentionCitation`).
MAX_LINK_CHARS = 300
#: Shortest shared beginning of an inflected name that is used as its term.
MIN_STEM_PREFIX = 4


@dataclass(frozen=True)
class _Candidate:
    identity: int
    source: SourceText
    start: int
    end: int
    strong: bool
    text_start: int | None = None
    text_end: int | None = None


def _candidates(sources: Sequence[SourceText], index: NameIndex) -> list[_Candidate]:
    found: list[_Candidate] = []
    for source in sources:
        markup = source.markup
        if markup is None:
            continue
        for link in markup.links:
            if link.end - link.start > MAX_LINK_CHARS:
                continue  # no citation can quote it (a run of URLs glued together)
            if not has_format_control(source.text[link.start : link.end]):
                found.append(_link_candidate(source, link))
        for number in markup.numbers:
            if index.names_of(number.value):
                found.append(_Candidate(number.value, source, number.start, number.end, False))
    return sorted(found, key=lambda c: (not c.strong, c.source.order, c.start))


def _link_candidate(source: SourceText, link: Link) -> _Candidate:
    return _Candidate(
        link.identity, source, link.start, link.end, True, link.text_start, link.text_end
    )


def _agreeing_name(
    text: str, names: Sequence[IndexedName], language: str
) -> tuple[IndexedName, str] | None:
    """The first name ``text`` agrees with, and the term to search (``text``, or for an
    inflected word its shared beginning with the name)."""
    for entry in names:
        if agrees_with(text, entry.name):
            return entry, text
    if not inflects(language) or " " in text.strip():
        return None
    for entry in names:
        if " " in entry.name.strip() or stem(text, language) != stem(entry.name, language):
            continue
        length = 0
        for left, right in zip(text.casefold(), entry.name.casefold(), strict=False):
            if left != right:
                break
            length += 1
        if length >= MIN_STEM_PREFIX and agrees_with(text[:length], entry.name):
            return entry, text[:length]
    return None


def _line(source: SourceText, position: int) -> tuple[int, int]:
    prose = source.reading
    return prose.line_start(position), prose.line_end(position)


def _score(
    candidate: _Candidate, span: Span, source: SourceText, line: tuple[int, int]
) -> tuple[int, int, int] | None:
    """How well ``span`` fits ``candidate`` (lower is better), None when it cannot be its name;
    ``line``: the candidate's line in ``source`` (:func:`_line`)."""
    same_source = span.source == source.alias
    if candidate.text_start is not None and same_source:
        if (span.start, span.end) == (candidate.text_start, candidate.text_end):
            return (0, 0, 0)
        if candidate.text_start <= span.start and span.end <= (candidate.text_end or 0):
            return (0, 1, 0)
    line_start, line_end = line
    on_line = same_source and line_start <= span.start and span.end <= line_end
    if not candidate.strong:
        gap = candidate.start - span.extent
        if not (on_line and 0 <= gap <= NUMBER_REACH):
            return None
        return (1, 0, gap)
    if on_line and span.end <= candidate.start:
        return (1, 0, candidate.start - span.end)
    return (2, span.order, span.start)


def _every_span(terms: Sequence[Term]) -> Iterator[tuple[Term, Span]]:
    """Every (term, span) pair, in term order then span order (the order ties are broken by)."""
    for term in terms:
        for span in term.spans:
            yield term, span


class _Nearby:
    """The spans by where they end: which may be the name of a number written right after them
    (at most :data:`NUMBER_REACH` characters), in :func:`_every_span` order. Built once: a term
    whose spans change (an inflected name narrowed to its stem) has its reference by then and
    is never looked at again."""

    def __init__(self, terms: Sequence[Term]) -> None:
        self._by_source: dict[str, list[tuple[int, int, Term, Span]]] = {}
        for rank, (term, span) in enumerate(_every_span(terms)):
            self._by_source.setdefault(span.source, []).append((span.extent, rank, term, span))
        for entries in self._by_source.values():
            entries.sort(key=lambda entry: (entry[0], entry[1]))
        self._extents = {
            source: [entry[0] for entry in entries] for source, entries in self._by_source.items()
        }

    def before(self, source: str, position: int) -> list[tuple[Term, Span]]:
        """The spans of ``source`` that end 0 to :data:`NUMBER_REACH` characters before
        ``position``, in :func:`_every_span` order."""
        extents = self._extents.get(source, [])
        low = bisect.bisect_left(extents, position - NUMBER_REACH)
        high = bisect.bisect_right(extents, position)
        found = sorted(self._by_source.get(source, [])[low:high], key=lambda entry: entry[1])
        return [(term, span) for _, _, term, span in found]


def attach_references(
    terms: Sequence[Term],
    sources: Sequence[SourceText],
    index: NameIndex,
    language: str,
) -> list[Term]:
    """Give terms their identity references; return the new link-text and link-only terms.

    ``terms`` are every candidate term of the report (admitted or not): a term that gets a
    reference is searched whether or not the admission rules kept it.
    """
    taken: set[int] = set()
    new_terms: list[Term] = []
    texts = {source.alias: source for source in sources}
    nearby = _Nearby(terms)
    for candidate in _candidates(sources, index):
        if candidate.identity in taken:
            continue
        check_budget()  # per link or id: its spans are compared
        names = index.names_of(candidate.identity)
        best: tuple[tuple[int, int, int], Term, Span, IndexedName, str] | None = None
        line = _line(candidate.source, candidate.start)
        agreeing: dict[str, tuple[IndexedName, str] | None] = {}  # one test per wording
        near = None if candidate.strong else nearby.before(candidate.source.alias, candidate.start)
        for term, span in near if near is not None else _every_span(terms):
            if term.reference is not None or not names:
                continue
            score = _score(candidate, span, candidate.source, line)
            if score is None or (best is not None and score >= best[0]):
                continue  # it could not be chosen: no need to test its wording
            if span.text not in agreeing:
                agreeing[span.text] = _agreeing_name(span.text, names, language)
            agreed = agreeing[span.text]
            if agreed is not None:
                best = (score, term, span, agreed[0], agreed[1])
        link = _link_span(candidate)
        if best is not None:
            _, term, span, entry, said = best
            kind = "name" if entry.primary else "localized_name"
            if said != span.text:  # an inflected word: its shared beginning is the term
                term.spans = [
                    replace(s, end=s.start + len(said), text=s.text[: len(said)], extent_end=s.end)
                    for s in term.spans
                    if s.text.casefold().startswith(said.casefold())
                ]
            term.reference = Reference(candidate.identity, link, True, kind, candidate.strong)
            taken.add(candidate.identity)
            continue
        if not candidate.strong:
            continue
        taken.add(candidate.identity)
        new_terms.append(_link_term(candidate, link, names, texts))
    return new_terms


def _link_span(candidate: _Candidate) -> Span:
    source = candidate.source
    text = source.text[candidate.start : candidate.end]
    return Span(source.alias, source.order, candidate.start, candidate.end, text, "link", 1)


def _link_term(
    candidate: _Candidate,
    link: Span,
    names: Sequence[IndexedName],
    sources: dict[str, SourceText],
) -> Term:
    """A term for a link no report term agrees with: its link text, else the link itself."""
    source = candidate.source
    if candidate.text_start is not None and candidate.text_end is not None:
        start, end = candidate.text_start, candidate.text_end
        raw = source.text[start:end]
        cut = raw.find("<")
        if cut > 0:
            end = start + len(raw[:cut].rstrip())
        text = source.text[start:end].strip()
        if text and any(char.isalpha() for char in text) and not has_format_control(text):
            start = source.text.index(text, start)
            span = Span(source.alias, source.order, start, start + len(text), text, "link_text", 1)
            agreed = next((e for e in names if agrees_with(text, e.name)), None)
            kind = "name" if agreed is None or agreed.primary else "localized_name"
            term = Term(text.casefold(), [span], reference=Reference(
                candidate.identity, link, agreed is not None, kind
            ))  # fmt: skip
            term.cues = mention_cues(sources[span.source].reading, span.start, span.end)
            return term
    words = slugs(link.text, candidate.identity)
    agreed = next((e for w in words for e in names if agrees_with(w, e.name)), None)
    kind = "name" if agreed is None or agreed.primary else "localized_name"
    term = Term(
        str(candidate.identity),
        [replace(link, kind="link_only")],
        reference=Reference(candidate.identity, link, agreed is not None, kind),
    )
    term.cues = mention_cues(source.reading, link.start, link.end)
    return term
