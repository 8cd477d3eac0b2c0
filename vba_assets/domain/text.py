"""Text normalization and character scanning shared by admission, the CaseBuilder and grounding.

Every text that reaches ``case.json`` goes through :func:`normalize_text`: newlines become ``\\n``
(``\\r\\n`` and a lone ``\\r`` both count as one newline) and the result is in Unicode NFC. Offsets
everywhere in the project are indices into that normalized text, counted in Unicode code points
(Python ``str`` indices), never in bytes or UTF-16 units.

Two kinds of characters are looked for:

* **Forbidden control characters** (:func:`find_control_characters`): C0 controls other than tab,
  newline and carriage return, DEL, and C1 controls. Admission rejects a report that contains them.
* **Format controls** (:data:`FORMAT_CONTROL_CODEPOINTS`): zero-width and bidi controls. They are
  invisible, so they are kept (the player's text is not rewritten) but listed per source, and
  grounding refuses a quoted span that contains one (:func:`span_has_format_control`).
"""

import unicodedata
from dataclasses import dataclass

#: Zero-width and bidirectional control characters: kept in the text, listed, never crossed.
FORMAT_CONTROL_CODEPOINTS: frozenset[int] = frozenset(
    [
        *range(0x200B, 0x2010),  # ZWSP, ZWNJ, ZWJ, LRM, RLM
        *range(0x202A, 0x202F),  # LRE, RLE, PDF, LRO, RLO
        *range(0x2060, 0x2065),  # WORD JOINER, invisible operators
        *range(0x2066, 0x206A),  # LRI, RLI, FSI, PDI
        0xFEFF,  # ZERO WIDTH NO-BREAK SPACE (a BOM anywhere but the start of a file)
        0x061C,  # ARABIC LETTER MARK
    ]
)

#: Control characters that may appear in report text. ``\r`` is allowed only because it is
#: turned into ``\n`` by :func:`normalize_text`.
ALLOWED_CONTROL_CHARACTERS: frozenset[str] = frozenset({"\t", "\n", "\r"})

#: The UTF-8 byte order mark.
UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class CharacterHit:
    """One character found in a text: where it is and which code point it is."""

    offset: int
    codepoint: int

    @property
    def label(self) -> str:
        """The code point in ``U+XXXX`` notation, as written into artifacts and messages."""
        return codepoint_label(self.codepoint)


def codepoint_label(codepoint: int) -> str:
    """``0x200b`` -> ``"U+200B"``."""
    return f"U+{codepoint:04X}"


def normalize_newlines(text: str) -> str:
    """Turn ``\\r\\n`` and lone ``\\r`` into ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalize_text(text: str) -> str:
    """The canonical form of report text: ``\\n`` newlines, then Unicode NFC."""
    return unicodedata.normalize("NFC", normalize_newlines(text))


def is_forbidden_control(char: str) -> bool:
    """True for C0 controls other than tab/newline/carriage return, DEL and C1 controls."""
    codepoint = ord(char)
    if char in ALLOWED_CONTROL_CHARACTERS:
        return False
    return codepoint < 0x20 or 0x7F <= codepoint <= 0x9F


def find_control_characters(text: str, limit: int = 10) -> list[CharacterHit]:
    """The first ``limit`` forbidden control characters of ``text`` (offsets into ``text``)."""
    hits: list[CharacterHit] = []
    for offset, char in enumerate(text):
        if is_forbidden_control(char):
            hits.append(CharacterHit(offset, ord(char)))
            if len(hits) >= limit:
                break
    return hits


def find_format_controls(text: str) -> list[CharacterHit]:
    """Every zero-width or bidi control character of ``text``, in order."""
    return [
        CharacterHit(offset, ord(char))
        for offset, char in enumerate(text)
        if ord(char) in FORMAT_CONTROL_CODEPOINTS
    ]


def span_has_format_control(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` contains a zero-width or bidi control character.

    Grounding uses this to refuse a quoted span that only matches because an invisible character
    was ignored or that hides one (a span may touch one, but not contain it).
    """
    return any(ord(char) in FORMAT_CONTROL_CODEPOINTS for char in text[start:end])


def find_surrogate(text: str) -> int | None:
    """Offset of the first lone surrogate (possible after JSON ``\\ud800`` escapes), else None."""
    for offset, char in enumerate(text):
        if 0xD800 <= ord(char) <= 0xDFFF:
            return offset
    return None


def decode_utf8(data: bytes) -> str:
    """Decode strict UTF-8, dropping one leading byte order mark.

    A leading BOM is an encoding signature (Windows editors add it), not text, so it is accepted
    and removed. A U+FEFF anywhere else is kept and listed as a format control.

    Raises:
        UnicodeDecodeError: when ``data`` is not valid UTF-8.
    """
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    return data.decode("utf-8", errors="strict")
