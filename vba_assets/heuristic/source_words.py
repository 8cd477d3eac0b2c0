"""The words of a report's sources, with exact offsets: what the span rules read.

Reading a source is separate from :mod:`.spans` (which words make a candidate name) because the
other passes read the same words without the span rules: the gazetteer and inflection passes
match catalog names over them (:func:`plain_gap`, :func:`name_gap`), the assessment guesses the
report's language from them.

The text is read as the case holds it (NFC, ``\\n`` newlines); every offset is a code-point index
into that text, so ``text[token.start:token.end] == token.text`` always holds. A word is a run of
letters, marks and digits, with in-word apostrophes and hyphens (:data:`JOINERS`); a change
between a script written without spaces (Chinese, Japanese, Korean) and another script ends a
word ("Hogger从昨天开始不刷新": "Hogger", then the Chinese words).

Never read: markdown headings (``#`` lines), template labels ("Expected:", "Client version:"; the
text after the colon is read) and, with the markup of :func:`~.markup.read_markup`, hidden ranges
(template comments, HTML, URLs, image syntax). Words inside ``[...]`` (chat channels, player
names, item links) and ``<...>`` (titles such as "<The Betrayer>"), and the parts of a code
identifier ("NPC_ONYXIAN_WHELP", "npc_hogger"), are read but marked ``enclosed``: no capitalized
run of :mod:`.spans` and no catalog-name match takes them.
"""

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property

from vba_assets.domain.case.text import has_format_control
from vba_assets.heuristic.lexicon import TEMPLATE_LABELS, is_title_case_line
from vba_assets.heuristic.markup import Markup, Ranges
from vba_assets.heuristic.prose import Prose

#: Characters that join two word parts into one word: apostrophes and hyphens.
JOINERS = frozenset("'’ʼ‘-‐")
#: Apostrophes of a possessive ending ("Goldark's", "Goldark’s").
APOSTROPHES = frozenset("'’ʼ")
_OPENERS = {"[": "]", "<": ">"}
_LABEL = re.compile(
    r"^\s*(?:[-*•]\s+|\d{1,2}[.)]\s+)?(?:\*\*|__)?([^\W\d_][^\n:*]{0,38}?)(?:\*\*|__)?\s*:"
    r"(?:\*\*|__)?"
)
_SENTENCE_END = ".!?:;]"
_OPENING_QUOTES = '"“„«'
_SKIP_BACK = " \t\"“”„«»'‘(*•-"


@dataclass(frozen=True)
class Token:
    """One word of a source: offsets and the facts the span rules need."""

    index: int
    start: int
    end: int
    text: str
    line: int
    capitalized: bool
    cased: bool
    has_digit: bool
    enclosed: bool
    sentence_initial: bool

    @property
    def possessive_end(self) -> int | None:
        """End of the stem of a possessive ("Goldark's" -> end of "Goldark"), else None."""
        if len(self.text) > 3 and self.text[-2] in APOSTROPHES and self.text[-1] in "sS":
            return self.end - 2
        return None


@dataclass(frozen=True)
class SourceText:
    """A readable source split into words, with its title-case lines."""

    alias: str
    order: int
    text: str
    tokens: tuple[Token, ...]
    title_case_lines: frozenset[int]
    markup: Markup | None = None

    @cached_property
    def prose(self) -> str:
        """The text with its hidden markup (link targets, URLs, comments, HTML) blanked out by
        spaces: the same offsets, but the sentence reads "[Mankrik]   gave me ..." the way a
        reader sees it (the role cues read this). Built once per source, one pass over the
        merged hidden ranges (newlines inside them are kept)."""
        if self.markup is None or not self.markup.hidden:
            return self.text
        parts: list[str] = []
        cursor = 0
        for start, end in self.markup.hidden_ranges.merged:
            start, end = max(cursor, start), min(end, len(self.text))
            if start >= end:
                continue
            parts.append(self.text[cursor:start])
            parts.append("\n".join(" " * len(line) for line in self.text[start:end].split("\n")))
            cursor = end
        parts.append(self.text[cursor:])
        return "".join(parts)

    @cached_property
    def reading(self) -> Prose:
        """:attr:`prose` with its position indexes (:class:`~.prose.Prose`), built once."""
        return Prose(self.prose)


def _is_word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LMN"


#: Code point ranges of scripts written without spaces between words (kana, CJK ideographs,
#: Hangul syllables and jamo): a word of such a script glued to a Latin or Cyrillic name
#: ("Hogger从昨天开始不刷新") is two words.
_UNSPACED = (
    (0x1100, 0x11FF),
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
)


def _unspaced(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _UNSPACED)


