"""Terms of the heuristic plan: the mentions of one name, and what the catalogs say about it.

A :class:`Term` groups every candidate span with the same case-insensitive text, sums the role
cues of its mentions (:mod:`.roles`) and records its exact catalog matches, split by strength:

* **strong**: a primary ``name`` catalog entry, or a localized entry whose row is in the report's
  language, or whose name is foreign-looking (non-ASCII letters: "Spatzenjäger", "Грубобрюх");
* **weak**: a localized entry, written in plain ASCII, whose rows are all in another language
  than the report's (in an English report every localized ASCII match is weak: English names
  live in the primary catalog, so such a row is an untranslated copy or another language's
  spelling, e.g. a deDE row that kept the English "Arcanist Adurin" that two entries carry).

It also reads two facts of the whole report that the admission rules need (:class:`ReportFacts`):
which words the report writes in lower case, and whether the reporter writes in lower case
anyway (then lower case is no evidence of a common noun).

What it cannot do: a localized catalog without a ``locale`` data column gives no row language;
in a non-English report such a match counts as strong.
"""

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from vba_assets.domain.catalog.names import tokenize
from vba_assets.domain.stage_context import CatalogView
from vba_assets.domain.text_budget import check_budget
from vba_assets.heuristic.gazetteer import Gazetteer
from vba_assets.heuristic.lexicon import NOUN_CAPITALIZING, foreign_looking
from vba_assets.heuristic.roles import RoleCues, mention_cues
from vba_assets.heuristic.spans import SourceText, Span

#: Span kinds that mean the report wrote the name in the plural ("Defias Thugs").
PLURAL_KINDS = frozenset({"singular", "catalog_singular"})
#: Span kinds of :mod:`.inflection`: a several-word name, a one-word name.
INFLECTED_KINDS = frozenset({"inflected", "inflected_word"})


@dataclass(frozen=True)
class Reference:
    """The identity a report gives for a term: a database link or an id beside the name.

    ``link`` is the span that holds the digits (the URL, or the number); ``agrees``: the index
    holds a name of ``identity`` that the report's words for it agree with (in ``catalog_kind``:
    ``name`` for a primary name, ``localized_name`` for a locale's); ``strong``: a database link
    (a bare number counts only when it agrees).
    """

    identity: int
    link: Span
    agrees: bool
    catalog_kind: str = "name"
    strong: bool = True


@dataclass(frozen=True)
class Misspelling:
    """A term that is a literal part of a misspelled mention: the name it is closest to."""

    name: str
    identity: int
    score: float
    catalog_kind: str = "name"


@dataclass
class Term:
    """All mentions of one case-insensitive term, and what the catalogs say about it."""

    key: str
    spans: list[Span]
    exact: dict[str, list[int | str]] = field(default_factory=dict)
    weak_catalogs: frozenset[str] = frozenset()
    containing: list[str] = field(default_factory=list)
    cues: RoleCues = field(default_factory=RoleCues)
    #: The identity the report links or writes for this term (an identity-reference search).
    reference: Reference | None = None
    #: Set when the term is a literal part of a misspelled mention (:mod:`.misspellings`).
    misspelling: Misspelling | None = None
    #: The literal part of the mentions that is searched, when it is not the whole mention (a
    #: misspelled name is searched by the part a catalog name contains; the mentions stay whole).
    narrow: str | None = None

    @property
    def text(self) -> str:
        """The surface form: the first mention with a capital letter, else the first mention."""
        return next((s.text for s in self.spans if s.text != s.text.lower()), self.spans[0].text)

    @property
    def search_text(self) -> str:
        """The term a search uses: the text, or a link-only term's identity digits."""
        if self.reference is not None and any(s.kind == "link_only" for s in self.spans):
            return str(self.reference.identity)
        return self.narrow or self.text

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
    def strong_exact(self) -> dict[str, list[int | str]]:
        """The exact matches that are not weak evidence (see the module docstring)."""
        return {name: ids for name, ids in self.exact.items() if name not in self.weak_catalogs}

    @property
    def finds_nothing(self) -> bool:
        """No catalog name equals or contains the term, and it has no identity reference, no
        misspelling and no inflection: a literal contains search for it finds nothing."""
        return not (
            self.exact
            or self.containing
            or self.reference is not None
            or self.misspelling is not None
            or self.inflected
        )

    @property
    def inflected(self) -> bool:
        """Some mention is an inflected form of a seen catalog name (:mod:`.inflection`)."""
        return any(span.kind in INFLECTED_KINDS for span in self.spans)

    @property
    def inflected_phrase(self) -> bool:
        """Some mention is the uninflected start of a longer catalog name ("Wilde")."""
        return any(span.kind == "inflected" for span in self.spans)

    @property
    def exact_class(self) -> int:
        """0: a unique strong exact match in some catalog; 1: other exact matches, or an
        inflected form of a catalog name; 2: none."""
        if any(len(ids) == 1 for ids in self.strong_exact.values()):
            return 0
        return 1 if self.exact or self.inflected else 2


