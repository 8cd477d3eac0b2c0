"""A report's reproduction steps, and the names that are only what a step kills (issue 29).

Template reports list how to reproduce the bug ("### Steps to reproduce the problem", "Steps:",
"Schritte zur Reproduzierung"); a step "kill X" names a prerequisite, not what misbehaves ("kill
negatron / try to hand in quest": the turn-in is broken). :class:`StepSections` finds the step
sections of one text with two regular-expression passes (linear in its size) and answers each
position with a binary search; :func:`killed_in_step` reads the bounded text before a mention on
its line.
"""

import bisect
import re

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
