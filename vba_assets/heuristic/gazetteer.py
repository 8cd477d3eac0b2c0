"""The gazetteer: which spans of the report are exactly a catalog name or localized name.

It answers from the heuristic's versioned name index
(:class:`~vba_assets.heuristic.name_index.NameIndex`), never from the world database: every
creature name of every locale the index holds is known, so nothing is "seen" or "truncated" any
more, and a plan depends only on the request and the index its reply names. Index entries map to
the configured catalogs of entity type ``creature``: a primary name to the ``name`` catalogs, a
localized name (with its ``locale``) to the ``localized_name`` catalogs. Every run of one to
:data:`MAX_NAME_WORDS` consecutive words of the report is compared with the index (exact equality
after :func:`~vba_assets.domain.catalog.matching.normalize_for_match`, also for the singular of a
capitalized plural, the stem of a possessive and a name ending in an abbreviation's period:
"Jr."; a text no name equals is tried once more without the accents of its Latin letters,
"Sköll" for Skoll, and against the names whose accents it leaves out, "Marechal Dughan" for
Maréchal Dughan: the world DB's contains search folds accents both ways).

What it cannot do: Chinese or Japanese text without spaces is one word per run and is not
segmented; names the index does not hold (an operator's custom creatures) are not recognised.
"""

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.stage_context import CatalogView
from vba_assets.heuristic.accents import (
    ACCENTS,
    ACCENTS_KEPT_NAME,
    accented_names,
    without_latin_accents,
)
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.inflection import (
    InflectionIndex,
    inflection_document,
    inflection_from_document,
    inflection_index,
    inflects,
    rules_version,
)
from vba_assets.heuristic.intervals import GrowingContainment
from vba_assets.heuristic.lexicon import ZONE_WORDS, is_stopword
from vba_assets.heuristic.name_index import (
    SCAN_KEPT_NAME,
    IndexedName,
    Keeping,
    NameIndex,
    words_of,
)
from vba_assets.heuristic.name_index_words import NAME_WORDS_KEPT_NAME
from vba_assets.heuristic.spans import (
    SourceText,
    Span,
    Token,
    name_gap,
    plain_gap,
)

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


#: The entity type the name index describes.
INDEX_ENTITY_TYPE = "creature"
#: The catalog kinds a name of the index maps to (primary, localized).
_KINDS = ("name", "localized_name")


