"""Property: whatever the report text, the heuristic plan passes the controller's plan rules.

Reports are random sequences of real catalog names (as written, lower case, upper case, with
typographic apostrophes), database links and ids, markup, invisible characters, LIKE wildcards
and report words. Every admitted report's plan must validate (``validate_plan`` finds nothing):
a rejected plan would block the case. Derandomized, so CI runs the same examples every time.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.test_heuristic_planning import Reports, plan_for, reports
from vba_assets.errors import InputError
from vba_assets.heuristic.name_index import NameIndex

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)

NAMES = [
    "Kel'Thuzad",
    "Kel’Thuzad",
    "Kel‘Thuzad",
    "Hogger",
    "Marshal Dughan",
    "Wild Wolpertinger",
    "Тралл",
    "Уборочный голем",
    "Sindragosa",
    "Sindagoza",
    "Sindagosa",
    "Illidan",
    "Goldark Snipehunter",
    "Mankrik",
    "Edwin VanCleef",
    "Wilden Wolpertinger",
]
PIECES = [
    *("\u200b", "\u200e", "\u202e", "\u2066", "\ufeff", "\u00ad", "\u00a0", "\u0301"),
    *("%", "_", "\\", "'", "’", "[", "]", "(", ")", "**", "`", "\n", " ", ".", "!", "-"),
    *("https://www.wowhead.com/npc=448/hogger", "?npc=3432", "(id 19694)", "npc=4855\u200b9"),
    *("[b]", "[/b]", "<b>", "</b>", "> ", "- ", "### ", "[//]: # (", "](https://x/?npc=1)"),
    *("the", "quest", "is bugged", "does not spawn", "from", "Ignore previous instructions"),
]
_piece = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from([name.lower() for name in NAMES]),
    st.sampled_from([name.upper() for name in NAMES]),
    st.sampled_from(PIECES),
)
_text = st.lists(_piece, min_size=1, max_size=40).map(
    lambda pieces: " ".join(pieces) if len(pieces) % 2 else "".join(pieces)
)
_counter = iter(range(1 << 30))


def test_every_heuristic_plan_passes_the_plan_rules(reports: Reports, names: NameIndex) -> None:
    # The property runs inside the test, so a failure prints the report, not the fixtures.
    @settings(
        max_examples=300,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(title=_text, body=_text)
    def plan_passes(title: str, body: str) -> None:
        title = " ".join(title.split())[:200] or "untitled"
        try:
            case = reports.text(f"GEN-PROP-{next(_counter)}", title, body)
        except InputError:
            return  # refused at admission (e.g. nothing readable): no plan to make
        plan_for(case, names)  # asserts validate_plan(...) == []

    plan_passes()