def fold(text: str) -> str:
    return text.casefold()


def weak_catalogs(gazetteer: Gazetteer, text: str, language: str) -> frozenset[str]:
    """Localized catalogs whose exact matches of ``text`` are weak evidence in this report."""
    if foreign_looking(text):
        return frozenset()
    weak: set[str] = set()
    by_catalog: dict[str, list[str | None]] = {}
    for entry in gazetteer.entries(text):
        if entry.kind != "name":
            by_catalog.setdefault(entry.catalog, []).append(entry.language)
    for catalog, languages in by_catalog.items():
        if language in languages:
            continue
        if language == "en" or all(found is not None for found in languages):
            weak.add(catalog)
    return frozenset(weak)


def set_catalog_facts(term: Term, gazetteer: Gazetteer, language: str) -> None:
    """Exact matches (with their strength) and, without one, the catalogs containing the term."""
    term.exact = gazetteer.exact(term.text)
    term.weak_catalogs = weak_catalogs(gazetteer, term.text, language)
    term.containing = [] if term.exact else gazetteer.containing_catalogs(term.text)
    matched = {name for span in term.spans for name in span.found_in}
    if matched and not term.exact:
        # an inflected name is searched where the name it inflects was found
        term.containing = [name for name in term.containing if name in matched]


def group_terms(
    spans: Sequence[Span],
    sources: Sequence[SourceText],
    gazetteer: Gazetteer | None,
    language: str = "en",
) -> list[Term]:
    """One :class:`Term` per case-insensitive text, in order of first mention.

    A plural mention ("the Defias Thugs") takes no quest-giver cue: a giver is one NPC.
    """
    texts = {source.alias: source.reading for source in sources}
    terms: dict[str, Term] = {}
    for span in spans:
        check_budget()  # per mention: its role cues read the text around it
        term = terms.setdefault(fold(span.text), Term(fold(span.text), []))
        term.spans.append(span)
        cues = mention_cues(texts[span.source], span.start, span.extent)
        if span.kind in PLURAL_KINDS:
            cues = cues.without_giver()  # a plural mention is never a quest giver
        term.cues = term.cues + cues
    for term in terms.values():
        term.spans.sort(key=lambda s: s.position)
        if gazetteer is not None:
            set_catalog_facts(term, gazetteer, language)
    return sorted(terms.values(), key=lambda t: t.first)