@dataclass
class Gazetteer:
    """Catalog names of the name index, mapped to the configured creature catalogs."""

    catalogs: tuple[CatalogView, ...]
    index: NameIndex

    def _catalogs_of(self, entry: IndexedName) -> list[CatalogView]:
        return self._catalogs_of_kind("name" if entry.primary else "localized_name")

    def _catalogs_of_kind(self, kind: str) -> list[CatalogView]:
        return [
            c
            for c in self.catalogs
            if c.kind == kind and c.entity_type.casefold() == INDEX_ENTITY_TYPE
        ]

    def has(self, text: str) -> bool:
        """True when some configured catalog holds a name equal to ``text``."""
        return bool(self.entries(text))

    def entries(self, text: str) -> list[CatalogName]:
        """Every (catalog, identity, locale) whose name equals ``text``, or, when none does,
        ``text`` without the accents of its Latin letters ("Sköll" for Skoll: the world DB's
        contains search folds accents, so the literal text still finds the row)."""
        found = self.index.exact(text)
        if not found:
            plain = text if text.isascii() else without_latin_accents(text)
            if plain != text:
                found = self.index.exact(plain)
            if not found and not (" " not in plain.strip() and common_word(plain, "en")):
                found = tuple(
                    entry
                    for key in self._accented().get(normalize_for_match(plain), ())
                    for entry in self.index.by_name[key]
                )
        return [
            CatalogName(c.name, c.kind, e.identity, e.name, e.locale or None)
            for e in found
            for c in self._catalogs_of(e)
        ]

    def _accented(self) -> dict[str, list[str]]:
        """The index's names with accented Latin letters, by their form without the accents
        ("marechal dughan" -> ["maréchal dughan"]): a reporter who leaves the accents out still
        writes the name (not a single common English word: "Combustion" is a spell, not the
        Spanish "Combustión"). Built once per index and kept in its store."""
        return self.index.derived(("accented",), lambda: accented_names(self.index.keys()), ACCENTS)

    def exact(self, text: str) -> dict[str, list[int | str]]:
        """``catalog -> identities`` whose name equals ``text`` (catalogs in configured order)."""
        entries = self.entries(text)
        found: dict[str, list[int | str]] = {}
        for catalog in self.catalogs:
            identities = list(
                dict.fromkeys(e.identity for e in entries if e.catalog == catalog.name)
            )
            if identities:
                found[catalog.name] = identities
        return found

    def containing_catalogs(self, text: str) -> list[str]:
        """Catalogs (configured order) where some name contains ``text`` as a substring."""
        identities = self.index.containing(text, CONTAINING_LIMIT)
        if not identities:
            return []
        needle = normalize_for_match(text)
        kinds = self._kinds_containing(identities, needle)
        return [
            c.name
            for c in self.catalogs
            if c.kind in kinds and c.entity_type.casefold() == INDEX_ENTITY_TYPE
        ]

    def _kinds_containing(self, identities: Sequence[int], needle: str) -> set[str]:
        """The kinds (``name``, ``localized_name``) of the names of ``identities`` that contain
        ``needle``: a name of a kind already found is not normalized, and the search ends once
        both are found."""
        kinds: set[str] = set()
        for identity in identities:
            for entry in self.index.names_of(identity):
                kind = "name" if entry.primary else "localized_name"
                if kind not in kinds and needle in normalize_for_match(entry.name):
                    kinds.add(kind)
                    if len(kinds) == len(_KINDS):
                        return kinds
        return kinds

    def containing_entities(self, text: str, limit: int) -> int:
        """How many distinct entities have a name containing ``text`` (stops past ``limit``)."""
        return self.index.containing_count(text, limit)

    def mostly_bosses(self, word: str) -> bool:
        """Whether ``word`` is a word of the primary names of at most
        :data:`MAX_SHORT_FORM_ENTITIES` entities, at least :data:`MIN_BOSS_SHARE` of them bosses:
        a character's short form ("Illidan": 7 of 13, "Mograine": 12 of 18), not a place whose
        name guards and vendors carry ("Stormwind": 0 of 58, "Dalaran": 0 of 51)."""
        found = self.index.containing(word, MAX_SHORT_FORM_ENTITIES)
        if not found or len(found) > MAX_SHORT_FORM_ENTITIES:
            return False
        key = normalize_for_match(word)
        holders = [
            identity
            for identity in found
            if any(
                entry.primary and key in words_of(entry.name)
                for entry in self.index.names_of(identity)
            )
        ]
        bosses = sum(1 for identity in holders if self.index.boss(identity))
        return bool(holders) and bosses >= MIN_BOSS_SHARE * len(holders)

    def inflection_index(self, language: str) -> InflectionIndex:
        """The names an inflected mention in ``language`` may stem from: the primary names and
        the names of ``language``'s locales, with the catalogs that hold them (empty for a
        language whose names are not compared by stem, :func:`~.inflection.inflects`). Built once
        per name index, configured catalogs and language, and kept in the index's store for later
        processes under a name that holds the stemming rules' version and the catalogs' hash."""
        return self.index.derived(
            ("inflection", self._catalog_key, language),
            lambda: inflection_index(*self._inflection_names(language), language),
            self._inflection_keeping(language),
        )

    def _inflection_keeping(self, language: str) -> Keeping[InflectionIndex] | None:
        """How an inflection index is kept: a name that holds the stemming rules' version and the
        configured catalogs' hash (None for a language without inflections: nothing to keep)."""
        if not inflects(language):
            return None
        catalogs = hashlib.sha256(json.dumps(self._catalog_key).encode("utf-8")).hexdigest()
        name = _inflection_kept_name(language, catalogs[:12])
        return Keeping(name, inflection_document, inflection_from_document)

    @property
    def _catalog_key(self) -> tuple[tuple[str, str, str], ...]:
        return tuple((c.name, c.kind, c.entity_type) for c in self.catalogs)

    def _inflection_names(self, language: str) -> tuple[list[tuple[str, str]], frozenset[str]]:
        """The (name, catalog) pairs of ``language`` and the normalized forms of their names."""
        if not inflects(language):
            return [], frozenset()
        catalogs = {
            True: [c.name for c in self._catalogs_of_kind("name")],
            False: [c.name for c in self._catalogs_of_kind("localized_name")],
        }
        pairs: dict[tuple[str, str], None] = {}
        normalized: set[str] = set()
        for key, entry in self.index.names_in(language):
            held = catalogs[entry.primary]
            if held:
                normalized.add(key)
            for catalog in held:
                pairs[(entry.name, catalog)] = None
        return list(pairs), frozenset(normalized)

    def fully_truncated(self, word: str) -> bool:
        """Never: the index holds every name (kept for the admission rules' wording)."""
        return False


