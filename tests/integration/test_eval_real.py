"""``vba eval`` on the real tracker reports (eval/real): the heuristic against its reviewed baselines.

The dev, dev2, dev3, dev4 and dev5 splits may be studied; the test, test2, test3, test4, test5 and
test6 splits are held out: they are only scored here, never read (test2 to test6 were collected
and annotated in the issue-29 sessions by helpers that changed no code, and nobody who tuned the
heuristic has read them; dev3 and test4, dev4 and test5, and dev5 and test6 are the two halves of
one such collection each).
Each run is compared with its reviewed baseline (the tolerances of eval/README.md), and the
acceptance numbers of issue 11 that the heuristic meets on the test split are asserted as well,
so a drop below them fails even inside the baseline tolerance. Candidate recall@8 (0.845 on the
test split, target 0.90) is guarded by its baseline only: see eval/real/README.md.
"""

from pathlib import Path

import pytest

from vba_assets.evaluation.comparison import compare_to_baseline, load_baseline
from vba_assets.evaluation.report import EvalReport
from vba_assets.evaluation.runner import run_eval
from vba_assets.llm_config import LlmConfig

REAL = Path(__file__).resolve().parents[2] / "eval" / "real"
REGENERATE = (
    "if the change is intended, regenerate the baseline (eval/README.md, 'Baseline') in its own "
    "commit and say which metrics moved and why"
)


_RUNS: dict[str, EvalReport] = {}


def _run(split: str) -> EvalReport:
    """One ``vba eval`` of ``split`` per test session (both tests read the same run)."""
    if split not in _RUNS:
        _RUNS[split] = run_eval(REAL / f"{split}.jsonl", LlmConfig(), None, None, jobs=2)
    return _RUNS[split]


@pytest.fixture(
    scope="module",
    params=[
        "dev",
        "dev2",
        "dev3",
        "dev4",
        "dev5",
        "test",
        "test2",
        "test3",
        "test4",
        "test5",
        "test6",
    ],
)
def real_run(request: pytest.FixtureRequest) -> tuple[str, EvalReport]:
    split = str(request.param)
    return split, _run(split)


@pytest.mark.slow
def test_real_reports_do_not_fall_below_their_reviewed_baselines(
    real_run: tuple[str, EvalReport],
) -> None:
    split, report = real_run
    baseline = load_baseline(REAL / f"baseline.heuristic.{split}.json")
    comparison = compare_to_baseline(report, baseline)
    assert comparison.ok, "\n".join([*comparison.regressions, REGENERATE])
    assert report.blocked == []


@pytest.mark.slow
def test_the_met_acceptance_numbers_hold_on_the_held_out_split() -> None:
    report = _run("test")
    rates = report.rates()
    assert (rates["selection_precision"] or 0) >= 0.95
    assert (rates["selection_recall"] or 0) >= 0.80
    # Roles follow what is broken since issue 29 (ARCHITECTURE 15; test.jsonl re-annotated: 19
    # quest givers that themselves misbehave became affected subjects). Issue 11's 0.85 was met
    # under the old policy (0.872); under the new gold the old heuristic scores 0.755 and
    # heuristic-7 0.832, so the guard is 0.80 here and issue 29's 0.88 is not met yet.
    assert (rates["role_accuracy"] or 0) >= 0.80
    assert (rates["wrong_selection_rate"] or 0) <= 0.01
    assert report.aggregate.null_gold_selected == 0  # no-gold mentions are never selected
