"""Whether a word is a common word of a language, not a name (wordfreq; pure, read-only data).

The catalogs name creatures with ordinary words too: "Trash", "Whirlwind", "Ruin", "Datenbank"
(German for database), "Glaçon" are all exact creature names. The heuristic planner asks
:func:`common_word` three things:

* **ranking**: an exact name that is one common word is searched after the other exact names
  (:func:`~.planning.informativeness`), so a report that lists spells beside its bosses spends
  its few searches on the bosses;
* **German nouns**: a capitalized German noun that is the localized name of a creature
  ("Datenbank") is a noun, not a name (:func:`~.admission._capitalized_noun`);
* **names in lower case**: a lower-case word that is no common word but exactly names a creature
  ("sindragosa", "yogg-saron") is a name written in lower case, however many catalog names
  contain it (:func:`~.admission.rare_lowercase_name`).

It is not used to drop a capitalized word at a sentence start: given names are common words
("Mikhail" 3.4, "Marcus" 4.1 on the Zipf scale), and many creatures have one.

:func:`common_word` answers with the word frequencies of `wordfreq
<https://pypi.org/project/wordfreq/>`_ (pinned: its data is frozen since 3.1), from its ``small``
lists: a word used at least once per million words (Zipf frequency :data:`COMMON_ZIPF`) in
English or in the report's language is common. Measured: "trash" 4.4, "whirlwind" 3.2,
"datenbank" (de) 4.1, "chicken" 4.6; "hogger", "thrall", "sindragosa" are below the small lists'
floor (0).

What it cannot do: a creature named by a frequent given name or word ("Sara", "Nova", "Guardian")
counts as common, so it is ranked after other exact names and is not taken for a name when written
in lower case; the lists come from web, subtitle and social-media text of 2021 and earlier.
"""

from functools import lru_cache

from wordfreq import zipf_frequency

#: A word at least this frequent (Zipf scale: 3.0 is once per million words) is common.
COMMON_ZIPF = 3.0
#: The report languages the planner guesses (:func:`~.lexicon.guess_language`) that wordfreq
#: tokenizes without an optional dependency; English is always consulted too.
LANGUAGES = frozenset({"en", "de", "fr", "es", "ru"})
#: Which word list the answers come from (part of what a heuristic plan depends on).
WORD_LIST = "wordfreq-3.1.1-small"


@lru_cache(maxsize=8192)
def common_word(word: str, language: str = "en") -> bool:
    """True when ``word`` (one word) is used at least once per million words in English or in
    ``language``; False for several words, a string without letters (wordfreq would read "%_"
    or an emoji as frequent symbols), or a rare word."""
    text = word.strip()
    if not any(char.isalpha() for char in text) or any(char.isspace() for char in text):
        return False
    languages = ["en"] if language == "en" or language not in LANGUAGES else ["en", language]
    return any(zipf_frequency(text, lang, wordlist="small") >= COMMON_ZIPF for lang in languages)
