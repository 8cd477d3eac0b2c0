"""Property: the heuristic plan stage costs about as much per KB of hostile text as of prose.

Bodies of 1-64 KB are built by repeating a short random recipe of report pieces (database URLs,
runs of blanks, HTML comments, markdown and BBCode, ids and digits, names, newlines or none).
Each body's plan is timed (CPU seconds of ``plan_searches``, import excluded) against a plain
prose body of the same size planned in the same run, so machine load cancels out. A quadratic
pass shows at once: on the code before issue 30 a 7 KB row of bare URLs took 44 s against 0.07 s
of prose, and the explicit examples below fail there. The bound (:data:`RATIO` plus
:data:`SLACK_S`) is generous: today's worst shapes stay under 3x.
"""

import time
from typing import Any

from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from tests.unit.test_heuristic_planning import CATALOGS, Reports, reports
from vba_assets.domain.stage_context import plan_stage_context
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.planning import plan_searches

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)

#: How many times the prose time per KB a hostile body may take, plus a fixed slack.
RATIO = 8.0
SLACK_S = 0.3

PIECES = {
    "url": "https://www.wowhead.com/wotlk/npc={n}",
    "blanks": "      \t   ",
    "comment": "<!-- template: describe the bug, name the NPC Mankrik {n} -->",
    "open_comment": "<!-- ",
    "long_comment": "<!-- " + "fill in the template " * 1400 + "-->",
    "link": "[Mankrik](https://www.wowhead.com/npc={n}/mankrik)",
    "bbcode": "[url=https://www.wowhead.com/npc={n}]Hogger[/url]",
    "bold": "**Wild Wolpertinger**",
    "nested": "> - **[_Marshal Dughan_](https://www.wowhead.com/npc={n})**",
    "id": "Mankrik (id {n})",
    "digits": "{n}{n}{n}",
    "name": "Goldark Snipehunter",
    "place": "Hogger in Elwynn Forest",
    "mention": "@Mankrik",
    "comma": ", ",
    "dots": ". . .",
}
SEPARATORS = [" ", "\n", "", " , ", ". "]
PROSE = (
    "I picked up the quest from the camp and ran around the hills behind it for a long time "
    "tonight. Two guildies on the same quest see nothing either and we tried again later. "
)


def _fill(unit: Any, size: int) -> str:
    parts: list[str] = []
    length = number = 0
    while length < size:
        number += 1
        part = unit(number)
        parts.append(part)
        length += len(part)
    return "".join(parts)[:size]


def hostile_body(recipe: list[str], separator: str, size: int) -> str:
    """``size`` characters of ``recipe``'s pieces, joined by ``separator``, repeated."""

    def unit(number: int) -> str:
        return "".join(PIECES[p].format(n=3000 + number) + separator for p in recipe)

    return _fill(unit, size)


def prose_body(size: int) -> str:
    return _fill(lambda _: PROSE, size)


def _plan_seconds(reports: Reports, names: NameIndex, case_id: str, body: str) -> float:
    case = reports.text(case_id, "NPC bugged", body)
    context = plan_stage_context(case, CATALOGS, 4)
    started = time.process_time()
    plan_searches(context, names)
    return time.process_time() - started


_counter = iter(range(1, 10**6))


@settings(max_examples=6, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate])  # fmt: skip
@given(
    recipe=st.lists(st.sampled_from(sorted(PIECES)), min_size=1, max_size=4),
    separator=st.sampled_from(SEPARATORS),
    kilobytes=st.integers(min_value=1, max_value=64),
)
@example(recipe=["url"], separator=" ", kilobytes=8)  # one line of bare URLs (issue 30)
@example(recipe=["id"], separator="\n", kilobytes=10)  # "Mankrik (id N)" lines (issue 30)
@example(recipe=["blanks", "place"], separator="", kilobytes=16)  # blanks before a place
@example(recipe=["name", "long_comment"], separator=" ", kilobytes=32)  # a comment after a name
def test_plan_time_per_kb_stays_near_prose(
    reports: Reports, names: NameIndex, recipe: list[str], separator: str, kilobytes: int
) -> None:
    size = kilobytes * 1024
    body = hostile_body(recipe, separator, size)
    number = next(_counter)
    prose = _plan_seconds(reports, names, f"BUG-{800000 + number}", prose_body(size))
    hostile = _plan_seconds(reports, names, f"BUG-{900000 + number}", body)
    bound = RATIO * prose + SLACK_S
    assert hostile <= bound, (
        f"{recipe!r} joined by {separator!r}, {kilobytes} KB: plan {hostile:.2f} s CPU, "
        f"prose of the same size {prose:.2f} s (bound {bound:.2f} s)"
    )
