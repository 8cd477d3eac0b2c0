"""Candidate name spans of a report, with exact offsets (the heuristic's grounding step).

The text is read as the case holds it (NFC, ``\\n`` newlines); every offset is a code-point index
into that text, so ``text[start:end] == span.text`` always holds. What is extracted:

* **capitalized runs**: consecutive capitalized words on one line, allowing up to two lower-case
  particles inside ("Avatar of Hakkar"), apostrophes and hyphens inside words ("Kael'thas",
  "Pint-Sized"); stop words (``I``, ``The``), calendar words and words with digits end a run;
* **sub-runs** of a run split at its particles ("Catch the Wild Wolpertinger" -> "Wild
  Wolpertinger") or after a zone word ("Black Temple Illidan Stormrage" -> "Black Temple",
  "Illidan Stormrage");
* **singulars inside plurals**: "Wolpertingers" -> the span "Wolpertinger" inside it;
* **possessive stems**: "Goldark's" -> "Goldark";
* **quoted strings** of at most six words ("...", “...”, „...“, «...»).

Never read: markdown headings (``#`` lines), template labels ("Expected:", "Client version:"; the
text after the colon is read), text inside ``[...]`` (chat channels, player names, item links) and
``<...>`` (titles such as "<The Betrayer>"). A span never crosses a line break, a zero-width or
bidi control character (:data:`~vba_assets.domain.case.text.FORMAT_CONTROL_CODEPOINTS`) or punctuation
other than an in-word apostrophe or hyphen.

What this cannot do: it knows no grammar. A sentence-initial capitalized word that is not a stop
word ("Killed Harpoon Master Yavus") stays in the run (a shorter variant without it is offered when
it looks like a verb, "-ed"/"-ing"); German capitalizes every noun, so without the catalog pass a
German report yields many non-name spans; lower-case names are found only by the catalog pass.
"""

import bisect
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from vba_assets.domain.case.text import FORMAT_CONTROL_CODEPOINTS
from vba_assets.domain.heuristics.lexicon import (
    PARTICLES,
    TEMPLATE_LABELS,
    ZONE_WORDS,
    is_stopword,
    is_title_case_line,
)
from vba_assets.domain.heuristics.markup import Markup

#: Characters that join two word parts into one word: apostrophes and hyphens.
JOINERS = frozenset("'’ʼ‘-‐")
_APOSTROPHES = frozenset("'’ʼ")
_OPENERS = {"[": "]", "<": ">"}
_MAX_PARTICLES = 2
_MAX_QUOTED_WORDS = 6
_MAX_SPAN_CHARS = 100
_LABEL = re.compile(
    r"^\s*(?:[-*•]\s+|\d{1,2}[.)]\s+)?(?:\*\*|__)?([^\W\d_][^\n:*]{0,38}?)(?:\*\*|__)?\s*:"
    r"(?:\*\*|__)?"
)
_QUOTED = re.compile(r'"([^"\n]{1,200})"|“([^”\n]{1,200})”|„([^“”\n]{1,200})[“”]|«([^»\n]{1,200})»')
_TRAILING_PUNCTUATION = ".,;:!?…"
_SENTENCE_END = ".!?:;]"
_OPENING_QUOTES = '"“„«'
_SKIP_BACK = " \t\"“”„«»'‘(*•-"
_WORD = re.compile(r"[^\W_]+(?:['’ʼ‘-][^\W_]+)*")
_VERB_LIKE = re.compile(r"^[A-ZÄÖÜ][a-zäöüß]+(?:ed|ing)$")


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
        if len(self.text) > 3 and self.text[-2] in _APOSTROPHES and self.text[-1] in "sS":
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

    @property
    def prose(self) -> str:
        """The text with its hidden markup (link targets, URLs, comments, HTML) blanked out by
        spaces: the same offsets, but the sentence reads "[Mankrik]   gave me ..." the way a
        reader sees it (the role cues read this)."""
        if self.markup is None or not self.markup.hidden:
            return self.text
        chars = list(self.text)
        for start, end in self.markup.hidden:
            for index in range(max(0, start), min(end, len(chars))):
                if chars[index] != "\n":
                    chars[index] = " "
        return "".join(chars)


