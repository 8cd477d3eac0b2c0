"""A source's prose with the positions the role cues look up, indexed once per source.

The role cues (:mod:`.roles`, :mod:`.role_reader`) read a short window around every mention:
where its line starts and ends, the blanks after it, a place phrase after it, whether its line
opens with a place header. Searching the text for these per mention (``rfind`` to the line start,
a regex run over the blanks that follow) costs the line's length per mention, which made a report
of many mentions on one long line (a row of URLs, blanked to spaces) quadratic or worse. Here the
newlines, the runs of blanks, the full stops are listed once (linear in the text), and every look
up is a binary search; a place phrase is matched once per position it can start at.

Every answer equals the one the direct search gives (``text.rfind("\\n", 0, start) + 1``, the
pattern ``[ \\t]*,?[ \\t]*(?:in|at|...)...`` matched at the mention's end); only the cost differs.
"""

import bisect
import re
from collections.abc import Callable

#: What may follow the blanks and comma after a mention to make a place phrase ("in Naxxramas",
#: "at the Brewfest Camp"). Possessive quantifiers: nothing after a run can make it give back.
_PLACE_REST = re.compile(
    r"(?:in|at|near|inside|around|im|bei|à|dans)[ \t]++(?:the[ \t]++|der[ \t]++)?"
    r"(?:[A-ZÄÖÜÀ-Þ][\w'’-]*+[ \t]*+){1,4}"
)
_BLANKS = re.compile(r"[ \t]+")
_NEWLINE = re.compile(r"\n")
_DOT = re.compile(r"\.")
_STOP = re.compile(r"\. ")
_NON_SPACE = re.compile(r"\S")


class Prose:
    """A prose text (:attr:`~.source_words.SourceText.prose`) and its position indexes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines = [match.start() for match in _NEWLINE.finditer(text)]
        blanks = [match.span() for match in _BLANKS.finditer(text)]
        self._blank_starts = [start for start, _ in blanks]
        self._blank_ends = [end for _, end in blanks]
        self._dots = [match.start() for match in _DOT.finditer(text)]
        self._stops = [match.start() for match in _STOP.finditer(text)]
        self._places: dict[int, int | None] = {}
        self._verdicts: dict[tuple[int, int], bool] = {}

    def line_start(self, position: int) -> int:
        """``text.rfind("\\n", 0, position) + 1``."""
        index = bisect.bisect_left(self._newlines, position)
        return self._newlines[index - 1] + 1 if index > 0 else 0

    def line_end(self, position: int) -> int:
        """``text.find("\\n", position)``, or the text's length without one."""
        index = bisect.bisect_left(self._newlines, position)
        return self._newlines[index] if index < len(self._newlines) else len(self.text)

    def skip_blanks(self, position: int) -> int:
        """The first position at or after ``position`` that is not a space or a tab."""
        index = bisect.bisect_right(self._blank_starts, position) - 1
        if index >= 0 and position < self._blank_ends[index]:
            return self._blank_ends[index]
        return position

    def place_end(self, end: int) -> int | None:
        """Where a place phrase right after ``end`` ends (``[ \\t]*,?[ \\t]*`` then
        :data:`_PLACE_REST`), or None without one."""
        position = self.skip_blanks(end)
        if self.text.startswith(",", position):
            position = self.skip_blanks(position + 1)
        if position not in self._places:
            match = _PLACE_REST.match(self.text, position)
            self._places[position] = match.end() if match else None
        return self._places[position]

    def dots(self, start: int, end: int) -> int:
        """``text[start:end].count(".")``."""
        return bisect.bisect_left(self._dots, end) - bisect.bisect_left(self._dots, start)

    def stop(self, start: int, end: int) -> int:
        """``text.find(". ", start, end)``."""
        index = bisect.bisect_left(self._stops, start)
        if index < len(self._stops) and self._stops[index] + 2 <= end:
            return self._stops[index]
        return -1

    def blank(self, start: int, end: int) -> bool:
        """``not text[start:end].strip()``."""
        return _NON_SPACE.search(self.text, start, end) is None

    def once(self, key: tuple[int, int], verdict: Callable[[], bool]) -> bool:
        """``verdict()``, computed once per ``key`` (a verdict on a stretch of this text that many
        mentions share, e.g. the place header their line opens with)."""
        if key not in self._verdicts:
            self._verdicts[key] = verdict()
        return self._verdicts[key]
