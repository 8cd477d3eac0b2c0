"""Whether a mention heads an item of the report's own list (issue 29, ARCHITECTURE 15).

Split from :mod:`.role_reader`, which asks it for a term whose other rules would make it context:
a mention that heads a list item ("- X ...", "1. X ...", "- [x] NPC - X ..."), a label line ("X:
drops loot ..."), a bare item next to another one ("- Morgaine the Sly\\n- Princess") or a link
that fills its line next to another link line (a template's list of database links) names
something the report lists as broken. Each check reads the mention's line and at most
:data:`_BULLET_CHARS` characters of each neighbour line (linear in the report's size).
"""

import re

from vba_assets.heuristic.prose import Prose
from vba_assets.heuristic.spans import Span

#: A mention that heads a list item ("- X ...", "1. X ...", "- [x] NPC - X ...") or a label line
#: ("X: drops loot ...") is an item of the report's own list of what is broken.
_ITEM_PREFIX = re.compile(
    r"^[ \t>]*(?:(?:[-*•+]|\d{1,3}[.)])[ \t]+)+(?:\[[ xX]\][ \t]*)?"
    r"(?:(?:npc|nip|нип|нпс|pnj|mob|boss)[ \t]*[-:][ \t]*)?[*_]*$",
    re.IGNORECASE,
)
_BULLET = re.compile(r"[ \t>]{0,8}(?:[-*•+]|\d{1,3}[.)])[ \t]{1,4}[^\s]")
_BULLET_CHARS = 20
_LABEL_PREFIX = re.compile(r"^[ \t>*_]*$")
_LABEL_AFTER = re.compile(r"^[*_]*[ \t]*:[ \t]*\S")
#: A line that holds only a link ("https://db.example/?npc=16154"), read at most
#: :data:`_BULLET_CHARS` characters into it.
_LINK_LINE = re.compile(r"[ \t>*_-]{0,8}(?:https?://|www\.)", re.IGNORECASE)


def heads_item(prose: Prose, written: str, span: Span) -> bool:
    """True when the mention ``span`` heads a list item or a label line with more text after it,
    is a bare item next to another one, or is a link line next to another link line.
    ``written`` is the source as written (its reading, ``prose``, blanks the links out)."""
    line_start, line_end = prose.line_start(span.start), prose.line_end(span.extent)
    prefix = prose.text[line_start : span.start]
    rest = prose.text[span.extent : line_end]
    if (_ITEM_PREFIX.match(prefix) and (rest.strip(" \t*_") or _in_list(prose, span))) or (
        _LABEL_PREFIX.match(prefix) and _LABEL_AFTER.match(rest)
    ):
        return True
    return _in_link_list(written, prose, span)


def _neighbours(text: str, prose: Prose, span: Span) -> tuple[str, str]:
    """The first :data:`_BULLET_CHARS` characters of the lines above and below the mention's."""
    line_start, line_end = prose.line_start(span.start), prose.line_end(span.extent)
    before = prose.line_start(line_start - 1) if line_start > 0 else line_start
    above = text[before : min(before + _BULLET_CHARS, max(before, line_start - 1))]
    below = text[line_end + 1 : line_end + 1 + _BULLET_CHARS]
    return above, below


def _in_list(prose: Prose, span: Span) -> bool:
    """True when the bare item's line is next to another item line ("- X\\n- Y")."""
    return any(_BULLET.match(line) for line in _neighbours(prose.text, prose, span) if line)


def _in_link_list(written: str, prose: Prose, span: Span) -> bool:
    """True when a link mention fills its line and the line above or below is a link too
    ("https://db/?npc=16061\\nhttps://db/?npc=16154"): the report's own list of creatures."""
    line_start, line_end = prose.line_start(span.start), prose.line_end(span.extent)
    if len(written) < line_end or not _LINK_LINE.match(written, line_start, span.extent):
        return False
    if written[line_start : span.start].strip(" \t>*_-") or written[span.extent : line_end].strip():
        return False
    return any(_LINK_LINE.match(line) for line in _neighbours(written, prose, span) if line)
