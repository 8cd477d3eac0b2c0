"""How names are compared: normalization and Unicode-aware word tokens (ARCHITECTURE 6.3, 11).

:mod:`.matching` ranks catalog rows on these forms and :mod:`.suggestions` scores near misses on
them; the lookup tool also builds its literal search terms with :func:`unify_punctuation`.

Normalization (:func:`normalize_for_match`): NFKC, case folding, one apostrophe (``'``), one name
separator (``·``) and single spaces. **Zero-width and bidi characters are not removed.** They are
format characters (Unicode category ``Cf``) and :func:`tokenize` glues them to the neighbouring
word, so ``"Wild\\u200bWolpertinger"`` is one token that equals no clean name token, and the
normalized string is a substring of no clean name. A term that hides such a character therefore
never matches a clean name by accident (grounding refuses such spans before a search is made).
"""

import unicodedata
from functools import lru_cache

#: Apostrophe look-alikes folded to ``'`` (NFKC already folds the fullwidth apostrophe U+FF07).
APOSTROPHES = "\u2019\u2018\u02bc"
#: Name separators (zhCN U+00B7, zhTW U+2027, Japanese U+30FB) folded to :data:`NAME_SEPARATOR`.
NAME_SEPARATORS = "\u00b7\u2027\u30fb"
NAME_SEPARATOR = "\u00b7"
#: Characters that join two word parts into one token: apostrophe and hyphens.
_TOKEN_JOINERS = frozenset("'-\u2010")
_PUNCTUATION_MAP = str.maketrans(
    {**{char: "'" for char in APOSTROPHES}, **{char: NAME_SEPARATOR for char in NAME_SEPARATORS}}
)


def unify_punctuation(text: str) -> str:
    """NFKC plus the apostrophe and separator folding of :func:`normalize_for_match`, case kept.

    This is the form used for an alternative *search term*: a database's contains search is
    literal, so ``Kael’thas`` finds ``Kael'thas`` only when the apostrophe is folded first.
    """
    return " ".join(unicodedata.normalize("NFKC", text).translate(_PUNCTUATION_MAP).split())


@lru_cache(maxsize=1 << 15)
def normalize_for_match(text: str) -> str:
    """The form two names are compared in: NFKC, casefold, unified punctuation, single spaces.

    Zero-width and bidi characters are kept on purpose (see the module docstring).
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.translate(_PUNCTUATION_MAP).split())


def _is_token_char(char: str) -> bool:
    # Letters, numbers, combining marks, and format characters (zero-width/bidi) glued to a word.
    category = unicodedata.category(char)
    return category[0] in "LNM" or category == "Cf"


def _has_word_character(token: str) -> bool:
    return any(unicodedata.category(char)[0] in "LN" for char in token)


def split_tokens(text: str) -> list[str]:
    """Word tokens of ``text`` exactly as written (no normalization).

    A token is a run of letters, digits and marks; an apostrophe or hyphen between two such
    characters stays inside the token (``Kael'thas``, ``Half-Orc``). Underscores, ``%``, quotes and
    other punctuation separate tokens. A run of format characters alone is not a token.
    """
    tokens: list[str] = []
    current: list[str] = []
    for index, char in enumerate(text):
        if _is_token_char(char):
            current.append(char)
            continue
        following = text[index + 1] if index + 1 < len(text) else ""
        if char in _TOKEN_JOINERS and current and following and _is_token_char(following):
            current.append(char)
            continue
        if current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    return [token for token in tokens if _has_word_character(token)]


def tokenize(text: str) -> list[str]:
    """Normalized word tokens (:func:`normalize_for_match`, then :func:`split_tokens`).

    Unicode-aware: Cyrillic and Korean words split on spaces; a CJK run without spaces is one
    token (no dictionary segmentation, so CJK names match by exact name or substring).
    """
    return list(_tokens(text))


@lru_cache(maxsize=1 << 15)
def _tokens(text: str) -> tuple[str, ...]:
    # Pure and called for the same names again and again (every probe, every ranking): cached.
    return tuple(split_tokens(normalize_for_match(text)))


def token_parts(token: str) -> list[str]:
    """The parts of a joined token: ``"kael'thas" -> ["kael", "thas"]``; ``[]`` if not joined."""
    parts: list[str] = []
    current: list[str] = []
    for char in token:
        if char in _TOKEN_JOINERS:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    parts = [part for part in parts if _has_word_character(part)]
    return parts if len(parts) > 1 else []


def fold_accents(text: str) -> str:
    """``normalize_for_match`` text without combining marks (``émile -> emile``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(char for char in decomposed if unicodedata.category(char) != "Mn")
    return unicodedata.normalize("NFC", stripped)
