"""Backfilling one case: its registered revisions, the UI selection and the Dagster command."""

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from tests.conftest import REPO
from tests.dagster.support import register
from vba_assets.defs.backfill import (
    backfill_command,
    case_backfill_keys,
    dagster_home_problem,
    main,
)


def test_one_case_backfill_selects_its_revisions_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with dg.DagsterInstance.get() as instance:
        register(instance, "BUG-1", "BUG-10", "BUG-2")
        register(instance, "BUG-1", revision="0002")
        assert case_backfill_keys(instance, "BUG-1", all_revisions=True) == [
            "BUG-1|0001",
            "BUG-1|0002",
        ]
        assert case_backfill_keys(instance, "BUG-1", all_revisions=False) == ["BUG-1|0002"]
        assert case_backfill_keys(instance, "BUG-3", all_revisions=True) == []

    assert main(["--case-id", "BUG-1", "--all-revisions"]) == 0
    out = capsys.readouterr().out
    assert 'UI selection:    "BUG-1|0001", "BUG-1|0002"' in out
    assert "job backfill" in out and "'BUG-1|0001,BUG-1|0002'" in out
    assert main(["--case-id", "BUG-3"]) == 2  # nothing registered: said, not launched


def test_the_dagster_command_names_the_job_and_the_keys() -> None:
    command = backfill_command(["A|0001", "A|0002"], Path("/repo/workspace.yaml"))
    assert command[1:] == [
        "job",
        "backfill",
        "-w",
        "/repo/workspace.yaml",
        "-j",
        "interpret_cases",
        "--partitions",
        "A|0001,A|0002",
        "--noprompt",
    ]


@pytest.mark.parametrize(
    ("home", "said"),
    [(None, "DAGSTER_HOME is not set"), ("relative/home", "not an absolute path")],
)
def test_a_missing_dagster_home_is_one_line_not_a_traceback(
    tmp_path: Path, home: str | None, said: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    if home is not None:
        env["DAGSTER_HOME"] = home
    done = subprocess.run(
        [sys.executable, "-m", "vba_assets.defs.backfill", "--case-id", "BUG-000021"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and said in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert dagster_home_problem({"DAGSTER_HOME": str(tmp_path)}) is None
    assert "not an existing folder" in (
        dagster_home_problem({"DAGSTER_HOME": "/nonexistent/x"}) or ""
    )
