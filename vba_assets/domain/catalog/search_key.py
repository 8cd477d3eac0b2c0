"""The search key: how the SQLite contains search compares a name with a term, case and accents aside.

MariaDB compares a term with AzerothCore's ``utf8mb4_unicode_ci`` name columns regardless of case
and accents, in every script: ``etalon`` finds ``Étalon blanc`` and ``ДИКИЙ`` finds
``Дикий зайцелоп``. SQLite's ``LIKE`` folds ASCII case only. So that the embedded demo DB finds
what such a server finds, the SQLite contains search compares search keys: ``search_key(name)``
must contain ``search_key(term)`` (ARCHITECTURE 6.2, ``resources/world_db/query.py``).

The key of a text is the text with each letter's accents removed, then lower-cased
(:meth:`str.lower`, every script: ``Д`` -> ``д``, ``İ`` -> ``i``). A letter's accents are removed
as that collation ignores them: a letter whose canonical decomposition holds nonspacing marks
(category ``Mn``) becomes its decomposition without them, composed again (``é`` -> ``e``, ``ö`` ->
``o``, ``ñ`` -> ``n``, ``ё`` -> ``е``, ``ά`` -> ``α``, ``ガ`` -> ``カ``), except the 67 letters the
collation weighs as letters of their own (``й``, ``ї``, ``ў``, ``ѓ``, ``ќ``, ``آ``...:
:data:`OWN_LETTERS`). A mark written apart stays (MariaDB's ``LIKE`` compares it as a character
too), and so do Hangul syllables and CJK.

Both were measured, not guessed: each of the 988 letters (up to U+2FFFF) whose decomposition holds
a nonspacing mark was compared with its letter without marks under ``utf8mb4_unicode_ci`` on
MariaDB 10.11 (UCA 4.0.0); exactly :data:`OWN_LETTERS` differ.
:mod:`vba_assets.evaluation.search_key_parity` repeats the measurement on any server, and
``tests/integration/test_world_db_mariadb.py`` runs it on the catalogs' scripts in CI.

``ß`` stays ``ß`` (``strasse`` does not find ``Straße``, as in MariaDB's ``LIKE``); zero-width and
bidi characters stay (MariaDB ignores them: the one difference left); ``%``, ``_`` and ``\\`` are
unchanged, so a key escapes like its text. The key depends on the Unicode version of
:mod:`unicodedata` (:data:`UNICODE_VERSION`); the demo DB builder fingerprints its files with it.
"""

import unicodedata

#: The Unicode version the key follows.
UNICODE_VERSION = unicodedata.unidata_version
#: The SQL function every SQLite world-DB connection defines as :func:`search_key`.
SEARCH_KEY_FUNCTION = "vba_search_key"


#: Letters with a mark that ``utf8mb4_unicode_ci`` weighs as letters of their own (measured): 40
#: Cyrillic (``й``, ``ї``, ``ў``, ``ѓ``, ``ќ``, ``ӑ``...), 5 Arabic (``آ``, ``أ``...), 6 Tibetan and 16
#: more in Indic, Myanmar and Balinese scripts.
# fmt: off
OWN_LETTERS = frozenset(
    chr(code)
    for code in (
        0x0403, 0x0407, 0x040C, 0x040E, 0x0419, 0x0439, 0x0453, 0x0457, 0x045C, 0x045E,
        0x0476, 0x0477, 0x04D0, 0x04D1, 0x04D2, 0x04D3, 0x04D6, 0x04D7, 0x04DA, 0x04DB,
        0x04DC, 0x04DD, 0x04DE, 0x04DF, 0x04E4, 0x04E5, 0x04E6, 0x04E7, 0x04EA, 0x04EB,
        0x04EC, 0x04ED, 0x04F0, 0x04F1, 0x04F2, 0x04F3, 0x04F4, 0x04F5, 0x04F8, 0x04F9,
        0x0622, 0x0623, 0x0624, 0x0625, 0x0626, 0x0B48, 0x0CC0, 0x0CC7, 0x0CC8, 0x0CCA,
        0x0CCB, 0x0DDA, 0x0DDD, 0x0F43, 0x0F4D, 0x0F52, 0x0F57, 0x0F5C, 0x0F69, 0x1026,
        0x1B3B, 0x1B3D, 0x1B43, 0x1109A, 0x1109C, 0x110AB, 0x114BB,
    )
)
# fmt: on


def _is_mark(char: str) -> bool:
    return unicodedata.category(char) == "Mn"


class _WithoutAccents(dict[int, str]):
    """A :meth:`str.translate` table, filled on demand: code point -> the letter without accents."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        stripped = char
        if char not in OWN_LETTERS and not _is_mark(char):
            parts = unicodedata.normalize("NFD", char)
            if any(_is_mark(part) for part in parts):
                kept = "".join(part for part in parts if not _is_mark(part))
                stripped = unicodedata.normalize("NFC", kept) or char
        self[code] = stripped
        return stripped


_WITHOUT_ACCENTS = _WithoutAccents()


def search_key(text: str) -> str:
    """``text`` in lower case without accents (see the module docstring).

    >>> search_key("Étalon ДИКИЙ Jäger Ёлка")
    'etalon дикий jager елка'
    """
    if text.isascii():
        return text.lower()
    return text.translate(_WITHOUT_ACCENTS).lower()


def sql_search_key(text: str | bytes | int | float | None) -> str | bytes | int | float | None:
    """:func:`search_key` as an SQL function: NULL and non-text values pass unchanged."""
    return search_key(text) if isinstance(text, str) else text
