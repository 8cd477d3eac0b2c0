"""A stage's CPU budget for text work (issue 30, item 2): an overrun stops the stage with a recorded
block (``STAGE_BUDGET_EXCEEDED``, exit 7), a run with the same budget is refused before any work,
and the revision resumes once the budget is raised, to the same bytes as a run that never stopped.
"""

import json
import shutil
import threading
from pathlib import Path

import pytest

from tests.layout import REV1
from vba_assets.cli import main as vba
from vba_assets.domain.text_budget import check_budget, stage_budget
from vba_assets.errors import BudgetExceeded, ErrorCode
from vba_assets.intake import import_report
from vba_assets.pipeline.verification import verify_case
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

CASE = "BUG-000020"
#: Far below what any stage's text work takes: the first check of the plan stage trips it.
TINY_S = 0.000001


def _config(tmp_path: Path, name: str, budget_s: float | None) -> Path:
    path = tmp_path / f"{name}.toml"
    lines = [
        'workspace = "ws"',
        "[database]",
        'url = "embedded:demo"',
        'allowlist = ["creature_template", "creature_template_locale", '
        '"creature_queststarter", "creature_questender", "creature_spawn_markers"]',
        'snapshot_label = "demo-wotlk-3.3.5"',
        "[[entity_resolution.catalogs]]",
        'name = "creature_name"',
        'entity_type = "creature"',
        'kind = "name"',
        'table = "creature_template"',
        'identity_column = "entry"',
        'name_column = "name"',
        'data_columns = ["subname"]',
    ]
    if budget_s is not None:
        lines += ["[budget]", f"stage_cpu_s = {budget_s}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _trial(config: Path) -> int:
    return vba(
        [
            "trial",
            "run",
            "--case-id",
            CASE,
            "--stop-after",
            "interpretation",
            "--max-dispatches",
            "6",
            "--project-config",
            str(config),
        ]
    )


def _events(workspace: Path) -> list[dict[str, object]]:
    return Workspace(workspace).case(CASE).read_events("0001")


def test_a_stage_over_its_budget_is_blocked_refused_until_raised_then_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny = _config(tmp_path, "tiny", TINY_S)
    raised = _config(tmp_path, "raised", None)  # the default budget
    workspace = tmp_path / "ws"
    import_report(Workspace(workspace), sample_report_path(CASE))

    assert _trial(tiny) == 7
    err = capsys.readouterr().err
    assert "STAGE_BUDGET_EXCEEDED" in err and "Traceback" not in err
    blocked = [e for e in _events(workspace) if e["event"] == "blocked"]
    assert len(blocked) == 1
    assert blocked[0]["code"] == "STAGE_BUDGET_EXCEEDED"
    assert blocked[0]["stage"] == "resolution_plan"
    assert blocked[0]["cpu_budget_s"] == TINY_S
    assert "retry_at" not in blocked[0]  # waiting changes nothing: raising the budget does
    package = Workspace(workspace).case(CASE)
    assert not package.exists(REV1.plan)

    # the same budget again: refused at once, nothing new recorded (no block piles up)
    before = _events(workspace)
    assert _trial(tiny) == 7
    assert "still" in capsys.readouterr().err
    assert _events(workspace) == before

    assert vba(["blocked", "--workspace", str(workspace), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(b["code"], b["stage"], b["cpu_budget_s"]) for b in listed] == [
        ("STAGE_BUDGET_EXCEEDED", "resolution_plan", TINY_S)
    ]
    assert vba(["blocked", "--workspace", str(workspace)]) == 0
    assert "raise [budget] stage_cpu_s" in capsys.readouterr().out
    resume = ["resume", "--workspace", str(workspace), "--case-id", CASE, "--max-dispatches", "6"]
    assert vba([*resume, "--project-config", str(tiny)]) == 7
    capsys.readouterr()

    assert vba([*resume, "--project-config", str(raised)]) == 0
    assert "resumed BUG-000020 revision 0001 at resolution_plan" in capsys.readouterr().out
    events = _events(workspace)
    resumed = [e for e in events if e["event"] == "resumed"]
    assert [(e["stage"], e["after_block"]) for e in resumed] == [
        ("resolution_plan", blocked[0]["seq"])
    ]
    assert events[-1]["event"] == "accepted" and events[-1]["stage"] == "interpretation"
    assert verify_case(package).all_findings() == []
    assert vba(["blocked", "--workspace", str(workspace), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []

    # the resumed revision holds the bytes of a run that never stopped
    clean = tmp_path / "clean"
    shutil.copytree(tmp_path, clean, ignore=shutil.ignore_patterns("ws"))
    import_report(Workspace(clean / "ws"), sample_report_path(CASE))
    assert _trial(clean / "raised.toml") == 0
    for relpath in (REV1.plan, REV1.assessment, REV1.interpretation, REV1.context):
        assert (clean / "ws" / "cases" / CASE / relpath).read_bytes() == package.read_bytes(relpath)


def test_the_budget_counts_this_threads_cpu_only_and_nothing_outside_a_stage() -> None:
    check_budget()  # outside any stage: never limited
    with stage_budget("resolution_plan", 0.05):
        threading.Event().wait(0.2)  # waiting is not text work
        check_budget()
        with pytest.raises(BudgetExceeded) as exceeded:
            while True:
                sum(range(10_000))
                check_budget()
        other: list[BaseException | None] = []

        def in_another_thread() -> None:  # a thread of its own: the stage's budget is not its
            try:
                check_budget()
            except BudgetExceeded as exc:
                other.append(exc)
            else:
                other.append(None)

        worker = threading.Thread(target=in_another_thread)
        worker.start()
        worker.join()
        assert other == [None]
    assert exceeded.value.code is ErrorCode.STAGE_BUDGET_EXCEEDED
    assert exceeded.value.detail["cpu_budget_s"] == 0.05
    assert exceeded.value.detail["cpu_spent_s"] >= 0.05
    check_budget()  # the stage ended: no budget any more
