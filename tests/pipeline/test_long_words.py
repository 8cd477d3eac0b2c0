"""A report with a word longer than the search-term limit is admitted, then interpreted.

Admission limits the report's size, not its words (a log line or a URL may hold one long "word");
the heuristic planner never proposes or searches a term longer than a model's term may be
(:data:`~vba_assets.heuristic.planning.MAX_TERM_CHARS`), so such a report is no longer
admitted only to fail every run with ``RESEARCH_QUERY_INVALID``.
"""

from pathlib import Path

import pytest

from tests.pipeline.support import LLM, project_config, write_report
from vba_assets.intake import import_report
from vba_assets.pipeline.trial import run_trial
from vba_assets.store import Workspace

LONG_BODIES = [
    "I cannot find the " + "A" + "b" * 240 + " near the camp.",
    "I cannot find the Wild Wolpertinger near Goldark. Log: Wolpertinger" + "x" * 240 + " end.",
    "The Wild Wolpertinger is gone: " + "-".join(["Wolpertinger"] * 30),
]


@pytest.mark.parametrize("body", LONG_BODIES, ids=["capitalized", "glued_to_a_name", "hyphenated"])
def test_a_report_with_a_word_over_the_term_limit_is_interpreted(tmp_path: Path, body: str) -> None:
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, write_report(tmp_path, "BUG-LONG", "Wild Wolpertinger missing", body))
    report = run_trial(
        workspace,
        "BUG-LONG",
        "0001",
        project_config(tmp_path / "ws"),
        LLM,
        stop_after="interpretation",
        max_dispatches=6,
    )
    assert report.stages[-1].status == "accepted"
    plan = workspace.case("BUG-LONG").read_json(
        "analysis/interpretations/0001/entity-resolution/plan.json"
    )
    assert all(len(search["term"]) <= 100 for search in plan["plan"]["searches"])
