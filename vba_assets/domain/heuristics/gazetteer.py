"""The gazetteer pass: which spans of the report are exactly a catalog name or localized name.

Bounded and read-only: through the injected :class:`~vba_assets.domain.research.CatalogSearch`,
one literal contains search per distinct significant word of the report and per catalog (at most
:data:`MAX_GAZETTEER_SEARCHES` searches of :data:`GAZETTEER_ROW_LIMIT` rows), marked words first
(capitalized other than at a sentence start, uncased script, non-ASCII letters), then the others,
each in order of first mention (in an English report, unmarked words are not searched in
localized catalogs). The
names returned are indexed by :func:`~vba_assets.domain.matching.normalize_for_match`; every run of
one to :data:`MAX_NAME_WORDS` consecutive words of the report is then compared with that index
(exact equality, also for the singular of a capitalized plural and the stem of a possessive).

What it cannot do: a name is found only if one of its words was searched and the name came back
within the row limit (a name whose every word is common can fall off a truncated search; the
planner then searches the whole phrase once). A word written with a different apostrophe than
the catalog's is searched in unified form, but the controller's later search uses the report's
own spelling. Chinese or Japanese text without spaces is one word per run and is not segmented.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from vba_assets.domain.heuristics.lexicon import ZONE_WORDS, is_stopword
from vba_assets.domain.heuristics.spans import (
    SourceText,
    Span,
    Token,
    name_gap,
    plain_gap,
)
from vba_assets.domain.matching import normalize_for_match, unify_punctuation
from vba_assets.domain.research import CatalogSearch
from vba_assets.domain.stage_context import CatalogView

GAZETTEER_ROW_LIMIT = 50
MAX_GAZETTEER_SEARCHES = 64
MAX_NAME_WORDS = 6
MIN_WORD_CHARS = 3


@dataclass(frozen=True)
class CatalogName:
    """One (catalog, identity) a normalized name belongs to."""

    catalog: str
    kind: str
    identity: int | str
    name: str


@dataclass(frozen=True)
class GazetteerSearch:
    """One contains search the gazetteer made (for the provider's own bookkeeping and tests)."""

    catalog: str
    term: str
    rows: int
    truncated: bool


@dataclass
class Gazetteer:
    """Catalog names seen by the bounded searches, indexed by normalized name."""

    catalogs: tuple[CatalogView, ...]
    names: dict[str, list[CatalogName]] = field(default_factory=dict)
    searches: list[GazetteerSearch] = field(default_factory=list)
    truncated_terms: dict[str, bool] = field(default_factory=dict)

    def add(self, catalog: CatalogView, identity: int | str, name: str) -> None:
        entries = self.names.setdefault(normalize_for_match(name), [])
        if not any(e.catalog == catalog.name and e.identity == identity for e in entries):
            entries.append(CatalogName(catalog.name, catalog.kind, identity, name))

    def exact(self, text: str) -> dict[str, list[int | str]]:
        """``catalog -> identities`` whose name equals ``text`` (catalogs in configured order)."""
        entries = self.names.get(normalize_for_match(text), [])
        found: dict[str, list[int | str]] = {}
        for catalog in self.catalogs:
            identities = [e.identity for e in entries if e.catalog == catalog.name]
            if identities:
                found[catalog.name] = identities
        return found

    def containing_catalogs(self, text: str) -> list[str]:
        """Catalogs (configured order) where some seen name contains ``text`` as a substring."""
        needle = normalize_for_match(text)
        hits: list[str] = []
        for catalog in self.catalogs:
            if any(
                needle in normalized and any(e.catalog == catalog.name for e in entries)
                for normalized, entries in self.names.items()
            ):
                hits.append(catalog.name)
        return hits

    def containing_entities(self, text: str, limit: int) -> int:
        """How many distinct entities have a seen name containing ``text`` (stops past ``limit``).

        An entity is (entity type, identity): its translations count once.
        """
        needle = normalize_for_match(text)
        types = {catalog.name: catalog.entity_type for catalog in self.catalogs}
        found: set[tuple[str, str]] = set()
        for normalized, entries in self.names.items():
            if needle in normalized:
                found.update((types[e.catalog], repr(e.identity)) for e in entries)
                if len(found) > limit:
                    break
        return len(found)

    def fully_truncated(self, word: str) -> bool:
        """True when every search for ``word`` was cut at the row limit (the index may miss names)."""
        return self.truncated_terms.get(search_form(word).casefold(), False)


def search_form(word: str) -> str:
    """The term a word is searched by: possessive stem, unified apostrophes, a plural's stem.

    A contains search for "Wolpertinger" also finds "Wolpertingers", so the trailing ``s`` of a
    word of five or more letters is dropped (a superset, never a miss).
    """
    text = unify_punctuation(word)
    if len(text) > 3 and text.endswith(("'s", "'S")):
        text = text[:-2]
    if len(text) >= 5 and text.endswith("s") and not text.endswith("ss"):
        text = text[:-1]
    return text


def _significant(token: Token) -> bool:
    if token.enclosed or token.has_digit:
        return False
    letters = sum(1 for char in token.text if char.isalpha())
    if letters < (MIN_WORD_CHARS if token.cased else 2):
        return False
    return not is_stopword(token.text)


@dataclass(frozen=True)
class Word:
    """A distinct search form and whether it looks like part of a name.

    ``marked``: capitalized somewhere other than at the start of a sentence, in an uncased script,
    or with non-ASCII letters.
    """

    form: str
    marked: bool


def significant_words(sources: Sequence[SourceText]) -> list[Word]:
    """Distinct search forms, marked words first, then the others; each by first mention."""
    first: dict[str, tuple[int, int, int, str]] = {}
    marked: dict[str, bool] = {}
    for source in sources:
        for token in source.tokens:
            if not _significant(token):
                continue
            form = search_form(token.text)
            key = form.casefold()
            is_marked = (
                (token.capitalized and not token.sentence_initial)
                or not token.cased
                or any(ord(char) > 127 and char.isalpha() for char in token.text)
            )
            marked[key] = marked.get(key, False) or is_marked
            rank = (0 if is_marked else 1, source.order, token.start)
            if key not in first or rank < first[key][:3]:
                first[key] = (*rank, form)
    return [Word(entry[3], marked[key]) for key, entry in sorted(first.items(), key=lambda i: i[1])]


def run_searches(
    gazetteer: Gazetteer,
    search: CatalogSearch,
    terms: Sequence[tuple[str, Sequence[CatalogView]]],
) -> None:
    """Search each term in its catalogs while the budget lasts (never the same search twice)."""
    done = {(s.catalog, s.term.casefold()) for s in gazetteer.searches}
    for term, catalogs in terms:
        todo = [c for c in catalogs if (c.name, term.casefold()) not in done]
        if not todo:
            continue
        if len(gazetteer.searches) + len(todo) > MAX_GAZETTEER_SEARCHES:
            break
        truncated_everywhere = True
        for catalog in todo:
            result = search.contains_search(catalog.name, term, GAZETTEER_ROW_LIMIT)
            for row in result.rows:
                gazetteer.add(catalog, row.identity, row.name)
            gazetteer.searches.append(
                GazetteerSearch(catalog.name, term, len(result.rows), result.truncated)
            )
            done.add((catalog.name, term.casefold()))
            truncated_everywhere = truncated_everywhere and result.truncated
        gazetteer.truncated_terms[term.casefold()] = truncated_everywhere


def build_gazetteer(
    sources: Sequence[SourceText],
    catalogs: Sequence[CatalogView],
    search: CatalogSearch,
    *,
    english: bool,
) -> Gazetteer:
    """One contains search per significant word and catalog, within the budget.

    In an English report, localized catalogs are searched only for marked words (see
    :class:`Word`): a translated name is written like a name, and the localized tables are the
    large ones.
    """
    gazetteer = Gazetteer(tuple(catalogs))
    terms = [
        (word.form, [c for c in catalogs if c.kind == "name" or word.marked or not english])
        for word in significant_words(sources)
    ]
    run_searches(gazetteer, search, terms)
    return gazetteer


def _name_word_before(source: SourceText, index: int) -> bool:
    """True when the word before ``index`` is a capitalized name word glued to it by spaces.

    A zone word ("in Black Temple Illidan Stormrage") or a sentence-initial word does not count.
    """
    if index == 0:
        return False
    before, token = source.tokens[index - 1], source.tokens[index]
    return (
        plain_gap(source.text, before, token)
        and before.capitalized
        and not before.sentence_initial
        and before.text.casefold() not in ZONE_WORDS
        and not before.enclosed
        and not before.has_digit
        and not is_stopword(before.text)
    )


def _name_word_after(source: SourceText, index: int) -> bool:
    if index + 1 >= len(source.tokens):
        return False
    token, after = source.tokens[index], source.tokens[index + 1]
    return (
        plain_gap(source.text, token, after)
        and after.capitalized
        and not after.enclosed
        and not after.has_digit
        and not is_stopword(after.text)
    )


def _variants(token: Token) -> list[tuple[int, str]]:
    """(end, variant) of the last word: as written, possessive stem, singular of a plural."""
    variants = [(token.end, "catalog")]
    if token.possessive_end is not None:
        variants.append((token.possessive_end, "catalog_possessive"))
    elif token.capitalized and token.text.endswith("s") and len(token.text) >= 4:
        variants.append((token.end - 1, "catalog_singular"))
    return variants


def _window_spans(source: SourceText, first: int, last: int, gazetteer: Gazetteer) -> list[Span]:
    tokens = source.tokens[first : last + 1]
    if all(is_stopword(t.text) for t in tokens):
        return []
    title_case = tokens[0].line in source.title_case_lines
    capitalized = any(t.capitalized for t in tokens)
    found: list[Span] = []
    for end, kind in _variants(source.tokens[last]):
        text = source.text[tokens[0].start : end]
        if normalize_for_match(text) not in gazetteer.names:
            continue
        if capitalized and not title_case:
            if _name_word_before(source, first):
                continue
            if kind != "catalog_possessive" and _name_word_after(source, last):
                continue
        weak = not capitalized and len(tokens) == 1
        found.append(
            Span(
                source.alias,
                source.order,
                tokens[0].start,
                end,
                text,
                kind,
                len(tokens),
                weak,
                tokens[0].sentence_initial,
            )
        )
    return found


def catalog_name_spans(sources: Sequence[SourceText], gazetteer: Gazetteer) -> list[Span]:
    """Spans equal to a seen catalog name; a match inside a longer match at that place is dropped.

    A capitalized match must be a whole name unit: a capitalized word glued to it on either side
    ("Wolpertinger Net", "Stunned Wolpertingers") means it is part of another name, unless the
    line is in Title Case. A single lower-case word that matches is kept but marked weak.
    """
    spans: list[Span] = []
    for source in sources:
        found: list[Span] = []
        tokens = source.tokens
        for first in range(len(tokens)):
            if tokens[first].enclosed:
                continue
            for last in range(first, min(first + MAX_NAME_WORDS, len(tokens))):
                if last > first and (
                    tokens[last].enclosed
                    or not name_gap(source.text, tokens[last - 1], tokens[last])
                ):
                    break
                found.extend(_window_spans(source, first, last, gazetteer))
        found.sort(key=lambda s: (-(s.end - s.start), s.start))
        kept: list[Span] = []
        for span in found:
            if not any(
                k.start <= span.start
                and span.end <= k.end
                and (k.start, k.end) != (span.start, span.end)
                for k in kept
            ):
                kept.append(span)
        spans.extend(sorted(kept, key=lambda s: s.position))
    return spans