@dataclass(frozen=True)
class ReportFacts:
    """Facts of the whole report that the admission rules read.

    ``lowercase_words``: case-folded words the report writes in lower case somewhere.
    ``casual``: the reporter writes in lower case anyway (a lower-case pronoun "i", or most
    sentence starts in lower case), so lower case is no evidence of a common noun.
    ``location_catalog``: some configured catalog holds places.
    ``noun_capitals``: the report's language capitalizes every noun (German), so a capitalized
    single word is no evidence of a name.
    ``primary``: the names of the primary ``name`` catalogs.
    """

    lowercase_words: frozenset[str]
    casual: bool
    location_catalog: bool = False
    noun_capitals: bool = False
    primary: frozenset[str] = frozenset()
    #: ``(source, offset)`` of words right after an article ("the normal realm": a common noun
    #: phrase when written in lower case).
    after_article: frozenset[tuple[str, int]] = frozenset()
    #: ``(source, offset)`` of words right after a quest word ("Quest The Heart of Hakkar",
    #: "[Quest] Are We There, Yeti?": a quest title, not a creature).
    after_quest: frozenset[tuple[str, int]] = frozenset()
    #: ``(source, start, end)`` of link texts whose link is a quest, item, spell or other
    #: non-creature database page.
    other_links: frozenset[tuple[str, int, int]] = frozenset()
    #: ``(source, offset)`` of words right after "reported by" and the like ("Originally
    #: reported by: **Mikhail**": the person who wrote the report, not a creature).
    after_reporter: frozenset[tuple[str, int]] = frozenset()
    #: The report's language (:func:`~.lexicon.guess_language`).
    language: str = "en"


def report_facts(
    sources: Sequence[SourceText],
    catalogs: Sequence[CatalogView] = (),
    location_catalog: bool = False,
    language: str = "en",
) -> ReportFacts:
    """The :class:`ReportFacts` of the readable sources."""
    lowercase: set[str] = set()
    starts = lowercase_starts = 0
    pronoun = False
    for source in sources:
        for token in source.tokens:
            if not token.cased or token.enclosed:
                continue
            if not token.capitalized:
                lowercase.add(token.text.casefold())
                pronoun = pronoun or token.text == "i"
            if token.sentence_initial:
                starts += 1
                lowercase_starts += 0 if token.capitalized else 1
    casual = pronoun or (starts >= 2 and lowercase_starts * 2 >= starts)
    after_article: set[tuple[str, int]] = set()
    after_quest: set[tuple[str, int]] = set()
    other_links: set[tuple[str, int, int]] = set()
    after_reporter: set[tuple[str, int]] = set()
    for source in sources:
        tokens = source.tokens
        for index, (before, token) in enumerate(itertools.pairwise(tokens)):
            gap = source.text[before.end : token.start]
            if before.line != token.line or len(gap) > 3:
                continue
            word = before.text.casefold()
            following = tokens[index + 2] if index + 2 < len(tokens) else None
            if word in ARTICLES and gap.strip() == "":
                after_article.add((source.alias, token.start))
            if word in QUEST_WORDS and gap.strip(" :]-") == "":
                after_quest.add((source.alias, token.start))
                if token.text.casefold() in ARTICLES and following is not None:
                    after_quest.add((source.alias, following.start))
            if (
                word in REPORTER_VERBS
                and token.text.casefold() == "by"
                and following is not None
                and following.line == token.line
                and source.text[token.end : following.start].strip(" :*_") == ""
            ):
                after_reporter.add((source.alias, following.start))
        if source.markup is not None:
            other_links.update((source.alias, s, e) for s, e in source.markup.other_link_texts)
    return ReportFacts(
        frozenset(lowercase),
        casual,
        location_catalog,
        language in NOUN_CAPITALIZING,
        frozenset(c.name for c in catalogs if c.kind == "name"),
        frozenset(after_article),
        frozenset(after_quest),
        frozenset(other_links),
        frozenset(after_reporter),
        language,
    )


#: Articles before a lower-case common noun phrase.
ARTICLES = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "le",
        "la",
        "les",
        "un",
        "une",
        "el",
        "los",
        "las",
    ]
)
#: Words that introduce a quest title.
#: Words before "by" that name who wrote a report ("Originally reported by: **Name**").
REPORTER_VERBS = frozenset(["reported", "posted", "written", "created", "submitted", "opened"])
QUEST_WORDS = frozenset(
    ["quest", "quests", "quête", "misión", "mision", "aufgabe", "задание", "квест"]
)
