"""The words a report may misspell a boss's name with, beyond its capitalized runs (pure logic).

:func:`~.misspellings.misspellings` first looks up the capitalized runs no catalog name equals or
contains. A reporter also writes a name in lower case ("ilidan", "kalegos"), capitalizes it only
at a sentence start or as a title's first word ("Kaelthas evade bug"), or glues it to a place
("Naxxramas Thaddous"). This module picks those words, cheaply and in one pass over the words of
each source: :func:`rare_words` (single words) and :func:`last_word` (a run's last word). A word
is worth a lookup only when it is rare (:func:`rare`): at least :data:`MIN_RARE_LETTERS` letters,
no stopword, game term or zone word, and no common word of English or the report's language
(:func:`~.common_words.common_word`, word frequencies: "teleports", "nothing" are common).

Lower-case phrases of two or three words, two of them uncommon, are looked up whole first
(:func:`rare_phrases`: "yogg saron", "defias tower patroler").

What it cannot do: a name whose literal parts are all shorter than four letters ("zul jin" for
Zul'jin) is found but cannot be searched, and a rare word that is an ordinary word's typo
("droping") is looked up like a name (the misspelling rules then decide).
"""

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from vba_assets.domain.text_budget import check_budget
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.intervals import Containment
from vba_assets.heuristic.lexicon import is_game_term, is_stopword
from vba_assets.heuristic.roles import zone_like
from vba_assets.heuristic.spans import SourceText, Span, Token
from vba_assets.heuristic.terms import ReportFacts, Term

#: Shortest word looked up, in letters.
MIN_RARE_LETTERS = 5
#: Lower-case words are looked up only when at least this share of a report's lower-case words
#: (once it has :data:`MIN_KNOWN_SAMPLE` of them) are common words of English or the guessed
#: language: in a language the word lists do not hold (Polish, Portuguese: 0.19-0.38 on the
#: study splits, against 0.75 and more for English, German, French, Spanish and Russian) every
#: word would look rare.
MIN_KNOWN_SHARE = 0.6
MIN_KNOWN_SAMPLE = 10


def known_language(sources: Sequence[SourceText], language: str) -> bool:
    """Whether the report's lower-case words are mostly common words of English or ``language``
    (:data:`MIN_KNOWN_SHARE`), so that a word that is none is rare indeed; one pass."""
    words = known = 0
    for source in sources:
        for token in source.tokens:
            text = token.text
            if token.cased and text == text.lower() and text.isalpha():
                words += 1
                known += common_word(text, "en") or common_word(text, language)
    return words < MIN_KNOWN_SAMPLE or known >= MIN_KNOWN_SHARE * words


#: Most single words of one report looked up by :func:`rare_words` after the capitalized runs.
MAX_WORD_LOOKUPS = 8
#: Most of them checked against the names as written (a contains scan of the index each).
MAX_WORD_CHECKS = 4 * MAX_WORD_LOOKUPS
_WORD_OF_RUN = re.compile(r"[^\W\d_]+(?:['’ʼ‘-][^\W\d_]+)*")


def rare(text: str, language: str) -> bool:
    """A word worth a lookup: at least :data:`MIN_RARE_LETTERS` letters, no stopword, game term
    or zone word, and no common word of English or ``language``."""
    return (
        sum(1 for char in text if char.isalpha()) >= MIN_RARE_LETTERS
        and text.isalpha()
        and not is_stopword(text)
        and not is_game_term(text)
        and not zone_like(text)
        and not common_word(text, "en")
        and not common_word(text, language)
    )


def last_word(term: Term, language: str) -> Term | None:
    """``term``'s last word as a term of its own (every mention's last word), when it is a rare
    word (:func:`rare`): the name after a place or a stray capital ("Naxxramas Thaddous")."""
    spans: list[Span] = []
    for span in term.spans:
        words = list(_WORD_OF_RUN.finditer(span.text))
        if len(words) < 2 or not rare(words[-1].group(), language):
            return None
        start = span.start + words[-1].start()
        spans.append(
            replace(
                span,
                start=start,
                end=start + len(words[-1].group()),
                text=words[-1].group(),
                words=1,
                initial=False,
                extent_end=None,
            )
        )
    return Term(spans[0].text.casefold(), spans, cues=term.cues) if spans else None


