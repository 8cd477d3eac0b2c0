"""Protocol v6: a boss's short form, the whole-word part of exactly one candidate's name (pure).

Reporters call a boss by one of its names' words: "Morogrim" for Morogrim Tidewalker, "Kazzak"
for Doom Lord Kazzak. A literal contains search for the word captures every name that holds
it; no candidate's name equals it, so the assessment's rule 4 ("a similar name alone is never
enough") left it ambiguous, though the capture is complete and one entity alone holds the word.

:func:`short_form` selects that entity only when every test holds (each one measured on the
study splits and on the later-expansion set, whose reports name creatures no 3.3.5 catalog holds):

* the search is complete (not truncated) and its term is every mention as written (not a
  stretch of a longer or misspelled word; a mention "majordomo staghelm", a later expansion's
  boss, keeps "Majordomo" from standing for Majordomo Executus);
* the report writes the term as a name (:func:`~.exact_coverage.written_as_name`: capitalized,
  not after a determiner, not inside a longer word) and no word of it is a common word of
  English or the report's language;
* the candidates whose names hold the term's words as whole words, in order
  (:func:`whole_words`), are one entity, and that entity is a boss (the catalog's rank 3, the
  rank :mod:`.tiebreaks` reads), so a short form stands for a well-known character, not for one of
  the many creatures that share a word ("Guard", "Defias"); or (heuristic-9) the term has two
  words or more and ends that entity's name: a dropped title ("Inquisitor Whitemane" for High
  Inquisitor Whitemane, an elite), measured on the later-expansion set without a selection added;
* the report never writes the term beside a word that is neither common nor a word of the
  entity's names ("Majordomo" in a title, "majordomo staghelm" in the body: a later expansion's
  boss, not Majordomo Executus);
* no other candidate holds the term at the start of a longer word ("Kazzak" beside a
  "Kazzakling" would be another creature's name the reporter may have shortened).

What it cannot do: a short form two bosses share ("Kazzak": Lord Kazzak and Doom Lord Kazzak)
stays ambiguous; so does a short form whose search was truncated ("Illidan").
"""

import re

from vba_assets.domain.catalog.names import tokenize
from vba_assets.domain.stage_context import CandidateView, SearchView
from vba_assets.heuristic.candidate_names import candidate_names
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.exact_coverage import written_as_name

#: The catalog's boss rank.
BOSS_RANK = 3
_NEXT_WORD = re.compile(r" ([^\W\d_]+)")
_LAST_WORD = re.compile(r"([^\W\d_]+) $")


def _longer_elsewhere(
    term: str, chosen: CandidateView, sources: dict[str, str], language: str
) -> bool:
    """Whether the report writes the term elsewhere beside a word that is neither common nor a
    word of the chosen entity's names ("majordomo staghelm": a longer name the catalog does not
    hold). One pass over each source (a literal pattern, then a look at each side)."""
    own = {word for name in candidate_names(chosen) for word in tokenize(name)}
    pattern = re.compile(r"(?<!\w)" + re.escape(term) + r"(?!\w)", re.IGNORECASE)
    for text in sources.values():
        for found in pattern.finditer(text):
            around = [
                _NEXT_WORD.match(text, found.end(), found.end() + 40),
                _LAST_WORD.search(text, max(0, found.start() - 40), found.start()),
            ]
            for word in (m.group(1).casefold() for m in around if m is not None):
                if not (word in own or common_word(word, "en") or common_word(word, language)):
                    return True
    return False


def whole_words(term: str, name: str) -> bool:
    """Whether ``term``'s words are whole, consecutive words of ``name`` (normalized)."""
    said, named = tokenize(term), tokenize(name)
    width = len(said)
    if not said or width >= len(named):
        return False
    return any(named[i : i + width] == said for i in range(len(named) - width + 1))


def _word_start(term: str, name: str) -> bool:
    """Whether a word of ``name`` starts with ``term``'s one word and is longer."""
    said = tokenize(term)
    return len(said) == 1 and any(
        word != said[0] and word.startswith(said[0]) for word in tokenize(name)
    )


def short_form(search: SearchView, sources: dict[str, str], language: str) -> CandidateView | None:
    """The one boss whose name holds the search term as whole words, or the one entity whose name
    ends with a term of two words or more (see the module docstring), or None."""
    term = search.term
    if search.truncated or search.reference is not None or search.corrected_from is not None:
        return None
    if not all(tokenize(m.quote) == tokenize(term) for m in search.mentions):
        return None
    words = tokenize(term)
    if not words or any(common_word(w, "en") or common_word(w, language) for w in words):
        return None
    if not written_as_name(search, sources, language):
        return None
    holders = [
        c for c in search.candidates if any(whole_words(term, n) for n in candidate_names(c))
    ]
    if len({c.identity for c in holders}) != 1:
        return None
    if any(_word_start(term, n) for c in search.candidates for n in candidate_names(c)):
        return None
    chosen = holders[0]
    boss = chosen.data.get("rank") == BOSS_RANK
    tail = len(words) >= 2 and any(
        tokenize(n)[-len(words) :] == words for n in candidate_names(chosen)
    )
    if not (boss or tail) or _longer_elsewhere(term, chosen, sources, language):
        return None
    return chosen
