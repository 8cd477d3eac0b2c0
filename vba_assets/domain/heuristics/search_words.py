"""The words of a report the gazetteer searches, and in which catalogs (pure logic).

Each distinct significant word (not a stop word, no digit, not inside ``[...]``/``<...>``, at
least :data:`MIN_WORD_CHARS` letters in a cased script) is searched once by its search form
(:func:`search_form`; in German and Russian its stem, :func:`~.inflection.stem_form`). Marked
words (those that look like part of a name) go first. The large localized catalogs are searched
only for words that can be a translated name (:class:`Word`).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from vba_assets.domain.catalog.names import unify_punctuation
from vba_assets.domain.heuristics.inflection import inflects, stem_form
from vba_assets.domain.heuristics.lexicon import is_stopword
from vba_assets.domain.heuristics.spans import SourceText, Token
from vba_assets.domain.prompting.stage_context import CatalogView

MIN_WORD_CHARS = 3


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
    or with non-ASCII letters. ``localized``: worth a search in the (large) localized catalogs:
    in an English report only a foreign-looking word (non-ASCII letters or an uncased script: an
    English name is in the primary catalog), in another language a word that is capitalized
    somewhere (also at a sentence start) or in an uncased script.
    """

    form: str
    marked: bool
    localized: bool = True


def foreign_looking(text: str) -> bool:
    """True when ``text`` has a non-ASCII letter (an English name never has one)."""
    return any(ord(char) > 127 and char.isalpha() for char in text)


def significant_words(
    sources: Sequence[SourceText], *, english: bool = True, language: str | None = None
) -> list[Word]:
    """Distinct search forms, marked words first, then the others; each by first mention.

    In a language whose names inflect (:mod:`.inflection`), a word is searched by its stem.
    """
    first: dict[str, tuple[int, int, int, str]] = {}
    marked: dict[str, bool] = {}
    localized: dict[str, bool] = {}
    for source in sources:
        for token in source.tokens:
            if not _significant(token):
                continue
            form = search_form(token.text)
            if language is not None and inflects(language):
                form = stem_form(form, language)
            key = form.casefold()
            foreign = foreign_looking(token.text)
            is_marked = (token.capitalized and not token.sentence_initial) or not token.cased
            is_marked = is_marked or foreign
            marked[key] = marked.get(key, False) or is_marked
            wanted = not token.cased or (foreign if english else token.capitalized)
            localized[key] = localized.get(key, False) or wanted
            rank = (0 if is_marked else 1, source.order, token.start)
            if key not in first or rank < first[key][:3]:
                first[key] = (*rank, form)
    return [
        Word(entry[3], marked[key], localized[key])
        for key, entry in sorted(first.items(), key=lambda i: i[1])
    ]


def catalogs_for(
    text: str, catalogs: Sequence[CatalogView], *, english: bool, localized: bool | None = None
) -> list[CatalogView]:
    """The catalogs a term is searched in: primary ``name`` catalogs always, localized ones only
    when ``localized`` (default: a non-English report, or a foreign-looking term)."""
    wanted = localized if localized is not None else (not english or foreign_looking(text))
    return [c for c in catalogs if c.kind == "name" or wanted]
