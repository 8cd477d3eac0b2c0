"""Issue 29: no selection for a name the 3.3.5 catalog does not hold.

``eval/later_expansion.jsonl`` (``scripts/later_expansion_set.py``): made-up report sentences
around real creature names of later expansions (Questie's Cataclysm / Mists of Pandaria NPC data)
that no row of the packaged catalog holds; every gold entry is null, so every selection is wrong.
The heuristic answers (quality, not plumbing): the set is checked against its reviewed baseline,
and the null-gold selections may not rise above the baseline's count. The made-up reports below
were selected wrongly before the first-letter rule of the near-spelling selection (protocol v6).
"""

import json
from pathlib import Path

import pytest

from vba_assets.evaluation.comparison import compare_to_baseline, load_baseline
from vba_assets.evaluation.runner import run_eval
from vba_assets.llm_config import LlmConfig

EVAL = Path(__file__).resolve().parents[2] / "eval"


@pytest.mark.slow
def test_later_expansion_names_stay_at_or_below_their_baseline() -> None:
    report = run_eval(EVAL / "later_expansion.jsonl", LlmConfig(), None, None, jobs=2)
    baseline_path = EVAL / "baseline.heuristic.later_expansion.json"
    comparison = compare_to_baseline(report, load_baseline(baseline_path))
    assert comparison.ok, "\n".join(comparison.regressions)
    allowed = json.loads(baseline_path.read_text(encoding="utf-8"))["counts"]["null_gold_selected"]
    assert report.aggregate.null_gold_selected <= allowed
    assert report.blocked == []


def test_a_later_name_one_first_letter_away_from_a_catalog_name_is_not_selected(
    tmp_path: Path,
) -> None:
    """ "Rockshell Snapclaw" (a Cataclysm creature) is a near spelling of the 3.3.5 "Muckshell
    Snapclaw" in all but its first letters: before the rule it was selected, now abstained."""
    lines = [
        {
            "id": "LATER-ROCKSHELL",
            "title": "Quest mob not working",
            "body": "I cannot kill Rockshell Snapclaw, it evades every time I pull it.",
            "mentions": [
                {"surface": "Rockshell Snapclaw", "role": "affected_subject", "gold_entry": None}
            ],
        },
        {
            "id": "LATER-MISSPELLED",
            "title": "Quest mob not working",
            "body": "I cannot kill Muckshel Snapclaw, it evades every time I pull it.",
            "mentions": [
                {"surface": "Muckshel Snapclaw", "role": "affected_subject", "gold_entry": 4402}
            ],
        },
    ]
    dataset = tmp_path / "later.jsonl"
    dataset.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = run_eval(dataset, LlmConfig(), None, None, jobs=1)
    assert report.aggregate.null_gold_selected == 0
    # a misspelling that keeps the first letter is still resolved (the rule is not a blanket ban)
    assert report.aggregate.correct == 1
