"""Each pipeline benchmark runs with tiny sizes and prints one valid JSON document.

The benchmarks run as the user runs them (``python bench/<name>.py``, a real process, the embedded
demo SQLite DB, a real Dagster instance). Only structure and correctness are asserted: every
replayed case reproduced the recording and passed its checks. Never a timing: speed is what the
benchmarks report, not what the tests judge.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vba_assets.domain.stages import Stage
from vba_assets.pipeline.registry import STAGE_SPECS, check_specs

REPO = Path(__file__).resolve().parents[2]
MACHINE_KEYS = {"cpu_count", "python", "sqlite_version", "dagster_version"}
#: What a benchmark must have timed: every stage after the case and every check of the registry.
STAGE_LABELS = {f"stage.{spec.name}" for spec in STAGE_SPECS if spec.stage is not Stage.CASE}
CHECK_LABELS = {f"check.{check.name}" for _, check in check_specs()}


def assert_everything_timed(output: dict[str, Any], breakdown: dict[str, float]) -> None:
    """No target went unwrapped, and every stage and check of the registry has a timing."""
    assert output["setup"]["unpatched"] == []
    assert output["setup"]["stages_timed"] == len(STAGE_LABELS)
    assert output["setup"]["checks_timed"] == len(CHECK_LABELS)
    assert {label for label in breakdown if label.startswith("stage.")} == STAGE_LABELS
    assert {label for label in breakdown if label.startswith("check.")} == CHECK_LABELS


def run_bench(name: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / f"{name}.py"), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output: dict[str, Any] = json.loads(done.stdout)  # the whole stdout is one JSON document
    assert output["benchmark"] == name
    assert output["machine"].keys() >= MACHINE_KEYS
    assert {"parameters", "results", "targets"} <= output.keys()
    return output


def is_ms(value: object) -> bool:
    return isinstance(value, int | float) and value > 0


def test_controller_replays_each_case_identically_in_both_modes() -> None:
    output = run_bench("controller", "--rounds", "1", "--cases", "BUG-000020", "--profile-top", "3")
    assert output["parameters"]["cases"] == ["BUG-000020"]
    assert output["setup"]["recorded"]["BUG-000020"]["dispatch_records"] == 3
    for mode, requests in (("reuse", 0), ("answer", 3)):
        result = output["results"][mode]
        verified = result["verified"]
        assert verified["runs"] == 1
        assert verified["artifacts_identical_to_recording"] == 1
        assert verified["all_checks_passed"] == 1
        assert verified["model_requests_sent"] == requests  # answered by the replay provider
        total = result["per_case"]["BUG-000020"]["total"]
        assert total["n"] == 1 and is_ms(total["p50_ms"])
        assert is_ms(result["all_cases"]["cpu"]["p50_ms"])
        breakdown = result["breakdown_p50_ms"]
        assert "case_build" in breakdown
        assert_everything_timed(output, breakdown)
        assert isinstance(output["targets"][mode]["met"], bool)
    assert output["targets"]["per_case_total_p50_ms_below"] == 50.0
    profile = output["profile"]
    assert len(profile["top_own_time"]) == 3 and profile["own_time_by_area"]


@pytest.mark.slow
def test_dagster_overhead_runs_our_graph_and_the_trivial_ones() -> None:
    output = run_bench(
        "dagster_overhead", "--rounds", "1", "--cases", "BUG-000020", "--instances", "ephemeral"
    )
    result = output["results"]["ephemeral"]
    assert result["partitions_measured"] == 1
    assert result["verified"] == {
        "ours_succeeded_with_all_checks_passing": 1,
        "trivial_succeeded": 1,
    }
    for graph in ("ours", "trivial_checks", "trivial_plain", "controller_in_run"):
        assert is_ms(result["per_partition"][graph]["p50_ms"]), graph
    assert set(result["ratios_p50"]) == {
        "total",
        "overhead_in_run",
        "overhead_in_run_vs_trivial_plain",
        "overhead_standalone",
    }
    # every stage and check was timed inside the Dagster run
    assert_everything_timed(output, result["breakdown_in_run_p50_ms"])
    assert isinstance(output["targets"]["ephemeral"]["met"], bool)


@pytest.mark.slow
def test_batch_runs_generated_cases_and_probes_the_single_run_backfill() -> None:
    output = run_bench(
        "batch",
        "--cases",
        "2",
        "--jobs",
        "1",
        "--instance",
        "ephemeral",
        "--trivial-sample",
        "1",
    )
    results = output["results"]
    loop = results["in_process_loop"]
    assert loop["all_checks_passed"] == 2 and loop["artifacts_identical_to_recording"] == 2
    per_run = results["dagster_one_run_per_partition"]
    assert per_run["succeeded_with_all_checks_passing"] == 2
    assert per_run["rss_mb_after_cases"][-1][0] == 2
    backfill = results["single_run_backfill"]
    assert backfill["our_assets"]["succeeded"] is False
    assert "partition_key" in backfill["our_assets"]["first_error"]
    trivial = backfill["trivial_graph_single_run"]
    assert trivial["succeeded"] and trivial["materializations"] == 6 * trivial["partitions"]
    assert output["memory"]["peak_rss_max_mb"] > 0
    targets = output["targets"]
    assert isinstance(targets["dagster_one_run_per_partition"]["met"], bool)
    assert isinstance(targets["peak_rss"]["met"], bool)


def _three_cases(tmp_path: Path) -> Path:
    cases = (REPO / "eval" / "devset.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    dataset = tmp_path / "three.jsonl"
    dataset.write_text("\n".join(cases) + "\n", encoding="utf-8")
    return dataset


def test_eval_speed_times_every_round_and_scores_them_alike(tmp_path: Path) -> None:
    output = run_bench("eval_speed", "--rounds", "2", "--dataset", str(_three_cases(tmp_path)))
    results = output["results"]
    assert results["same_results"] is True
    assert [run["round"] for run in results["runs"]] == [0, 1]
    for run in results["runs"]:
        assert run["cases"] == 3 and run["case_ms"]["n"] == 2 and is_ms(run["case_ms"]["p50_ms"])
    assert set(results["summary"]) == {"wall_s", "cpu_s", "setup_s", "case_p50_ms", "case_mean_ms"}
    assert is_ms(results["summary"]["wall_s"]) and is_ms(results["summary"]["cpu_s"])


@pytest.mark.slow
def test_compare_runs_a_script_on_the_base_commit_and_this_tree_alternated(
    tmp_path: Path,
) -> None:
    dataset = str(_three_cases(tmp_path))
    output = run_bench(
        "compare", "eval_speed.py", "--rounds", "2", "--warmup", "0", "--", "--rounds", "1",
        "--dataset", dataset,
    )  # fmt: skip
    assert output["parameters"]["base"] == "07976bc"
    runs = output["results"]["runs"]
    assert [(run["round"], run["tree"]) for run in runs] == [
        (0, "base"), (0, "head"), (1, "head"), (1, "base"),
    ]  # fmt: skip
    assert all(run["output"]["benchmark"] == "eval_speed" for run in runs)
    wall = output["results"]["metrics"]["results.summary.wall_s"]
    assert len(wall["values"]["base"]) == len(wall["values"]["head"]) == 2
    assert wall["ratio"] == round(wall["median"]["head"] / wall["median"]["base"], 3)


def test_plan_text_times_every_shape_against_prose_of_the_same_size() -> None:
    output = run_bench("plan_text", "--sizes", "1", "--rounds", "1")
    measured = output["results"]["1kb"]
    assert set(measured) == {"prose", "urls", "url_lines", "comment", "lists"}
    assert measured["prose"]["ratio_to_prose"] == 1.0
    assert all(is_ms(m["ms_per_kb"]) and m["ratio_to_prose"] > 0 for m in measured.values())
    assert output["targets"]["worst_ratio"] == max(m["ratio_to_prose"] for m in measured.values())


def test_hostile_trial_runs_a_report_and_its_prose_twin_through_vba_trial_run() -> None:
    output = run_bench("hostile_trial", "--reports", "urls_100")
    [(name, measured)] = output["results"].items()
    assert name == "urls_100" and measured["bytes"] == len(
        " ".join(f"https://www.wowhead.com/wotlk/npc={3001 + n}" for n in range(100))
    )
    assert measured["exit_codes"] == [0] and measured["errors"] == []  # the case completes
    assert measured["cpu_s"] > 0 and measured["prose_cpu_s"] > 0
    ratio = measured["cpu_s"] / measured["prose_cpu_s"]  # both rounded to 3 decimals
    assert abs(measured["ratio_to_prose"] - ratio) <= 0.011
    assert output["targets"]["all_completed"] is True
