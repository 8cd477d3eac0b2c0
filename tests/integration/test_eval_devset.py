"""``vba eval`` for real: the dev set through the pipeline (heuristic provider, embedded demo DB).

The CI regression test compares the dev-set run with the reviewed baseline
``eval/baseline.heuristic.json`` (tolerances in eval/README.md). The other tests use two-line datasets
to check what the runner promises: blocked cases are listed with their code, a re-run in the same
``--out`` reuses the artifacts, another run's ``--out`` is refused, and the exit codes of ``main``.
"""

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from resources.world_db import WorldDatabase
from vba_assets.config import embedded_project_config
from vba_assets.errors import ConfigError, ErrorCode, InputError
from vba_assets.evaluation.comparison import compare_to_baseline, load_baseline
from vba_assets.evaluation.dataset import load_dataset
from vba_assets.evaluation.report import EvalReport
from vba_assets.evaluation.runner import EXIT_REGRESSION, main, run_eval
from vba_assets.llm_config import LlmConfig

REPO = Path(__file__).resolve().parents[2]
DEVSET = REPO / "eval" / "devset.jsonl"
BASELINE = REPO / "eval" / "baseline.heuristic.json"
REGENERATE = (
    "if the change is intended, regenerate the baseline (eval/README.md, 'Baseline') and have "
    "the diff reviewed"
)


@pytest.fixture(scope="module")
def devset_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalReport, Path]:
    out = tmp_path_factory.mktemp("eval") / "out"
    return run_eval(DEVSET, LlmConfig(), None, out, jobs=2), out


@pytest.mark.slow
def test_devset_does_not_fall_below_the_reviewed_baseline(
    devset_run: tuple[EvalReport, Path],
) -> None:
    report, _ = devset_run
    comparison = compare_to_baseline(report, load_baseline(BASELINE))
    assert comparison.ok, "\n".join([*comparison.regressions, REGENERATE])


@pytest.mark.slow
def test_every_devset_case_is_scored_in_order_and_none_blocks(
    devset_run: tuple[EvalReport, Path],
) -> None:
    report, _ = devset_run
    dataset = load_dataset(DEVSET)
    assert [case.case_id for case in report.cases] == [case.id for case in dataset.cases]
    assert report.blocked == []
    # the heuristic answers every stage in one request: plan, assessment, interpretation
    assert all(
        case.calls_by_stage
        == {"interpretation": 1, "resolution_assessment": 1, "resolution_plan": 1}
        for case in report.cases
    )
    assert report.aggregate.mentions == sum(len(case.mentions) for case in dataset.cases)


@pytest.mark.slow
def test_results_files_carry_labels_and_no_local_paths(
    devset_run: tuple[EvalReport, Path],
) -> None:
    report, out = devset_run
    text = (out / "results.json").read_text(encoding="utf-8")
    results = json.loads(text)
    assert results["run"]["provider"] == "heuristic"
    assert results["run"]["model"] == "vba-heuristic"
    assert results["run"]["dataset_sha256"] == hashlib.sha256(DEVSET.read_bytes()).hexdigest()
    assert results["aggregate"]["counts"]["cases"] == len(report.cases)
    assert len(results["cases"]) == len(report.cases)
    assert str(out) not in text and str(REPO) not in text
    markdown = (out / "results.md").read_text(encoding="utf-8")
    assert "| mention recall |" in markdown
    assert "## Blocked cases (0)" in markdown


def test_gold_entries_and_names_exist_in_the_world_db(tmp_path: Path) -> None:
    """Every gold id exists, and its gold_name is its English or a localized catalog name."""
    db = WorldDatabase.from_config(embedded_project_config(tmp_path))
    try:
        for case in load_dataset(DEVSET).cases:
            for mention in case.mentions:
                if mention.gold_entry is None:
                    continue
                rows = db.fetch_by_identity("creature_name", mention.gold_entry)
                assert rows, f"{case.id}: entry {mention.gold_entry} is not in creature_template"
                rows += db.fetch_by_identity("creature_localized_name", mention.gold_entry)
                names = {row.name for row in rows}
                assert mention.gold_name in names, (case.id, mention.gold_entry, names)
    finally:
        db.close()


def _write_dataset(path: Path, *docs: dict[str, Any]) -> Path:
    path.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + "\n", "utf-8")
    return path


HOGGER = {
    "id": "T-HOGGER",
    "title": "Hogger respawns instantly",
    "body": "We killed Hogger near the Forest's Edge in Elwynn and he respawned a few seconds later.",
    "mentions": [{"surface": "Hogger", "role": "affected_subject", "gold_entry": 448}],
}
REFUSED = {  # admission refuses control characters: the import fails, the case is still listed
    "id": "T-REFUSED",
    "title": "Bell character",
    "body": "Mother Fang \u0007 does not respawn.",
    "mentions": [{"surface": "Mother Fang", "role": "affected_subject", "gold_entry": 471}],
}


