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
digits of each, accents folded), every pair of words must agree (:func:`word_agrees`); otherwise
(a glued or split word, "bloodguard" for "Blood Guard", or the whole-word beginning "Doctor
Vomisa" of "Doctor Vomisa, Ph.T.") only the first letters of the whole must. One pass over the
words of each mention and name.

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


def words_agree(quotes: Iterable[str], names: Iterable[str]) -> bool:
    """Whether some written quote agrees word by word with some name (module docstring)."""
    named = [spelled_words(name) for name in names]
    for quote in quotes:
        said = spelled_words(quote)
        for words in named:
            if not said or not words:
                continue
            if len(said) != len(words):
                if said[0][0] == words[0][0]:
                    return True
            elif all(word_agrees(w, n) for w, n in zip(said, words, strict=True)):
                return True
    return False
