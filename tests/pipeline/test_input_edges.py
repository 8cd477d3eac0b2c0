"""The input edges the integrity review found, each reproduced here first.

* an inbox entry whose file name is not valid UTF-8 is refused once, and every other report of
  the inbox is still imported;
* two different reports imported at once under one case id: the loser always gets
  ``CASE_ALREADY_IMPORTED`` (never ``ARTIFACT_CONFLICT``), the winner's package is complete;
* a ``reported_at`` more than the tolerance (default one day) after the import time is refused
  with ``REPORT_FROM_THE_FUTURE`` and nothing is written.
"""

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.pipeline.support import write_report
from vba_assets.errors import ErrorCode, InputError
from vba_assets.intake import ImportResult, InboxRejection, import_inbox, import_report
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import Workspace

# --- the inbox ------------------------------------------------------------------------------------


def test_an_undecodable_inbox_name_is_refused_and_the_others_are_imported(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    workspace.inbox_dir.mkdir(parents=True)
    good = write_report(tmp_path, "BUG-GOOD", "Wild Wolpertinger", "It is gone.")
    good.rename(workspace.inbox_dir / "good.json")
    bad_name = os.fsdecode(b"bad-\xff\xfe.json")  # not UTF-8: a surrogate-escaped str on POSIX
    (workspace.inbox_dir / bad_name).write_bytes((workspace.inbox_dir / "good.json").read_bytes())

    outcomes = import_inbox(workspace)

    imported = [o for o in outcomes if isinstance(o, ImportResult)]
    rejected = [o for o in outcomes if isinstance(o, InboxRejection)]
    assert [o.case_id for o in imported] == ["BUG-GOOD"]
    assert [o.code for o in rejected] == [ErrorCode.REPORT_NOT_UTF8]
    # what a log line, a cursor or a Dagster event will hold is printable UTF-8
    line = str(rejected[0])
    line.encode("utf-8")
    assert "bad-\\xff\\xfe.json" in line
    assert rejected[0].entry == workspace.inbox_dir / bad_name  # the entry itself, to move aside
    assert import_inbox(workspace) == [rejected[0]]  # the same refusal again, nothing else


def test_vba_import_of_an_undecodable_path_is_refused_cleanly(tmp_path: Path) -> None:
    path = tmp_path / os.fsdecode(b"r\xe9port.json")
    path.write_bytes(write_report(tmp_path, "BUG-NAME", "t", "b").read_bytes())
    with pytest.raises(InputError) as refused:
        import_report(Workspace(tmp_path / "ws"), path)
    assert refused.value.code is ErrorCode.REPORT_NOT_UTF8
    str(refused.value).encode("utf-8")
    assert not (tmp_path / "ws" / "cases").exists()


# --- two imports at once --------------------------------------------------------------------------


def _racing_import(root: Path, report: Path, go: Path, result: Path) -> None:
    """A forked child: wait for ``go``, import, write the outcome to ``result``."""
    pid = os.fork()
    if pid:
        return
    try:
        while not go.exists():
            pass
        try:
            outcome = str(import_report(Workspace(root), report))
            code = "ok"
        except InputError as exc:
            outcome, code = exc.message, exc.code.value
        except Exception as exc:  # ARTIFACT_CONFLICT or anything else: the bug
            outcome, code = (
                str(exc),
                getattr(getattr(exc, "code", None), "value", type(exc).__name__),
            )
        result.write_text(json.dumps({"code": code, "outcome": outcome}))
    finally:
        os._exit(0)


def test_two_reports_imported_at_once_under_one_case_id_give_a_clean_refusal(
    tmp_path: Path,
) -> None:
    rounds, codes = 10, []
    for number in range(rounds):
        root = tmp_path / f"round{number}" / "ws"
        root.parent.mkdir()
        first = write_report(tmp_path / f"round{number}", "BUG-RACE", "first report", "A" * 5000)
        second = tmp_path / f"round{number}" / "second.json"
        second.write_text(
            json.dumps(
                {
                    "case_id": "BUG-RACE",
                    "title": "second report",
                    "body": "B" * 5000,
                    "reported_at": "2026-10-01T12:00:00Z",
                    "attachments": [{"name": "log", "kind": "chat_log", "text": "C" * 3000}],
                }
            )
        )
        go = tmp_path / f"round{number}" / "go"
        results = [tmp_path / f"round{number}" / f"result{n}" for n in (1, 2)]
        _racing_import(root, first, go, results[0])
        _racing_import(root, second, go, results[1])
        go.touch()
        for _ in (1, 2):
            os.wait()
        outcomes = sorted(json.loads(r.read_text())["code"] for r in results)
        codes.append(outcomes)
        package = Workspace(root).case("BUG-RACE")
        assert [f for f in verify_case(package).all_findings() if f.is_error] == []
    assert codes == [["CASE_ALREADY_IMPORTED", "ok"]] * rounds, codes


# --- reported_at from the future ------------------------------------------------------------------


def _report_at(tmp_path: Path, when: datetime) -> Path:
    path = tmp_path / "future.json"
    path.write_text(
        json.dumps(
            {
                "case_id": "BUG-FUTURE",
                "title": "Wild Wolpertinger",
                "body": "Gone since yesterday.",
                "reported_at": when.isoformat(),
            }
        )
    )
    return path


def test_a_report_from_the_future_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    workspace = Workspace(tmp_path / "ws", clock=lambda: now)
    with pytest.raises(InputError) as refused:
        import_report(workspace, _report_at(tmp_path, datetime(2099, 1, 1, tzinfo=UTC)))
    assert refused.value.code is ErrorCode.REPORT_FROM_THE_FUTURE
    assert "reported_at" in refused.value.message and "2099" in refused.value.message
    assert not workspace.cases_dir.exists()


def test_the_future_tolerance_is_one_day_by_default_and_configurable(tmp_path: Path) -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    workspace = Workspace(tmp_path / "ws", clock=lambda: now)
    almost = _report_at(tmp_path, now + timedelta(hours=23))  # a clock a little fast: admitted
    assert import_report(workspace, almost).created
    later = Workspace(tmp_path / "ws2", clock=lambda: now)
    with pytest.raises(InputError):
        import_report(later, _report_at(tmp_path, now + timedelta(hours=25)))
    lenient = import_report(
        later, _report_at(tmp_path, now + timedelta(hours=25)), future_tolerance=timedelta(days=2)
    )
    assert lenient.created