@dataclass(frozen=True)
class Span:
    """A candidate name: an exact span of a source and how it was found."""

    source: str
    order: int
    start: int
    end: int
    text: str
    kind: str
    words: int
    weak: bool = False
    initial: bool = False
    #: A possessive glued to a capitalized word: part of a place or item name ("Thoradin's Wall").
    compound: bool = False
    #: Where the name as written ends when the span is only its uninflected part
    #: ("Wilde" of "Wilden Wolpertinger"); None when it is the span's own end.
    extent_end: int | None = None
    #: The catalogs whose names an inflected span matched (see :mod:`.inflection`).
    found_in: tuple[str, ...] = ()

    def with_compound(self, compound: bool) -> "Span":
        """This span with :attr:`compound` set."""
        return replace(self, compound=compound)

    @property
    def proper(self) -> bool:
        """Capitalization marks it as a name: several words, or one capitalized word that does not
        start a sentence (a sentence-initial "Chat" is no evidence), or a quoted string."""
        if self.kind == "quoted":
            return True
        if self.text == self.text.lower():
            return False
        return self.words > 1 or not self.initial

    @property
    def extent(self) -> int:
        """The end of the name as written (:attr:`extent_end`, else :attr:`end`)."""
        return self.end if self.extent_end is None else self.extent_end

    @property
    def position(self) -> tuple[int, int, int]:
        """Sort key: source order, start, then longer spans first."""
        return (self.order, self.start, -self.end)


def has_format_control(text: str) -> bool:
    """True when ``text`` holds a zero-width or bidi control character."""
    return any(ord(char) in FORMAT_CONTROL_CODEPOINTS for char in text)


def _is_word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LMN"


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
    hidden = _Ranges(markup.hidden if markup is not None else [])
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
            while end < line_end and (
                _is_word_char(text[end])
                or (text[end] in JOINERS and end + 1 < line_end and _is_word_char(text[end + 1]))
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
                    enclosed=depth["["] > 0 or depth["<"] > 0,
                    sentence_initial=heading or _sentence_initial(text, position, line_start),
                )
            )
            position = end
    return SourceText(alias, order, text, tuple(tokens), frozenset(title_lines), markup)


