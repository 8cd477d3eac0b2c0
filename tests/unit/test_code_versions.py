"""Per-stage code versions: a change to one stage stales that stage and its downstream only."""

import dataclasses
import os
import subprocess
import sys

from vba_assets.domain.stages import Stage
from vba_assets.evaluation.code_version import eval_code_version, measured_files
from vba_assets.pipeline.checks import CheckOutcome
from vba_assets.pipeline.code_versions import (
    code_fingerprint,
    reached_sources,
    stage_code_versions,
)
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.pipeline.registry import STAGE_SPECS, CheckSpec
from vba_assets.pipeline.stage_runs import run_captures, run_plan

ORDER = [spec.stage for spec in STAGE_SPECS]


def _dummy_check(rev: FrozenRevision) -> CheckOutcome:
    return CheckOutcome()


def _with_check(stage: Stage) -> tuple:  # type: ignore[type-arg]
    extra = CheckSpec("dummy", "A check added by the test.", _dummy_check)
    return tuple(
        dataclasses.replace(spec, checks=(*spec.checks, extra)) if spec.stage is stage else spec
        for spec in STAGE_SPECS
    )


def _changed(before: dict[Stage, str], after: dict[Stage, str]) -> list[Stage]:
    return [stage for stage in ORDER if before[stage] != after[stage]]


def test_a_new_plan_check_changes_the_plan_and_its_downstream_only() -> None:
    before = stage_code_versions()
    after = stage_code_versions(_with_check(Stage.RESOLUTION_PLAN))
    assert _changed(before, after) == ORDER[ORDER.index(Stage.RESOLUTION_PLAN) :]
    assert after[Stage.CASE] == before[Stage.CASE]


def test_a_new_interpretation_check_changes_the_interpretation_only() -> None:
    before = stage_code_versions()
    after = stage_code_versions(_with_check(Stage.INTERPRETATION))
    assert _changed(before, after) == [Stage.INTERPRETATION]


def test_the_versions_are_stable_and_distinct_per_stage() -> None:
    versions = stage_code_versions()
    assert versions == stage_code_versions()
    assert len(set(versions.values())) == len(ORDER)


def test_the_versions_are_the_same_in_every_process() -> None:
    """The webserver, the daemon and each run compute the code versions in their own process:
    they must agree whatever the string hash seed (a frozenset's repr follows it) and wherever
    the interpreter put each function (a repr with an address)."""
    script = (
        "from vba_assets.evaluation.code_version import eval_code_version;"
        "print(eval_code_version())"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        for seed in ("1", "2", "3")
    }
    assert len(seen) == 1, seen


def test_the_fingerprint_follows_the_project_code_a_stage_names_and_nothing_else() -> None:
    reached = reached_sources([run_captures])
    assert "vba_assets.pipeline.stage_runs.search_once" in reached  # called by name
    assert "vba_assets.pipeline.stage_runs.StageResult" in reached  # a class it names
    assert "vba_assets.pipeline.stage_runs.run_plan" not in reached  # another stage
    assert code_fingerprint([run_captures, run_plan]) == code_fingerprint([run_plan, run_captures])
    assert code_fingerprint([run_captures]) != code_fingerprint([run_plan])


def test_the_eval_code_version_covers_the_stages_the_heuristic_and_the_metrics() -> None:
    files = measured_files()
    for name in (
        "resources/llm/heuristic.py",
        "vba_assets/heuristic/planning.py",
        "vba_assets/evaluation/metrics.py",
        "vba_assets/evaluation/counts.py",
    ):
        assert name in files and files[name].is_file(), name
    *_, last = stage_code_versions().values()
    assert eval_code_version().startswith(f"{last}.eval-")