#: How many entities :meth:`Gazetteer.containing_catalogs` looks at.
CONTAINING_LIMIT = 50
#: :meth:`Gazetteer.mostly_bosses` looks at the names of at most this many entities.
MAX_SHORT_FORM_ENTITIES = 40
#: The share of bosses among them that makes a word a character's short form.
MIN_BOSS_SHARE = 1 / 3


def _inflection_kept_name(language: str, catalogs: str) -> str:
    return f"inflection-{language}-{rules_version()}-{catalogs}"


def is_current_kept_name(name: str) -> bool:
    """Whether this code keeps a structure derived from a name index under ``name`` (for any
    language and any configured catalogs): one kept under another name was kept by another
    version of the rules or layouts, and no process of this code reads it again."""
    if name in (SCAN_KEPT_NAME, ACCENTS_KEPT_NAME, NAME_WORDS_KEPT_NAME):
        return True
    pattern = re.escape(_inflection_kept_name("LANG", "CATALOGS"))
    pattern = pattern.replace("LANG", "[a-z]+").replace("CATALOGS", "[0-9a-f]{12}")
    return re.fullmatch(pattern, name) is not None


def build_gazetteer(catalogs: Sequence[CatalogView], index: NameIndex) -> Gazetteer:
    """The gazetteer of ``index`` for the configured ``catalogs``."""
    return Gazetteer(tuple(catalogs), index)


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


def _variants(token: Token, text: str, several: bool = False) -> list[tuple[int, str]]:
    """(end, variant) of the last word: as written, with a following period (a name that ends in
    an abbreviation: "Jr."), possessive stem, singular of a plural (of a capitalized word, or of
    the last word of ``several`` words in any case: "the stormwind guards")."""
    variants = [(token.end, "catalog")]
    if text[token.end : token.end + 1] == ".":
        variants.append((token.end + 1, "catalog"))
    if token.possessive_end is not None:
        variants.append((token.possessive_end, "catalog_possessive"))
    elif (token.capitalized or several) and token.text.endswith("s") and len(token.text) >= 4:
        variants.append((token.end - 1, "catalog_singular"))
    return variants


def _window_spans(source: SourceText, first: int, last: int, gazetteer: Gazetteer) -> list[Span]:
    tokens = source.tokens[first : last + 1]
    if all(is_stopword(t.text) for t in tokens):
        return []
    title_case = tokens[0].line in source.title_case_lines
    capitalized = any(t.capitalized for t in tokens)
    found: list[Span] = []
    for end, kind in _variants(source.tokens[last], source.text, len(tokens) > 1):
        text = source.text[tokens[0].start : end]
        if not gazetteer.has(text):
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
        taken = GrowingContainment([span.start for span in found])
        for span in found:
            if not taken.inside(span.start, span.end):
                kept.append(span)
                taken.add(span.start, span.end)
        spans.extend(sorted(kept, key=lambda s: s.position))
    return spans