class _Ranges:
    """``[start, end)`` ranges, merged; which one covers a position (binary search)."""

    def __init__(self, ranges: Sequence[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(ranges):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            elif end > start:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def end_at(self, position: int) -> int | None:
        """The end of the merged range that covers ``position``, or None."""
        index = bisect.bisect_right(self._starts, position) - 1
        if index >= 0 and position < self._ends[index]:
            return self._ends[index]
        return None


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


def _name_word(token: Token) -> bool:
    stem = token.text if token.possessive_end is None else token.text[:-2]
    return (
        token.capitalized
        and not token.has_digit
        and not token.enclosed
        and not is_stopword(stem)
        and not is_stopword(token.text)
    )


def _particle(token: Token) -> bool:
    return not token.capitalized and token.text.casefold() in PARTICLES and not token.enclosed


def capitalized_runs(source: SourceText) -> Iterator[list[Token]]:
    """Maximal runs of capitalized name words (particles only inside, possessive only last)."""
    tokens = source.tokens
    index = 0
    while index < len(tokens):
        if not _name_word(tokens[index]):
            index += 1
            continue
        run = [tokens[index]]
        cursor = index + 1
        while tokens[cursor - 1].possessive_end is None and cursor < len(tokens):
            particles = 0
            probe = cursor
            while (
                probe < len(tokens)
                and particles < _MAX_PARTICLES
                and _particle(tokens[probe])
                and plain_gap(source.text, tokens[probe - 1], tokens[probe])
            ):
                particles += 1
                probe += 1
            if (
                probe < len(tokens)
                and _name_word(tokens[probe])
                and plain_gap(source.text, tokens[probe - 1], tokens[probe])
            ):
                run.extend(tokens[cursor : probe + 1])
                cursor = probe + 1
            else:
                break
        yield run
        index = cursor


def _span(
    source: SourceText,
    start: int,
    end: int,
    kind: str,
    weak: bool = False,
    initial: bool = False,
) -> Span | None:
    text = source.text[start:end]
    if not text or len(text) > _MAX_SPAN_CHARS or has_format_control(text) or "\n" in text:
        return None
    words = sum(1 for _ in _WORD.finditer(text))
    return Span(source.alias, source.order, start, end, text, kind, words, weak, initial)


def _singular_end(token: Token) -> int | None:
    """End of the singular inside a plural-looking last word ("Wolpertingers" -> "Wolpertinger")."""
    word = token.text
    if token.possessive_end is not None or len(word) < 4 or not word.endswith("s"):
        return None
    if word.endswith(("ss", "us", "is")) or word[-2] in _APOSTROPHES:
        return None
    return token.end - 1


def _particle_groups(run: list[Token]) -> list[list[Token]]:
    groups: list[list[Token]] = [[]]
    for token in run:
        if _particle(token):
            groups.append([])
        else:
            groups[-1].append(token)
    return [group for group in groups if group]


def _run_spans(source: SourceText, run: list[Token]) -> Iterator[Span | None]:
    last = run[-1]
    end = last.possessive_end or last.end
    first = run[0]
    initial = first.sentence_initial
    leading_verb = initial and len(run) > 1 and bool(_VERB_LIKE.match(first.text))
    cuts = [
        index
        for index, token in enumerate(run[:-1])
        if token.text.casefold() in ZONE_WORDS and not _particle(run[index + 1])
    ]
    yield _span(source, first.start, end, "run", leading_verb or bool(cuts), initial)
    if leading_verb:
        tail = next((t for t in run[1:] if not _particle(t)), None)
        if tail is not None:
            yield _span(source, tail.start, end, "run_tail")
    singular = _singular_end(last)
    if singular is not None:
        yield _span(source, first.start, singular, "singular", leading_verb or bool(cuts), initial)
    for index in cuts:
        # "Black Temple Illidan Stormrage": a place name glued to the next name.
        yield _span(source, first.start, run[index].end, "subrun", initial=initial)
        yield _span(source, run[index + 1].start, end, "subrun")
    groups = _particle_groups(run)
    if len(groups) > 1:
        for group in groups:
            group_end = group[-1].possessive_end or group[-1].end
            group_initial = group[0].sentence_initial
            yield _span(source, group[0].start, group_end, "subrun", initial=group_initial)
            if group[-1] is last and singular is not None:
                yield _span(source, group[0].start, singular, "singular", initial=group_initial)


def _quoted_spans(source: SourceText) -> Iterator[Span | None]:
    for match in _QUOTED.finditer(source.text):
        group = next(index for index in range(1, 5) if match.group(index) is not None)
        start, end = match.start(group), match.end(group)
        if source.markup is not None and source.markup.is_hidden(start, end):
            continue
        while start < end and source.text[start].isspace():
            start += 1
        while end > start and (
            source.text[end - 1].isspace() or source.text[end - 1] in _TRAILING_PUNCTUATION
        ):
            end -= 1
        content = source.text[start:end]
        words = content.split()
        if not words or len(words) > _MAX_QUOTED_WORDS or not any(c.isalpha() for c in content):
            continue
        if all(is_stopword(word) for word in words):
            continue
        yield _span(source, start, end, "quoted")


def extract_spans(sources: Sequence[SourceText]) -> list[Span]:
    """Every candidate span of the sources, deduplicated, in reading order."""
    found: dict[tuple[str, int, int], Span] = {}
    for source in sources:
        candidates: list[Span | None] = []
        for run in capitalized_runs(source):
            candidates.extend(_run_spans(source, run))
        candidates.extend(_quoted_spans(source))
        for span in candidates:
            if span is None:
                continue
            key = (span.source, span.start, span.end)
            previous = found.get(key)
            if previous is None or (previous.weak and not span.weak):
                found[key] = span
    return sorted(found.values(), key=lambda s: (s.position, s.kind))
