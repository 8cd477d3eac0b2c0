"""What a tracker report's markup says about its text (markdown-it-py, CommonMark; pure).

Real reports are markdown written into tracker templates. :func:`read_markup` parses a source
with markdown-it-py and maps what it finds back to exact offsets of the source text (markdown-it
gives block line ranges only; inline pieces are located in order inside their block's lines):

* **hidden ranges**, never read as report prose: link reference definitions, which is what
  template comments are (``[//]: # ([NPC] Magistrix Erona)``: invisible to the reader, yet full of
  example names), HTML blocks and comments (``<!-- ... -->``, ``<img ...>``, plugin footers),
  inline HTML (``<Innkeeper>`` after a name), image syntax (``![alt](src)``), every URL, and
  lines that are a JSON object or array (a pasted payload, e.g. an injected "answer");
* **link texts** (``[Mankrik](...)``): read as prose, although they sit in brackets;
* **database links** (:class:`Link`): a URL of a public database's creature page
  (``?npc=3432``, ``/npc=3432/mankrik``, ``npc_finder.php?npc=14221``, BBCode
  ``[url=...npc=3432]Mankrik[/url]``), with the exact span of its URL (which holds the id's
  digits) and of its link text when it has one;
* **numbers** (:class:`Number`): standalone numbers of two to seven digits outside URLs (an
  entry written beside a name: ``Loolruna (id 19694)``, ``.go c id 19832``, ``Sentinel
  Selarin(npc #3694)``, ``*King Varian Wrynn* *(ID:29611)*``); whether one is an identity is decided later, by the names the index
  gives it;
* **code** ranges (fenced and indented blocks, inline code spans) and **quote** ranges (block
  quotes): read, and kept for the role cues.

What it cannot do: a link whose URL markdown-it decoded differently from its source text
(escaped or entity-encoded characters) is found by the URL pattern alone, without its link text;
BBCode other than ``[url=...]...[/url]`` is read as plain text.
"""

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from markdown_it import MarkdownIt
from markdown_it.token import Token

from vba_assets.domain.catalog.identity_digits import parse_identity

#: A URL as written in prose (up to whitespace, a closing bracket or a quote).
URL = re.compile(r"(?:https?://|www\.)[^\s<>\[\]()\"'`]+(?:\([^\s()]*\)[^\s<>\[\]()\"'`]*)*")
#: A creature page of a public database inside a URL: ``npc=3432``, ``npc/3432``, ``?npc=3432``.
#: The id is the whole digit run after the key (any script, so a run is never read in part),
#: read by :func:`~vba_assets.domain.catalog.identity_digits.parse_identity` (ASCII only,
#: leading zeros normalised); a refused run makes the link unreadable (:attr:`Markup.unreadable`).
NPC_ID = re.compile(r"(?<![A-Za-z])npc[=/](\d+)", re.IGNORECASE)
#: A database page of something else than a creature.
OTHER_PAGE = re.compile(
    r"(?<![A-Za-z])(?:quest|item|spell|zone|object|achievement|faction|itemset)[=/]\d",
    re.IGNORECASE,
)
_BBCODE = re.compile(r"\[url=([^\]\s]+)\]([^\[\]\n]{1,200})\[/url\]", re.IGNORECASE)
#: A standalone number: not glued to a word, a decimal, a time, a path or a key (``x=12``), except
#: an "ID:" label written without a space (``*(ID:29611)*``).
_NUMBER = re.compile(r"(?:(?<=\b[iI][dD]:)|(?<![\w.,:/=-]))([0-9]{2,7})(?![\w]|[.,]\d)")
_TRAILING = ".,;:!?"

_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


@dataclass(frozen=True)
class Link:
    """A database link to a creature page: the id, its URL span and its link text span."""

    identity: int
    start: int
    end: int
    text_start: int | None = None
    text_end: int | None = None


@dataclass(frozen=True)
class Number:
    """A standalone number outside URLs (a candidate identity written in the text)."""

    value: int
    start: int
    end: int


