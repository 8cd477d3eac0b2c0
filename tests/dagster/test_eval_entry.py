"""``vba eval --via``: the entry point offers the Dagster path, the pieces below it never import it.

The byte-for-byte comparison over every evaluation report is ``test_eval_via_dagster.py`` (slow);
this file is the wiring: ``vba`` (:mod:`vba_assets.app`) accepts ``--via dagster`` and scores what the
job wrote as ``--via cli`` does, :mod:`vba_assets.cli` alone offers ``cli`` only, and a config the
resources cannot read from its file is refused.
"""

import json
from pathlib import Path

import pytest

from vba_assets import cli
from vba_assets.app import main as vba
from vba_assets.config import embedded_project_config, load_project_config
from vba_assets.defs import checks
from vba_assets.defs.eval_job import DagsterPath, EvalRunFailed, config_files
from vba_assets.domain.findings import Finding
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.evaluation.runner import run_eval
from vba_assets.llm_config import LlmConfig, load_llm_config
from vba_assets.pipeline.checks import Check, CheckOutcome
from vba_assets.pipeline.frozen_revision import FrozenRevision

REPO = Path(__file__).resolve().parents[2]


def _two_reports(tmp_path: Path) -> Path:
    """The first report of dev.jsonl with a creature link and the first without one."""
    lines = (REPO / "eval" / "real" / "dev.jsonl").read_text(encoding="utf-8").splitlines()
    linked = next(line for line in lines if "npc=" in json.loads(line)["body"])
    plain = next(line for line in lines if "npc=" not in json.loads(line)["body"])
    path = tmp_path / "two.jsonl"
    path.write_text(f"{linked}\n{plain}\n", encoding="utf-8")
    return path


def test_vba_eval_via_dagster_scores_what_the_job_wrote_as_the_cli_path_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = str(_two_reports(tmp_path))
    out = {via: tmp_path / via for via in ("cli", "dagster")}
    for via, folder in out.items():
        assert vba(["eval", "--dataset", dataset, "--via", via, "--out", str(folder)]) == 0
    assert "[2/2]" in capsys.readouterr().err
    results = {via: json.loads((f / "results.json").read_text()) for via, f in out.items()}
    assert results["dagster"] == results["cli"]
    assert results["dagster"]["blocked"] == []
    assert (out["dagster"] / "workspace" / "cases").is_dir()


def test_the_cli_module_alone_offers_the_cli_path_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = str(_two_reports(tmp_path))
    with pytest.raises(SystemExit) as exited:
        cli.main(["eval", "--dataset", dataset, "--via", "dagster"])
    assert exited.value.code == 2
    assert "invalid choice: 'dagster'" in capsys.readouterr().err


def test_the_dagster_path_reads_the_config_files_and_refuses_configs_built_in_code(
    tmp_path: Path,
) -> None:
    assert config_files(embedded_project_config(tmp_path), LlmConfig()) == ("", "")
    project_file = REPO / "config" / "project.mariadb-ci.toml"
    llm_file = tmp_path / "llm.toml"
    llm_file.write_text("max_dispatches = 4\n", encoding="utf-8")
    project, llm = load_project_config(project_file), load_llm_config(llm_file)
    assert config_files(project, llm) == (str(project_file), str(llm_file))
    with pytest.raises(ConfigError, match="LLM config"):
        config_files(project, LlmConfig(max_dispatches=4))  # not what its source loads
    changed = project.model_copy(update={"database": embedded_project_config().database})
    with pytest.raises(ConfigError, match="project config"):
        config_files(changed, llm)


def test_a_run_that_a_failed_check_stops_fails_the_evaluation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI path runs no asset checks, so a check that fails in the job (the stage and its check
    disagree) is not a property of the report: the evaluation stops and names it."""

    def failing(check: Check, rev: FrozenRevision) -> CheckOutcome:
        return CheckOutcome([Finding(code=ErrorCode.RECOMPUTE_MISMATCH, message="planted")])

    monkeypatch.setattr(checks, "evaluate_safely", failing)
    with pytest.raises(EvalRunFailed, match=r"\|0001: DagsterAssetCheckFailedError: ") as err:
        run_eval(_two_reports(tmp_path), via=DagsterPath())
    assert "case: case_sources_readable" in str(err.value)
