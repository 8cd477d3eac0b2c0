"""Content, not timing (ARCHITECTURE 4): the same case, replies and DB snapshot give byte-identical
artifacts in any workspace, on any day; timing lives in events.jsonl only.
"""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.layout import REV1
from tests.pipeline.support import LLM, Clock, imported, project_config
from vba_assets.domain.stages import Stage
from vba_assets.pipeline.trial import run_trial
from vba_assets.store import CasePackage
from vba_assets.store.layout import EVENTS_FILE


def case_files(package: CasePackage) -> dict[str, bytes]:
    """Every file of the package but the lifecycle log (hidden lock and temp files are unlisted)."""
    return {
        relpath: package.read_bytes(relpath)
        for relpath in package.list_dir("", recursive=True)
        if not relpath.endswith(EVENTS_FILE)
    }


def run_on(root: Path, when: datetime, case_id: str) -> tuple[CasePackage, list[str]]:
    workspace, package = imported(root, case_id)
    clock = Clock()
    clock.now = when
    report = run_trial(
        workspace,
        case_id,
        "0001",
        project_config(root / "ws"),
        LLM,
        stop_after="interpretation",
        max_dispatches=6,
        clock=clock,
    )
    return package, [s.sha256 for s in report.stages]


@pytest.mark.parametrize("case_id", ["BUG-000020", "BUG-000025"])
def test_two_workspaces_on_two_days_write_byte_identical_artifacts(
    tmp_path: Path, case_id: str
) -> None:
    first, first_versions = run_on(tmp_path / "a", datetime(2026, 3, 1, 9, 0, tzinfo=UTC), case_id)
    second, second_versions = run_on(
        tmp_path / "elsewhere" / "b", datetime(2027, 7, 15, 23, 30, tzinfo=UTC), case_id
    )
    assert first_versions == second_versions
    first_files, second_files = case_files(first), case_files(second)
    assert sorted(first_files) == sorted(second_files)
    differ = [p for p in first_files if first_files[p] != second_files[p]]
    assert differ == []
    # the model stages ran (three records each), and their timing is in the events only
    assert any(p.endswith("resolution_plan-1.json") for p in first_files)
    dispatched = [e for e in first.read_events("0001") if e["event"] == "dispatched"]
    assert len(dispatched) == 3
    assert all("started_at" in e and "elapsed_ms" in e for e in dispatched)
    captured = [e for e in first.read_events("0001") if e["event"] == "captured"]
    assert captured and all("elapsed_ms" in e for e in captured)


def test_no_clock_reading_reaches_a_content_artifact(tmp_path: Path) -> None:
    package, _ = run_on(tmp_path, datetime(2031, 1, 2, 3, 4, 5, tzinfo=UTC), "BUG-000020")
    for relpath, data in case_files(package).items():
        assert b"2031-01-02" not in data, relpath
        assert b"elapsed_ms" not in data and b"started_at" not in data, relpath
    assert b"2031-01-02" in package.read_bytes(REV1.events)
    record = package.read_json(REV1.dispatch(Stage.RESOLUTION_PLAN, 1))
    assert record["record_version"] == 2