class Ranges:
    """``[start, end)`` ranges, merged once; which one covers a position, whether a range overlaps
    one (binary search: a check costs O(log n), not a pass over every range)."""

    def __init__(self, ranges: Sequence[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        points: list[int] = []
        for start, end in sorted(ranges):
            if end <= start:
                points.append(start)  # an empty range overlaps what strictly contains it
            elif merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.merged = [(start, end) for start, end in merged]
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]
        self._points = points

    def end_at(self, position: int) -> int | None:
        """The end of the merged range that covers ``position``, or None."""
        index = bisect.bisect_right(self._starts, position) - 1
        if index >= 0 and position < self._ends[index]:
            return self._ends[index]
        return None

    def overlaps(self, start: int, end: int) -> bool:
        """True when some range ``(s, e)`` has ``s < end and start < e``."""
        index = bisect.bisect_right(self._ends, start)
        if index < len(self._starts) and self._starts[index] < end:
            return True
        point = bisect.bisect_right(self._points, start)
        return point < len(self._points) and self._points[point] < end


@dataclass
class Markup:
    """What :func:`read_markup` found in one source (offsets into its text)."""

    hidden: list[tuple[int, int]] = field(default_factory=list)
    link_texts: list[tuple[int, int]] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    numbers: list[Number] = field(default_factory=list)
    code: list[tuple[int, int]] = field(default_factory=list)
    quotes: list[tuple[int, int]] = field(default_factory=list)
    #: Link texts whose link is a database page of something else than a creature (a quest,
    #: an item, a spell, a zone, an object, an achievement, a faction).
    other_link_texts: list[tuple[int, int]] = field(default_factory=list)
    #: Creature links whose id is not an identity (``npc=２３４８７``: not ASCII digits; ``npc=0``):
    #: ``(start, end)`` of the URL; they give no reference and are reported as unreadable.
    unreadable: list[tuple[int, int]] = field(default_factory=list)

    @cached_property
    def hidden_ranges(self) -> Ranges:
        """:attr:`hidden`, merged and indexed (built on first use, once :func:`read_markup` is
        done)."""
        return Ranges(self.hidden)

    def is_hidden(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` overlaps a hidden range."""
        return self.hidden_ranges.overlaps(start, end)

    def in_link_text(self, position: int) -> bool:
        return any(s <= position < e for s, e in self.link_texts)

    def in_code(self, start: int, end: int) -> bool:
        return any(s <= start and end <= e for s, e in self.code)


def _line_starts(text: str) -> list[int]:
    return [0, *(index + 1 for index, char in enumerate(text) if char == "\n")]


def _span_of_lines(starts: list[int], text: str, first: int, last: int) -> tuple[int, int]:
    start = starts[first] if first < len(starts) else len(text)
    end = starts[last] - 1 if last < len(starts) else len(text)
    return start, max(start, end)


def _find(text: str, needle: str, start: int, end: int) -> int:
    return text.find(needle, start, end) if needle else -1


def _inline(token: Token, text: str, start: int, end: int, found: Markup) -> None:
    """Locate the inline pieces of one block (``text[start:end]``) in order."""
    cursor = start
    children = token.children or []
    index = 0
    while index < len(children):
        child = children[index]
        if child.type == "link_open":
            href = str(child.attrs.get("href", ""))
            inner_html: list[str] = []
            index += 1
            while index < len(children) and children[index].type != "link_close":
                if children[index].type == "html_inline":
                    inner_html.append(children[index].content)
                index += 1
            autolink = child.info == "auto"
            raw_at = _find(text, href, cursor, end)
            if raw_at < 0:
                index += 1
                continue
            raw_end = raw_at + len(href)
            if autolink:
                found.hidden.append((raw_at - 1, min(end, raw_end + 1)))
            else:
                opener = text.rfind("[", cursor, raw_at)
                close = text.rfind("](", cursor, raw_at)
                if 0 <= opener < close:
                    found.link_texts.append((opener + 1, close))
                    found.hidden.append((close, min(end, raw_end + 1)))
                    for html in inner_html:  # "[Mankrik <Quest Giver>](...)": the title
                        at = text.find(html, opener + 1, close)
                        if at >= 0:
                            found.hidden.append((at, at + len(html)))
            cursor = raw_end
        elif child.type == "image":
            src = str(child.attrs.get("src", ""))
            raw_at = _find(text, src, cursor, end)
            if raw_at >= 0:
                opener = text.rfind("![", cursor, raw_at)
                left = opener if opener >= 0 else raw_at
                found.hidden.append((left, min(end, raw_at + len(src) + 1)))
                cursor = raw_at + len(src)
        elif child.type == "code_inline":
            raw_at = _find(text, child.content, cursor, end)
            if raw_at >= 0:
                found.code.append((raw_at, raw_at + len(child.content)))
                cursor = raw_at + len(child.content)
        elif child.type == "html_inline":
            raw_at = _find(text, child.content, cursor, end)
            if raw_at >= 0:
                found.hidden.append((raw_at, raw_at + len(child.content)))
                cursor = raw_at + len(child.content)
        elif child.type == "text" and child.content:
            raw_at = _find(text, child.content, cursor, end)
            if raw_at >= 0:
                cursor = raw_at + len(child.content)
        index += 1


def _blocks(text: str, found: Markup) -> None:
    tokens = _PARSER.parse(text)
    starts = _line_starts(text)
    covered: set[int] = set()
    for token in tokens:
        if token.map is None:
            continue
        first, last = token.map
        covered.update(range(first, last))
        start, end = _span_of_lines(starts, text, first, last)
        if token.type == "html_block":
            found.hidden.append((start, end))
        elif token.type in ("fence", "code_block"):
            found.code.append((start, end))
        elif token.type == "blockquote_open":
            found.quotes.append((start, end))
        elif token.type == "inline":
            _inline(token, text, start, end, found)
    for number, line_start in enumerate(starts):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        if number not in covered and text[line_start:line_end].strip():
            found.hidden.append((line_start, line_end))  # a reference definition (a comment)


def _text_before(text: str, ends: dict[int, tuple[int, int]], start: int) -> tuple[int, int] | None:
    """The link text ``[...](`` that ends at most 3 characters before a URL at ``start`` (the
    first in offset order when several do)."""
    found = [ends[e] for e in range(max(0, start - 3), start + 1) if e in ends]
    return min((span for span in found if text[span[1] : span[1] + 2] == "]("), default=None)


def _links(text: str, found: Markup) -> None:
    ends: dict[int, tuple[int, int]] = {}
    for span in sorted(found.link_texts):
        ends.setdefault(span[1], span)
    for match in URL.finditer(text):
        start, end = match.start(), match.end()
        while end > start and text[end - 1] in _TRAILING:
            end -= 1
        found.hidden.append((start, end))
        npc = NPC_ID.search(text, start, end)
        text_span = _text_before(text, ends, start)
        if npc is None:
            if text_span is not None and OTHER_PAGE.search(text, start, end):
                found.other_link_texts.append(text_span)
            continue
        identity = parse_identity(npc.group(1))
        if identity is None:
            found.unreadable.append((start, end))
            continue
        found.links.append(
            Link(
                identity=identity,
                start=start,
                end=end,
                text_start=text_span[0] if text_span else None,
                text_end=text_span[1] if text_span else None,
            )
        )
    for match in _BBCODE.finditer(text):
        npc = NPC_ID.search(match.group(1))
        if npc is None:
            continue
        found.hidden.append((match.start(), match.start(2)))
        found.hidden.append((match.end(2), match.end()))
        found.link_texts.append((match.start(2), match.end(2)))
        identity = parse_identity(npc.group(1))
        if identity is None:
            found.unreadable.append((match.start(1), match.end(1)))
            continue
        found.links.append(
            Link(identity, match.start(1), match.end(1), match.start(2), match.end(2))
        )


#: A key inside a JSON line: a quote, then a colon.
_JSON_KEY = re.compile(r'"\s*:')


def json_line(line: str) -> bool:
    """True when a line (no newline) is a JSON object or array: it opens with ``[`` or ``{`` and
    closes with ``]`` or ``}`` (blanks around), and a ``"`` then ``:`` stand between (a pasted
    payload, never report prose). One pass; the pattern ``^\\s*[\\[{].*"\\s*:\\s*.*[\\]}]\\s*$``
    it replaces backtracked quadratically on a long line."""
    inner = line.strip()
    if len(inner) < 2 or inner[0] not in "[{" or inner[-1] not in "]}":
        return False
    return _JSON_KEY.search(inner, 1, len(inner) - 1) is not None


def _json_lines(text: str, found: Markup) -> None:
    start = 0
    for line in text.split("\n"):
        if json_line(line):
            found.hidden.append((start, start + len(line)))
        start += len(line) + 1


def _numbers(text: str, found: Markup) -> None:
    hidden = Ranges(found.hidden)
    for match in _NUMBER.finditer(text):
        start, end = match.span(1)
        if hidden.end_at(start) is not None:
            continue
        value = parse_identity(match.group(1))
        if value is not None:
            found.numbers.append(Number(value, start, end))


def read_markup(text: str) -> Markup:
    """The markup facts of one source text (see the module docstring)."""
    found = Markup()
    _blocks(text, found)
    _json_lines(text, found)
    _links(text, found)
    _numbers(text, found)
    found.hidden.sort()
    found.links.sort(key=lambda link: link.start)
    found.unreadable = sorted(set(found.unreadable))
    return found