def rare_words(
    grouped: Sequence[Term],
    kept_keys: set[str],
    sources: Sequence[SourceText],
    facts: ReportFacts,
) -> list[Term]:
    """The single words :func:`misspellings` looks up after the capitalized runs, in text
    order: a grouped one-word term that is not kept, has no exact match, no reference and is
    no weak or compound mention (capitalized only at sentence starts, or a word names contain),
    and, in a report of a known language (:func:`known_language`), every lower-case word of the
    sources outside the grouped terms' spans; only rare words
    (:func:`rare`), not enclosed in brackets, each word once."""
    terms: dict[str, Term] = {}
    for term in grouped:
        if (
            len(term.words) == 1
            and term.key not in kept_keys
            and term.reference is None
            and not term.exact
            and not term.weak
            and not all(span.compound for span in term.spans)
            and not term.proper
            and not term.containing
            and rare(term.text, facts.language)
        ):
            terms.setdefault(term.key, term)
    grouped_keys = {term.key for term in grouped}
    by_source: dict[str, list[tuple[int, int, int]]] = {}
    for span in (span for term in grouped for span in term.spans):
        by_source.setdefault(span.source, []).append((span.start, span.end, span.extent))
    for source in sources if known_language(sources, facts.language) else ():
        check_budget()
        inside = Containment(by_source.get(source.alias, [])).inside
        for token in source.tokens:
            text = token.text
            if not token.cased or text != text.lower() or token.enclosed or token.has_digit:
                continue
            key = text.casefold()
            if key in terms or key in grouped_keys or not rare(text, facts.language):
                continue
            if inside(token.start, token.end):
                continue
            span = Span(
                source.alias,
                source.order,
                token.start,
                token.end,
                text,
                "run",
                1,
                initial=token.sentence_initial,
            )
            terms[key] = Term(key, [span])
    return sorted(terms.values(), key=lambda t: t.first)


#: Most lower-case phrases of one report looked up whole (:func:`rare_phrases`).
MAX_PHRASE_LOOKUPS = 6
#: Shortest word of a phrase that counts as uncommon, in letters ("zul", "jin").
MIN_PHRASE_WORD_LETTERS = 3


def _uncommon(text: str, language: str) -> bool:
    return (
        len(text) >= MIN_PHRASE_WORD_LETTERS
        and text.isalpha()
        and not is_stopword(text)
        and not common_word(text, "en")
        and not common_word(text, language)
    )


def _lower_runs(
    source: SourceText, inside: Callable[[int, int], bool], grouped_keys: set[str]
) -> list[list[Token]]:
    """The runs of lower-case words of ``source`` one blank apart on one line, outside the
    grouped spans (``inside``), none a grouped term's word as written ("sindragosa"), not
    enclosed, without digits."""
    runs: list[list[Token]] = []
    current: list[Token] = []
    for token in source.tokens:
        text = token.text
        usable = (
            token.cased
            and text == text.lower()
            and not token.enclosed
            and not token.has_digit
            and text.casefold() not in grouped_keys
            and not inside(token.start, token.end)
        )
        if not usable:
            current = []
            continue
        if current and source.text[current[-1].end : token.start] != " ":
            current = []
        if not current:
            runs.append(current)
        current.append(token)
    return [run for run in runs if len(run) > 1]


def rare_phrases(
    grouped: Sequence[Term], sources: Sequence[SourceText], facts: ReportFacts
) -> list[Term]:
    """Lower-case phrases of two or three words one blank apart that :func:`misspellings`
    looks up whole ("yogg saron" for Yogg-Saron, "defias tower patroler"), in text order, the
    longer first at one start: at least two of their words uncommon (:func:`_uncommon`: no
    stopword and no common word of English or the report's language), the first and the last
    word no stopword, outside the grouped terms' spans and without their words, in a report of
    a known language (:func:`known_language`); each phrase once."""
    by_source: dict[str, list[tuple[int, int, int]]] = {}
    for span in (span for term in grouped for span in term.spans):
        by_source.setdefault(span.source, []).append((span.start, span.end, span.extent))
    grouped_keys = {term.key for term in grouped}
    terms: dict[str, Term] = {}
    for source in sources if known_language(sources, facts.language) else ():
        check_budget()
        inside = Containment(by_source.get(source.alias, [])).inside
        for run in _lower_runs(source, inside, grouped_keys):
            uncommon = [_uncommon(token.text, facts.language) for token in run]
            for first in range(len(run)):
                for width in (3, 2):
                    last = first + width - 1
                    if last >= len(run) or sum(uncommon[first : last + 1]) < 2:
                        continue
                    if is_stopword(run[first].text) or is_stopword(run[last].text):
                        continue
                    start, end = run[first].start, run[last].end
                    text = source.text[start:end]
                    span = Span(source.alias, source.order, start, end, text, "run", width)
                    terms.setdefault(text.casefold(), Term(text.casefold(), [span]))
    return list(terms.values())
