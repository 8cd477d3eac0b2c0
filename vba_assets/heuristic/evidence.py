"""The evidence a heuristic selection cites: the report sentence around its mention (pure).

Moved out of :mod:`.assessment` (which imports these names back) to keep it under the module size
limit.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.resolution.assessment_rules import words_beyond_names
from vba_assets.domain.resolution.models import MentionCitation

__all__ = ["MAX_EVIDENCE_CHARS", "evidence_quote"]

MAX_EVIDENCE_CHARS = 500
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def evidence_quote(text: str, mention: MentionCitation, bare: Sequence[str]) -> str | None:
    """The sentence (or line) of ``text`` around the mention, verbatim, never just the name.

    The sentence ends at ``.``/``!``/``?`` followed by whitespace, or at a line break. When that
    holds no word beyond the names (a title line, ``### Hogger``, ``[b]Hogger[/b]``: the
    controller's own test, :func:`~vba_assets.domain.resolution.assessment_rules.words_beyond_names`),
    the mention's line and the next line are taken instead; None when even that holds none. Cut
    to :data:`MAX_EVIDENCE_CHARS` around the mention.
    """
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, mention.start)]
    after = _SENTENCE_END.search(text, mention.end)
    start, end = _strip(text, ends[-1] if ends else 0, after.end() if after else len(text))
    if not words_beyond_names(text[start:end], bare):
        line_break = text.find("\n", mention.end)
        next_break = text.find("\n", line_break + 1) if line_break >= 0 else -1
        start, end = _strip(
            text,
            text.rfind("\n", 0, mention.start) + 1,
            next_break if next_break >= 0 else len(text),
        )
        if not words_beyond_names(text[start:end], bare):
            return None
    if end - start > MAX_EVIDENCE_CHARS:
        left = min(max(start, mention.start - MAX_EVIDENCE_CHARS // 2), end - MAX_EVIDENCE_CHARS)
        start, end = _strip(text, left, left + MAX_EVIDENCE_CHARS)
    return text[start:end]
