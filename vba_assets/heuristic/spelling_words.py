"""Word by word agreement of a misspelled mention and the near spelling it would select (pure logic).

The assessment's near-spelling rule (:func:`~.candidate_names.closest_spelling`, rule 4 of
:mod:`.assessment`) compares the letters of a whole mention with a whole name: two edits in a
long name pass. Real trackers of later expansions and custom servers name creatures the 3.3.5
catalog does not hold, and many of those names are two edits from a catalog name that differs
in one of its words: "Commander Durand" is not "Commander Duron", "Dealer Vijaad" not "Dealer
Zijaad", "Rockshell Snapclaw" not "Muckshell Snapclaw" (issue 29: no selection for a name the
catalog does not hold; ``eval/later_expansion.jsonl`` measures it). A reporter's misspelling keeps
each word's first letter and changes a short word by at most one letter ("Hount", "Nafarian",
"Bangalesh"), a long one by at most two ("Corporate", "Wyrmgaurd"), or inflects its ending
("Wolves" for "Wolf", "Sons" for "Son").

:func:`words_agree` is that test: when the mention and the name have as many words (letters and
digits of each, accents folded), every pair of words must agree (:func:`word_agrees`); the
whole-word beginning of a longer name agrees ("Doctor Vomisa" of "Doctor Vomisa, Ph.T."); when
one word is glued or split ("bloodguard" for "Blood Guard") the words must agree with that word
glued; otherwise only the first letters of the whole must. Linear in the words of each mention
and name (one gluing per word boundary).

What it cannot do: a later name one letter from a 3.3.5 name of five letters or more ("Kovok",
"Kovork") or an inflected ending ("Gobbles", "Gobbler") still passes: the letters cannot tell it
from a misspelling.
"""

from collections.abc import Iterable

from rapidfuzz.distance import Levenshtein

from vba_assets.domain.catalog.names import fold_accents, normalize_for_match

#: Shortest name word that one edit may change.
MIN_ONE_EDIT_WORD = 5
#: Shortest name word that two edits may change.
MIN_TWO_EDIT_WORD = 8
#: Most letters an inflected ending adds to a name word whose last letter it replaces.
MAX_ENDING = 2


def spelled_words(text: str) -> list[str]:
    """The words of ``text`` as compared: normalized, accents folded, hyphens split, letters
    and digits only ("Grik'nir" is "griknir")."""
    folded = fold_accents(normalize_for_match(text)).replace("-", " ")
    words = ("".join(char for char in word if char.isalnum()) for word in folded.split())
    return [word for word in words if word]


def word_agrees(written: str, named: str) -> bool:
    """Whether the written word may be a misspelling of the name's word (module docstring)."""
    if written == named:
        return True
    if written[0] != named[0]:
        return False
    ending = len(written) - len(named)
    if len(named) >= 3 and written.startswith(named[:-1]) and 0 <= ending <= MAX_ENDING:
        return True  # an inflected ending ("wolves" of "wolf")
    edits = Levenshtein.distance(written, named)
    return (edits <= 1 and len(named) >= MIN_ONE_EDIT_WORD) or (
        edits <= 2 and len(named) >= MIN_TWO_EDIT_WORD
    )


def _glued(words: list[str]) -> list[list[str]]:
    """``words`` with two neighbours glued, every way ("blood guard torek": "bloodguard torek",
    "blood guardtorek")."""
    return [[*words[:i], words[i] + words[i + 1], *words[i + 2 :]] for i in range(len(words) - 1)]


def _pairs_agree(said: list[str], words: list[str]) -> bool:
    return len(said) == len(words) and all(
        word_agrees(w, n) for w, n in zip(said, words, strict=True)
    )


def _agree(said: list[str], words: list[str]) -> bool:
    """One written quote and one name, as words (module docstring)."""
    if len(said) == len(words):
        return _pairs_agree(said, words)
    if said == words[: len(said)]:
        return True  # the whole-word beginning of a longer name ("Doctor Vomisa")
    if abs(len(said) - len(words)) == 1:  # one glued or split word ("bloodguard")
        if len(said) < len(words):
            return any(_pairs_agree(said, glued) for glued in _glued(words))
        return any(_pairs_agree(glued, words) for glued in _glued(said))
    return said[0][0] == words[0][0]


def words_agree(quotes: Iterable[str], names: Iterable[str]) -> bool:
    """Whether some written quote agrees word by word with some name (module docstring)."""
    named = [words for words in (spelled_words(name) for name in names) if words]
    for quote in quotes:
        said = spelled_words(quote)
        if said and any(_agree(said, words) for words in named):
            return True
    return False
