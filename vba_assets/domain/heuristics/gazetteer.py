"""The gazetteer pass: which spans of the report are exactly a catalog name or localized name.

Bounded and read-only: through the injected :class:`~vba_assets.domain.catalog.world.CatalogSearch`,
one literal contains search per distinct significant word of the report (its search form: no
possessive, no plural ``s``, in German and Russian its stem) and catalog, marked words first
(capitalized other than at a sentence start, uncased script, non-ASCII letters), then the others,
each in order of first mention. At most :data:`MAX_GAZETTEER_SEARCHES` searches of
:data:`GAZETTEER_ROW_LIMIT` rows, of which at most :data:`MAX_LOCALIZED_SEARCHES` in the large
localized catalogs; those are searched only for words that can be a translated name (see
:class:`Word`: in an English report only foreign-looking words). The names returned are indexed by
:func:`~vba_assets.domain.catalog.matching.normalize_for_match` (a localized row keeps its ``locale``);
every run of one to :data:`MAX_NAME_WORDS` consecutive words of the report is then compared with
that index (exact equality, also for the singular of a capitalized plural, the stem of a
possessive and a name ending in an abbreviation's period: "Jr.").

What it cannot do: a name is found only if one of its words was searched and the name came back
within the row limit (a name whose every word is common can fall off a truncated search; the
planner then searches the whole phrase once). A word written with a different apostrophe than
the catalog's is searched in unified form, but the controller's later search uses the report's
own spelling. Chinese or Japanese text without spaces is one word per run and is not segmented.
An English report that writes a name in another language without non-ASCII letters ("Lardeur")
is not searched in the localized catalogs.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.catalog.world import CatalogSearch, Scalar
from vba_assets.domain.heuristics.lexicon import ZONE_WORDS, is_stopword
from vba_assets.domain.heuristics.search_words import (
    catalogs_for,
    search_form,
    significant_words,
)
from vba_assets.domain.heuristics.spans import (
    SourceText,
    Span,
    Token,
    name_gap,
    plain_gap,
)
from vba_assets.domain.prompting.stage_context import CatalogView

GAZETTEER_ROW_LIMIT = 50
MAX_GAZETTEER_SEARCHES = 40
MAX_LOCALIZED_SEARCHES = 16
MAX_NAME_WORDS = 6


@dataclass(frozen=True)
class CatalogName:
    """One (catalog, identity) a normalized name belongs to."""

    catalog: str
    kind: str
    identity: int | str
    name: str
    locale: str | None = None

    @property
    def language(self) -> str | None:
        """The language of a localized row ("deDE" -> "de"), None when it is not known."""
        return self.locale[:2].casefold() if self.locale else None


def row_locale(data: Mapping[str, Scalar]) -> str | None:
    """The locale of a catalog row: its data column named ``locale`` (any case), if any."""
    for key, value in data.items():
        if key.casefold() == "locale" and isinstance(value, str) and len(value) >= 2:
            return value
    return None


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

    def add(
        self, catalog: CatalogView, identity: int | str, name: str, locale: str | None = None
    ) -> None:
        entries = self.names.setdefault(normalize_for_match(name), [])
        entry = CatalogName(catalog.name, catalog.kind, identity, name, locale)
        if entry not in entries:
            entries.append(entry)

    def entries(self, text: str) -> list[CatalogName]:
        """Every (catalog, identity, locale) whose seen name equals ``text``."""
        return list(self.names.get(normalize_for_match(text), []))

    def exact(self, text: str) -> dict[str, list[int | str]]:
        """``catalog -> identities`` whose name equals ``text`` (catalogs in configured order)."""
        entries = self.names.get(normalize_for_match(text), [])
        found: dict[str, list[int | str]] = {}
        for catalog in self.catalogs:
            identities = list(
                dict.fromkeys(e.identity for e in entries if e.catalog == catalog.name)
            )
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

    def seen_names(self) -> list[tuple[str, str]]:
        """Every distinct seen (name as the catalog writes it, catalog), in the order first seen."""
        return list(
            dict.fromkeys((e.name, e.catalog) for entries in self.names.values() for e in entries)
        )

    def fully_truncated(self, word: str) -> bool:
        """True when every search for ``word`` was cut at the row limit (the index may miss names)."""
        return self.truncated_terms.get(search_form(word).casefold(), False)


def run_searches(
    gazetteer: Gazetteer,
    search: CatalogSearch,
    terms: Sequence[tuple[str, Sequence[CatalogView]]],
) -> None:
    """Search each term in its catalogs while the budgets last (never the same search twice).

    A term that does not fit the budgets any more loses its localized catalogs first; the pass
    ends at the first term that does not fit even then.
    """
    done = {(s.catalog, s.term.casefold()) for s in gazetteer.searches}
    kinds = {c.name: c.kind for c in gazetteer.catalogs}
    for term, catalogs in terms:
        todo = [c for c in catalogs if (c.name, term.casefold()) not in done]
        localized = sum(1 for s in gazetteer.searches if kinds.get(s.catalog) != "name")
        if localized + sum(1 for c in todo if c.kind != "name") > MAX_LOCALIZED_SEARCHES or (
            len(gazetteer.searches) + len(todo) > MAX_GAZETTEER_SEARCHES
        ):
            todo = [c for c in todo if c.kind == "name"]
        if not todo:
            continue
        if len(gazetteer.searches) + len(todo) > MAX_GAZETTEER_SEARCHES:
            break
        truncated_everywhere = True
        for catalog in todo:
            result = search.contains_search(catalog.name, term, GAZETTEER_ROW_LIMIT)
            for row in result.rows:
                gazetteer.add(catalog, row.identity, row.name, row_locale(row.data))
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
    language: str | None = None,
) -> Gazetteer:
    """One contains search per significant word and catalog, within the budget.

    Localized catalogs (the large tables) are searched only for the words of :class:`Word` that
    are ``localized``: a translated name is written like a name, and an English report names
    English names, which the primary catalog holds.
    """
    gazetteer = Gazetteer(tuple(catalogs))
    terms = [
        (word.form, catalogs_for(word.form, catalogs, english=english, localized=word.localized))
        for word in significant_words(sources, english=english, language=language)
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


def _variants(token: Token, text: str) -> list[tuple[int, str]]:
    """(end, variant) of the last word: as written, with a following period (a name that ends in
    an abbreviation: "Jr."), possessive stem, singular of a plural."""
    variants = [(token.end, "catalog")]
    if text[token.end : token.end + 1] == ".":
        variants.append((token.end + 1, "catalog"))
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
    for end, kind in _variants(source.tokens[last], source.text):
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
