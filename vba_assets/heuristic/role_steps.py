"""A report's reproduction steps, and the names that are only what a step kills (issue 29).

Template reports list how to reproduce the bug ("### Steps to reproduce the problem", "Steps:",
"Schritte zur Reproduzierung"); a step "kill X" names a prerequisite, not what misbehaves ("kill
negatron / try to hand in quest": the turn-in is broken). :class:`StepSections` finds the step
sections of one text with two regular-expression passes (linear in its size) and answers each
position with a binary search; :func:`killed_in_step` reads the bounded text before a mention on
its line. Outside the steps, a kill the reporter tells ("I killed hogger and have the claw but
Marshal Dughan ...", "Haben X gestern gelegt") is such a prerequisite too
(:func:`all_killed_by_reporter`), when another creature is the one that fails.
"""

import bisect
import re
from collections.abc import Mapping, Sequence

from vba_assets.heuristic.prose import Prose
from vba_assets.heuristic.spans import Span

#: A heading that opens the reproduction steps, in the reporters' languages.
_STEPS_HEADING = re.compile(
    r"^[ \t#*>_]*(?:steps?(?:[ \t]+to[ \t]+reproduce)?|how[ \t]+to[ \t]+reproduce|"
    r"reproduction(?:[ \t]+steps)?|repro|schritte(?:[ \t]+zur[ \t]+reproduzierung)?|"
    r"reproduzieren|étapes(?:[ \t]+pour[ \t]+reproduire)?|pasos(?:[ \t]+para[ \t]+reproducir)?|"
    r"шаги(?:[ \t]+воспроизведения)?|kroki)\b[^\n]{0,60}$",
    re.IGNORECASE | re.MULTILINE,
)
#: Any heading (a markdown heading, a bold line, a short line ending with a colon): it ends the
#: section the previous heading opened.
_HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]|\*\*[^*\n]{1,80}\*\*[ \t]*:?[ \t]*$|[^\n]{1,60}:[ \t]*$)",
    re.MULTILINE,
)
#: Before the name on its line: a step that kills it ("2. kill vezax", "- Kill the X").
_KILL_STEP = re.compile(
    r"^[ \t>*-]*(?:\d{1,2}[.)][ \t]*)?(?:(?:then|and|und|puis|y)[ \t]+)?"
    r"(?:kill|defeat|slay|attack|pull|aggro|engage|töte|töten|besiege|greife|tuer|vaincre|"
    r"attaquer|attaque|matar|derrotar|atacar|ataca|убить|убей|атакуйте|атакуй|атаковать|zabij|"
    r"zaatakuj)[ \t]+"
    r"(?:the[ \t]+|den[ \t]+|die[ \t]+|le[ \t]+|la[ \t]+|el[ \t]+)?$",
    re.IGNORECASE,
)
_LINE_PREFIX_CHARS = 40


class StepSections:
    """The reproduction-step sections of one text."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._steps = [match.start() for match in _STEPS_HEADING.finditer(text)]
        self._headings = [match.start() for match in _HEADING.finditer(text)]

    def in_steps(self, position: int) -> bool:
        """True when ``position`` lies in a step section: after a step heading and before the
        next heading."""
        index = bisect.bisect_right(self._steps, position) - 1
        if index < 0:
            return False
        heading = bisect.bisect_right(self._headings, position) - 1
        return heading < 0 or self._headings[heading] <= self._steps[index]

    def killed_in_step(self, line_start: int, start: int) -> bool:
        """True when the mention at ``start`` (its line starts at ``line_start``) is what a
        reproduction step kills or attacks."""
        prefix = self._text[max(line_start, start - _LINE_PREFIX_CHARS) : start]
        return (
            start - line_start <= _LINE_PREFIX_CHARS
            and bool(_KILL_STEP.match(prefix))
            and self.in_steps(start)
        )


#: Before the name: the reporter tells that they killed it ("I killed hogger and ...", "after
#: killing X", "j'ai tué X", "maté a X", "убил X"); a past or -ing form, not "kill X" (a step or
#: a wish). Read on the mention's line, at most :data:`_LINE_PREFIX_CHARS` characters.
_KILLED_BEFORE = re.compile(
    r"(?:^|[^\w'])(?:killed|slain|slew|defeated|downed|killing|defeating|tué|tuée|tués|vaincu|"
    r"maté|matamos|matado|derroté|derrotamos|derrotado|matei|убил|убила|убили|убив|zabiłem|"
    r"zabiłam|zabiliśmy)[ \t]+(?:the[ \t]+|le[ \t]+|la[ \t]+|les[ \t]+|a[ \t]+|al[ \t]+|o[ \t]+|"
    r"el[ \t]+)?$",
    re.IGNORECASE,
)
#: After the name, in a verb-last language: "(wir) haben X gestern gelegt", "X getötet".
_KILLED_AFTER = re.compile(
    r"[ \t]+(?:[^\W\d_]+[ \t]+){0,4}?(?:getötet|gelegt|besiegt|gekillt|erledigt)\b", re.IGNORECASE
)


def killed_by_reporter(text: str, line_start: int, start: int, end: int) -> bool:
    """True when the mention ``text[start:end]`` (its line starts at ``line_start``) is what the
    reporter tells they killed: a prerequisite of what they found broken, as a step's kill is."""
    prefix = text[max(line_start, start - _LINE_PREFIX_CHARS) : start]
    return bool(
        _KILLED_BEFORE.search(prefix)
        or _KILLED_AFTER.match(text, end, min(len(text), end + _LINE_PREFIX_CHARS + 20))
    )


#: A mention that only names a quest ("doesnt accept Hogger quest") says nothing of the creature.
_QUEST_AFTER = re.compile(r"[ \t]+(?:quest|questline|quest-?chain|quête|aufgabe)\b", re.IGNORECASE)


def all_killed_by_reporter(spans: Sequence[Span], texts: Mapping[str, Prose]) -> bool:
    """True when every mention (leaving out those that only name a quest) is what the reporter
    tells they killed (:func:`killed_by_reporter`), and there is one."""
    found = False
    for span in spans:
        prose = texts.get(span.source)
        if prose is None:
            return False
        if _QUEST_AFTER.match(prose.text, span.extent):
            continue
        line_start = prose.line_start(span.start)
        if not killed_by_reporter(prose.text, line_start, span.start, span.extent):
            return False
        found = True
    return found