def test_blocked_cases_are_listed_with_their_code_and_still_counted(tmp_path: Path) -> None:
    dataset = _write_dataset(tmp_path / "set.jsonl", REFUSED, HOGGER)
    report = run_eval(dataset, LlmConfig(), None, tmp_path / "out")
    assert [(c.case_id, c.error_code) for c in report.blocked] == [
        ("T-REFUSED", ErrorCode.REPORT_CONTROL_CHARACTERS.value)
    ]
    assert report.aggregate.cases == 2 and report.aggregate.mentions == 2
    assert report.cases[0].mentions[0].outcome == "missed"
    assert report.cases[1].mentions[0].outcome == "correct"
    results = json.loads((tmp_path / "out" / "results.json").read_text("utf-8"))
    assert results["blocked"][0]["case_id"] == "T-REFUSED"
    assert results["blocked"][0]["code"] == "REPORT_CONTROL_CHARACTERS"
    assert "`T-REFUSED`: `REPORT_CONTROL_CHARACTERS`" in (
        tmp_path / "out" / "results.md"
    ).read_text("utf-8")


def test_a_pipeline_block_keeps_what_was_accepted(tmp_path: Path) -> None:
    """One model request allowed: the plan is accepted, the assessment blocks the case."""
    dataset = _write_dataset(tmp_path / "set.jsonl", HOGGER)
    report = run_eval(dataset, LlmConfig(max_dispatches=1), None, None)
    (case,) = report.cases
    assert case.error_code == ErrorCode.LLM_MAX_DISPATCHES.value
    assert case.mentions[0].covered_by == "Q1"
    assert case.mentions[0].outcome == "unassessed"
    assert case.mentions[0].candidate_hit is True
    assert case.calls_by_stage == {"resolution_plan": 1}


def test_max_searches_overrides_the_budget_and_is_recorded(tmp_path: Path) -> None:
    """``vba eval --max-searches 12``: the figures of issue 29 at another budget."""
    dataset = _write_dataset(tmp_path / "set.jsonl", HOGGER)
    assert (
        main(["--dataset", str(dataset), "--max-searches", "12", "--out", str(tmp_path / "o")]) == 0
    )
    results = json.loads((tmp_path / "o" / "results.json").read_text("utf-8"))
    assert results["run"]["max_searches"] == 12
    assert results["cases"][0]["mentions"][0]["outcome"] == "correct"
    with pytest.raises(ConfigError) as info:
        run_eval(dataset, LlmConfig(), None, None, max_searches=0)
    assert info.value.code == ErrorCode.CONFIG_INVALID
    assert info.value.detail["key"] == "entity_resolution.max_searches"


def test_rerun_reuses_artifacts_and_another_run_is_refused(tmp_path: Path) -> None:
    dataset = _write_dataset(tmp_path / "set.jsonl", HOGGER)
    out = tmp_path / "out"
    first = run_eval(dataset, LlmConfig(), None, out)
    records = sorted(p.name for p in (out / "workspace").rglob("dispatches/*.json"))
    second = run_eval(dataset, LlmConfig(), None, out)
    assert sorted(p.name for p in (out / "workspace").rglob("dispatches/*.json")) == records
    assert second.to_json() == first.to_json()
    with pytest.raises(InputError) as info:
        run_eval(dataset, LlmConfig(max_dispatches=1, model="other-model"), None, out)
    assert info.value.code == ErrorCode.EVAL_OUTPUT_CONFLICT
    assert "model" in info.value.message


def test_main_writes_a_baseline_and_fails_below_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = _write_dataset(tmp_path / "set.jsonl", HOGGER)
    baseline = tmp_path / "baseline.json"
    assert main(["--dataset", str(dataset), "--write-baseline", str(baseline)]) == 0
    written = json.loads(baseline.read_text("utf-8"))
    assert written["rates"]["mention_accuracy"] == 1.0 and written["provider"] == "heuristic"
    capsys.readouterr()
    assert main(["--dataset", str(dataset), "--baseline", str(baseline)]) == 0
    passed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("baseline ")]
    assert len(passed) == 1 and passed[0].startswith(f"baseline {baseline}: passed: "), passed
    written["rates"]["calls_per_case"] = 2.0
    baseline.write_text(json.dumps(written), "utf-8")
    capsys.readouterr()
    assert main(["--dataset", str(dataset), "--baseline", str(baseline)]) == EXIT_REGRESSION
    out = capsys.readouterr().out
    assert "REGRESSION: calls_per_case" in out and f"baseline {baseline}: FAILED: " in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x|y", "title": "t", "mentions": []}\n', "utf-8")
    assert main(["--dataset", str(bad)]) == 2
    assert "bad.jsonl line 1: id" in capsys.readouterr().err
