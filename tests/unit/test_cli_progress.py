"""Long `vba` steps say what they are doing, on stderr (stdout stays machine-readable)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vba_assets.cli import main
from vba_assets.samples import sample_report_path

REPO = Path(__file__).resolve().parents[2]


def test_worlddb_prints_progress_on_stderr_only_while_it_builds(tmp_path: Path) -> None:
    env = {**os.environ, "VBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "vba_assets.cli", "worlddb"]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    path = first.stdout.strip()
    assert first.stdout == f"{path}\n" and Path(path).is_file()
    lines = first.stderr.splitlines()
    assert lines[0] == "vba worlddb: building the demo world DB (5-20 s) ..."
    assert lines[-1].startswith("vba worlddb: done in ") and lines[-1].endswith(" s")
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and again.stdout == first.stdout and again.stderr == ""


def test_trial_run_prints_a_line_per_stage_as_it_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = str(tmp_path / "ws")
    assert main(["import", "--workspace", workspace, str(sample_report_path("BUG-000020"))]) == 0
    capsys.readouterr()
    args = ["trial", "run", "--workspace", workspace, "--case-id", "BUG-000020"]
    assert main([*args, "--stop-after", "interpretation", "--max-dispatches", "6"]) == 0
    out, err = capsys.readouterr()
    progress = err.splitlines()
    stages = [line.split()[3] for line in progress]
    assert stages[0] == "resolution_plan" and stages[-1] == "interpretation", progress
    assert all(line.startswith("vba trial run: ") and line.endswith(" s)") for line in progress)
    assert "vba trial run:" not in out  # the report itself stays on stdout, unchanged
    assert out.splitlines()[0] == "BUG-000020 revision 0001 (stop after interpretation)"
    assert len(out.splitlines()) == len(progress) + 2  # header, a row per stage, model requests


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
def test_make_install_says_what_it_does_and_lets_pip_show_progress(tmp_path: Path) -> None:
    dry = subprocess.run(
        ["make", "-n", "-B", "install", f"VENV={tmp_path / 'venv'}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    install = next(i for i, line in enumerate(lines) if "-c constraints.txt" in line)
    assert "--quiet" not in lines[install] and "--progress-bar on" in lines[install]
    assert lines[install - 1].startswith('echo "make: installing the project')