def _identifier_part(text: str, start: int, end: int) -> bool:
    """True for a word glued by an underscore to another word: a part of a code identifier
    ("NPC_ONYXIAN_WHELP", "npc_hogger", "SPELL_WING_BUFFET"), not prose ("_Hogger_" is
    emphasis: its underscores touch no other word)."""
    before = start >= 2 and text[start - 1] == "_" and _is_word_char(text[start - 2])
    after = end + 1 < len(text) and text[end] == "_" and _is_word_char(text[end + 1])
    return before or after


def _line_starts(text: str) -> list[int]:
    return [0, *(index + 1 for index, char in enumerate(text) if char == "\n")]


def _readable_start(line: str, headings: bool = False) -> int | None:
    """Offset in ``line`` where reading starts: after a template label; for a heading, None
    (or, with ``headings``, after its ``#`` marks unless it is a template label)."""
    stripped = line.lstrip()
    if stripped.startswith("#"):
        if not headings:
            return None
        rest = stripped.lstrip("#")
        label = " ".join(rest.strip(" \t*_:#").casefold().split())
        if label in TEMPLATE_LABELS:
            return None
        return len(line) - len(rest)
    match = _LABEL.match(line)
    if match and " ".join(match.group(1).casefold().split()) in TEMPLATE_LABELS:
        return match.end()
    return 0


def _sentence_initial(text: str, start: int, line_start: int) -> bool:
    if start > line_start and text[start - 1] in _OPENING_QUOTES:
        return True  # the first word of a quotation: 'the log says "Return to ..."'
    index = start - 1
    while index >= line_start and text[index] in _SKIP_BACK:
        index -= 1
    return index < line_start or text[index] in _SENTENCE_END


def tokenize_source(alias: str, order: int, text: str, markup: Markup | None = None) -> SourceText:
    """Split one source into :class:`Token` words (see the module docstring for what is skipped).

    With ``markup`` (:func:`~.markup.read_markup`): words in hidden ranges (template comments,
    HTML, URLs, image syntax) are not read, and the brackets of a markdown link text do not
    enclose it (``[Mankrik](...)`` is read like prose; ``[Mankrik]`` alone stays enclosed).
    """
    hidden = markup.hidden_ranges if markup is not None else Ranges([])
    bracket_free = (
        {s - 1 for s, _ in markup.link_texts} | {e for _, e in markup.link_texts}
        if markup is not None
        else set()
    )
    tokens: list[Token] = []
    title_lines: set[int] = set()
    starts = _line_starts(text)
    for line_number, line_start in enumerate(starts):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        line = text[line_start:line_end]
        skip = _readable_start(line, headings=markup is not None)
        if skip is None:
            continue
        heading = line.lstrip().startswith("#")
        if is_title_case_line(line[skip:]):
            title_lines.add(line_number)
        depth: dict[str, int] = {"[": 0, "<": 0}
        position = line_start + skip
        while position < line_end:
            char = text[position]
            if position in bracket_free:
                position += 1
                continue
            skip_to = hidden.end_at(position)
            if skip_to is not None:
                position = max(position + 1, skip_to)
                continue
            if char in _OPENERS:
                depth[char] += 1
            elif char in ("]", ">"):
                opener = "[" if char == "]" else "<"
                depth[opener] = max(0, depth[opener] - 1)
            if not _is_word_char(char):
                position += 1
                continue
            end = position + 1
            script = _unspaced(char)
            while end < line_end and (
                (_is_word_char(text[end]) and _unspaced(text[end]) == script)
                or (
                    text[end] in JOINERS
                    and end + 1 < line_end
                    and _is_word_char(text[end + 1])
                    and _unspaced(text[end + 1]) == script
                )
            ):
                end += 1
            word = text[position:end]
            first = word[0]
            tokens.append(
                Token(
                    index=len(tokens),
                    start=position,
                    end=end,
                    text=word,
                    line=line_number,
                    capitalized=first.isupper() or first.istitle(),
                    cased=first.lower() != first.upper(),
                    has_digit=any(c.isdigit() for c in word),
                    enclosed=depth["["] > 0
                    or depth["<"] > 0
                    or _identifier_part(text, position, end),
                    sentence_initial=heading or _sentence_initial(text, position, line_start),
                )
            )
            position = end
    return SourceText(alias, order, text, tuple(tokens), frozenset(title_lines), markup)


def plain_gap(text: str, left: Token, right: Token) -> bool:
    """True when only ASCII spaces (one or two) separate two words of the same line."""
    gap = text[left.end : right.start]
    return left.line == right.line and 1 <= len(gap) <= 2 and gap.strip(" ") == ""


def name_gap(text: str, left: Token, right: Token) -> bool:
    """True when two words may sit inside one catalog name ("Mr. Smith", "Harpoon Master").

    At most three characters of spaces or simple punctuation, on one line, no format control.
    """
    gap = text[left.end : right.start]
    if left.line != right.line or not 1 <= len(gap) <= 3 or has_format_control(gap):
        return False
    return all(char in " .,:&/!'’-" for char in gap)
