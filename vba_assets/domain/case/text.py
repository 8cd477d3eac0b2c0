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

Short identifiers (a reporter, an attachment name, an attachment path) get stricter checks
(:func:`validate_single_line`, :func:`validate_relative_path`): no control character at all and
no invisible format control, because nothing lists them there.
"""

import unicodedata
from dataclasses import dataclass
from typing import Any, NoReturn

from vba_assets.errors import ErrorCode, InputError

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


def fold(text: str) -> str:
    """NFC, then ``casefold``: how names and quotes are compared regardless of case."""
    return unicodedata.normalize("NFC", text).casefold()


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


def has_format_control(text: str) -> bool:
    """True when ``text`` holds a zero-width or bidi control character (no grounded span or
    searched term does)."""
    return any(ord(char) in FORMAT_CONTROL_CODEPOINTS for char in text)


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


def shorten(value: str, limit: int = 80) -> str:
    """``repr`` of a user-supplied value, cut to ``limit`` characters for error messages."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def reject(code: ErrorCode, field: str, message: str, **detail: Any) -> NoReturn:
    """Raise :class:`InputError` whose message starts with the field and whose detail names it."""
    raise InputError(code, f"{field}: {message}", field=field, **detail)


def validate_single_line(value: str, field: str, max_chars: int) -> str:
    """A one-line identifier: NFC, no controls (not even tab/newline), no format controls."""
    surrogate = find_surrogate(value)
    if surrogate is not None:
        reject(ErrorCode.REPORT_NOT_UTF8, field, f"has an unpaired surrogate at offset {surrogate}")
    for offset, char in enumerate(value):
        if ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F:
            reject(
                ErrorCode.REPORT_CONTROL_CHARACTERS,
                field,
                f"contains control character {codepoint_label(ord(char))} at offset {offset}; "
                "it must be a single line",
                offset=offset,
                codepoint=codepoint_label(ord(char)),
            )
        if ord(char) in FORMAT_CONTROL_CODEPOINTS:
            reject(
                ErrorCode.REPORT_INVALID_FIELD,
                field,
                f"contains invisible format character {codepoint_label(ord(char))} at offset "
                f"{offset}",
                offset=offset,
                codepoint=codepoint_label(ord(char)),
            )
    normalized = unicodedata.normalize("NFC", value)
    if not normalized.strip():
        reject(ErrorCode.REPORT_INVALID_FIELD, field, "must not be empty")
    if len(normalized) > max_chars:
        reject(
            ErrorCode.REPORT_TOO_LARGE,
            field,
            f"has {len(normalized)} characters; the limit is {max_chars}",
            chars=len(normalized),
            limit=max_chars,
        )
    return normalized


def check_text(value: str, field: str, max_chars: int | None) -> str:
    """Free report text: reject surrogates and forbidden controls, normalize, enforce a limit.

    Returns the normalized text; ``max_chars`` applies to it (None: no limit).
    """
    surrogate = find_surrogate(value)
    if surrogate is not None:
        reject(
            ErrorCode.REPORT_NOT_UTF8,
            field,
            f"contains an unpaired surrogate escape at offset {surrogate}, which is not "
            "valid Unicode",
            offset=surrogate,
        )
    hits = find_control_characters(value)
    if hits:
        listed = ", ".join(f"{hit.label} at offset {hit.offset}" for hit in hits[:3])
        reject(
            ErrorCode.REPORT_CONTROL_CHARACTERS,
            field,
            f"contains control characters ({listed}); only tab and newlines are allowed",
            characters=[{"offset": hit.offset, "codepoint": hit.label} for hit in hits],
        )
    normalized = normalize_text(value)
    if max_chars is not None and len(normalized) > max_chars:
        reject(
            ErrorCode.REPORT_TOO_LARGE,
            field,
            f"has {len(normalized)} characters; the limit is {max_chars}",
            chars=len(normalized),
            limit=max_chars,
        )
    return normalized


#: Characters that some file systems (Windows) refuse in a path component.
NON_PORTABLE_PATH_CHARACTERS = frozenset('\\:*?"<>|')
MAX_PATH_COMPONENT_BYTES = 255
MAX_PATH_COMPONENTS = 8


def validate_relative_path(value: str, field: str) -> str:
    """A portable path relative to the report's folder, ``/``-separated, that cannot escape it.

    Rejected: absolute paths, ``.`` and ``..`` components, empty components, hidden components
    (``.name``: the store reserves them), backslashes,
    drive letters and other characters Windows refuses, components ending in a dot or a space,
    control and format characters. Symlinks are the importer's job (it resolves the real path).
    """
    checked = validate_single_line(value, field, 1024)
    if checked != value:
        reject(ErrorCode.REPORT_INVALID_FIELD, field, f"{value!r} is not in Unicode NFC form")
    if value.startswith("/"):
        reject(ErrorCode.REPORT_INVALID_FIELD, field, f"{value!r} is absolute; use a relative path")
    parts = value.split("/")
    if len(parts) > MAX_PATH_COMPONENTS:
        reject(ErrorCode.REPORT_INVALID_FIELD, field, f"{value!r} is nested too deeply")
    for part in parts:
        if part in {"", ".", ".."}:
            reject(
                ErrorCode.REPORT_INVALID_FIELD,
                field,
                f"{value!r} has a {part or 'empty'!r} component; the path must stay inside the "
                "report's folder",
            )
        if part.startswith("."):
            reject(
                ErrorCode.REPORT_INVALID_FIELD,
                field,
                f"{value!r} has a hidden component {part!r}; names may not start with '.'",
            )
        bad = sorted(set(part) & NON_PORTABLE_PATH_CHARACTERS)
        if bad:
            reject(
                ErrorCode.REPORT_INVALID_FIELD,
                field,
                f"{value!r} contains {''.join(bad)!r}; use '/' as separator and portable names",
            )
        if part.endswith((".", " ")) or len(part.encode("utf-8")) > MAX_PATH_COMPONENT_BYTES:
            reject(ErrorCode.REPORT_INVALID_FIELD, field, f"{value!r} has a non-portable name")
    return value
