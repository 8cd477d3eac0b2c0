"""The words a report may misspell a boss's name with, beyond its capitalized runs (pure logic).

:func:`~.misspellings.misspellings` first looks up the capitalized runs no catalog name equals or
contains. A reporter also writes a name in lower case ("ilidan", "kalegos"), capitalizes it only
at a sentence start or as a title's first word ("Kaelthas evade bug"), or glues it to a place
("Naxxramas Thaddous"). This module picks those words, cheaply and in one pass over the words of
each source: :func:`rare_words` (single words) and :func:`last_word` (a run's last word). A word
is worth a lookup only when it is rare (:func:`rare`): at least :data:`MIN_RARE_LETTERS` letters,
no stopword, game term or zone word, and no common word of English or the report's language
(:func:`~.common_words.common_word`, word frequencies: "teleports", "nothing" are common).

What it cannot do: a misspelled name of several lower-case words ("yogg saron", "defias tower
patroler") is not looked up as a whole, and a rare word that is an ordinary word's typo
("droping") is looked up like a name (the misspelling rules then decide).
"""

import re
from collections.abc import Sequence
from dataclasses import replace

from vba_assets.domain.text_budget import check_budget
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.intervals import Containment
from vba_assets.heuristic.lexicon import is_game_term, is_stopword
from vba_assets.heuristic.roles import zone_like
from vba_assets.heuristic.spans import SourceText, Span
from vba_assets.heuristic.terms import ReportFacts, Term

#: Shortest word looked up, in letters.
MIN_RARE_LETTERS = 5

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
    and every lower-case word of the sources outside the grouped terms' spans; only rare words
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
    for source in sources:
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
