"""The last word of a capitalized run, looked up as a misspelled boss name (pure logic).

:func:`~.misspellings.misspellings` first looks up the capitalized runs no catalog name equals or
contains. A reporter also glues a name to a place or a stray capital ("Naxxramas Thaddous"):
:func:`last_word` takes a run's last word when it is rare (:func:`rare`): at least
:data:`MIN_RARE_LETTERS` letters, no stopword, game term or zone word, and no common word of
English or the report's language (:func:`~.common_words.common_word`, word frequencies).

Lower-case words and phrases, and words capitalized only at a sentence start, were looked up too
for a while (issue 29): they found more candidates on the study split dev2 but no more correct
selections on three held-out splits, and one of them selected a creature for a held-out mention
whose gold entry is null; they were removed (eval/real/README, "Results of issue 29").
"""

import re
from dataclasses import replace

from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.lexicon import is_game_term, is_stopword
from vba_assets.heuristic.roles import zone_like
from vba_assets.heuristic.spans import Span
from vba_assets.heuristic.terms import Term

#: Shortest word looked up, in letters.
MIN_RARE_LETTERS = 5
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
