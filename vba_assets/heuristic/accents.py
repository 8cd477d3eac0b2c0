"""Accents a reporter adds or leaves out (pure logic, for :mod:`.gazetteer`).

The world DB's contains search folds accents (MariaDB's ``utf8mb4_unicode_ci``, the embedded
SQLite's search key), so a report's "Sköll" finds Skoll and "Marechal Dughan" finds Maréchal
Dughan; the name index compares names with their accents (:func:`normalize_for_match`). These
helpers let the gazetteer compare without them: :func:`without_latin_accents` for the report's
text, :func:`accented_names` for the index's names, kept in the index's store
(:data:`ACCENTS`).

What it cannot do: only the combining marks of Latin letters are removed; "ß", "æ" or "ø" are
letters of their own, and other scripts keep their marks ("й" is not "и").
"""

import unicodedata
from collections.abc import Sequence
from typing import Any

from vba_assets.heuristic.name_index import Keeping


def without_latin_accents(text: str) -> str:
    """``text`` with the combining marks of Latin letters removed ("Sköll" -> "Skoll",
    "Maréchal" -> "Marechal"); other scripts keep theirs ("й" stays "й")."""
    decomposed = unicodedata.normalize("NFD", text)
    kept: list[str] = []
    for char in decomposed:
        if unicodedata.combining(char) and kept and ord(kept[-1]) < _LATIN_END:
            continue
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))


#: Letters below this code point are Latin (Basic Latin to Latin Extended-B).
_LATIN_END = 0x250


def accented_names(keys: Sequence[str]) -> dict[str, list[str]]:
    """``keys`` (normalized names) whose Latin letters carry accents, by their form without."""
    found: dict[str, list[str]] = {}
    for key in keys:
        if key.isascii():
            continue
        plain = without_latin_accents(key)
        if plain != key:
            found.setdefault(plain, []).append(key)
    return found


def _accented_from_document(document: Any) -> dict[str, list[str]]:
    if not isinstance(document, dict) or not all(
        isinstance(keys, list) and all(isinstance(key, str) for key in keys)
        for keys in document.values()
    ):
        raise ValueError("not a map of accented names")
    return document


#: The name the accented names are kept under (they depend on the index and this rule alone).
ACCENTS_KEPT_NAME = "accented-1"
ACCENTS: Keeping[dict[str, list[str]]] = Keeping(
    ACCENTS_KEPT_NAME, lambda found: found, _accented_from_document
)
