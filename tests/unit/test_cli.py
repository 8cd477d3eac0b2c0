"""The `vba` command: outcomes, exit codes, and that `vba lookup` never imports Dagster."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vba_assets.cli import main
from vba_assets.samples import sample_report_path

REPO = Path(__file__).resolve().parents[2]


def test_lookup_does_not_import_dagster() -> None:
    code = (
        "import sys\n"
        "from vba_assets.app import main\n"
        "rc = main(['lookup', '--json', 'Goldark'])\n"
        "assert 'dagster' not in sys.modules, 'vba lookup imported dagster'\n"
        "sys.exit(rc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "success"
    assert result["match"]["identity"] == 23486


def test_lookup_exit_codes_and_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lookup", "Wilder Wolpertinger"]) == 0
    assert "23487" in capsys.readouterr().out
    assert main(["lookup", "?!"]) == 2  # no word characters
    assert main(["lookup", "--catalog", "nope", "Goldark"]) == 2
    assert "CATALOG_UNKNOWN" in capsys.readouterr().err


def test_import_and_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workspace = str(tmp_path / "ws")
    assert main(["import", "--workspace", workspace, str(sample_report_path("BUG-000020"))]) == 0
    assert "BUG-000020: imported" in capsys.readouterr().out
    assert main(["verify", "--workspace", workspace, "--case-id", "BUG-000020"]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"case_id": "BUG|1", "title": "x", "body": "y", "reported_at": "2026-01-01T00:00:00Z"}'
    )
    assert main(["import", "--workspace", workspace, str(bad)]) == 2
    err = capsys.readouterr().err
    assert "INVALID_CASE_ID" in err and "case_id" in err


def test_bad_project_config_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "p.toml"
    config.write_text('workspace = "w"\n[database]\nurl = "postgresql://x/y"\n')
    assert main(["lookup", "--project-config", str(config), "Goldark"]) == 3
    assert "database.url" in capsys.readouterr().err


def test_revision_new_numbers_revisions_per_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = str(tmp_path / "ws")
    main(["import", "--workspace", workspace, str(sample_report_path("BUG-000023"))])
    capsys.readouterr()
    assert main(["revision", "new", "--workspace", workspace, "--case-id", "BUG-000023"]) == 0
    assert main(["revision", "new", "--workspace", workspace, "--case-id", "BUG-000023"]) == 0
    assert capsys.readouterr().out.split() == ["0001", "0002"]
    assert main(["revision", "new", "--workspace", workspace, "--case-id", "BUG-404"]) == 5
