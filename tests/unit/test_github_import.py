"""``vba import --github-issues``: a saved REST export becomes cases; re-imports are no-ops."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from vba_assets.cli import main
from vba_assets.store import Workspace
from vba_assets.tracker.github_issues import case_id_for

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github"
ISSUES: list[dict[str, Any]] = json.loads((FIXTURES / "issues.json").read_text(encoding="utf-8"))
COMMENTS: list[dict[str, Any]] = json.loads(
    (FIXTURES / "issue-41-comments.json").read_text(encoding="utf-8")
)
REPO = "example-org/example-core"


def case_id(number: int) -> str:
    return case_id_for(REPO, number)


def write(path: Path, document: object) -> str:
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["import", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_an_export_imports_every_issue_and_skips_the_pull_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "ws"
    export = write(tmp_path / "issues.json", ISSUES)
    code, out = run(capsys, "--workspace", str(workspace), "--github-issues", export)
    assert code == 0
    assert [item["case_id"] for item in out["imported"]] == [case_id(41), case_id(43), case_id(44)]
    assert out["skipped_by_reason"] == {"pull_request": 1} and out["refused"] == []
    assert Workspace(workspace).case_ids() == sorted([case_id(41), case_id(43), case_id(44)])
    case = json.loads((workspace / "cases" / case_id(43) / "case.json").read_bytes())
    assert case["source"]["url"] == f"https://github.com/{REPO}/issues/43"
    record = json.loads((workspace / "cases" / case_id(43) / "package.json").read_bytes())
    assert record["import"]["source_name"] == f"github:{REPO}#43"
    assert main(["verify", "--workspace", str(workspace)]) == 0
    capsys.readouterr()
    # the same export again: nothing written, every case unchanged
    before = snapshot(workspace)
    code, out = run(capsys, "--workspace", str(workspace), "--github-issues", export)
    assert code == 0 and out["imported"] == [] and len(out["unchanged"]) == 3
    assert snapshot(workspace) == before


def test_comments_ride_along_and_a_single_object_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = str(tmp_path / "ws")
    (issue_41,) = [item for item in ISSUES if item["number"] == 41]
    export = write(tmp_path / "one.json", {"issue": issue_41, "comments": COMMENTS})
    code, out = run(capsys, "--workspace", workspace, "--github-issues", export)
    assert code == 0 and [item["number"] for item in out["imported"]] == [41]
    case = json.loads((Path(workspace) / "cases" / case_id(41) / "case.json").read_bytes())
    names = [source["name"] for source in case["sources"]]
    assert names[-2:] == [
        "comment 1 by maintainer-five at 2024-09-21T10:15:30Z",
        "comment 2 by player-one at 2024-09-22T07:45:00Z",
    ]
    bare = write(tmp_path / "bare.json", next(item for item in ISSUES if item["number"] == 43))
    code, out = run(capsys, "--workspace", workspace, "--github-issues", bare)
    assert code == 0 and [item["number"] for item in out["imported"]] == [43]


def test_the_label_filter_counts_what_it_skips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = write(tmp_path / "issues.json", ISSUES)
    argv = ["--workspace", str(tmp_path / "ws"), "--github-issues", export, "--label", "bug"]
    code, out = run(capsys, *argv)
    assert code == 0 and [item["number"] for item in out["imported"]] == [41, 43]
    assert out["skipped_by_reason"] == {"label_filter": 1, "pull_request": 1}


def test_an_edited_issue_is_a_new_report_version_and_nothing_of_its_case_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "ws"
    assert main(["import", "--workspace", str(workspace), "--github-issues",
                 write(tmp_path / "first.json", ISSUES[2:3])]) == 0  # fmt: skip
    before = snapshot(workspace)
    edited = copy.deepcopy(ISSUES)
    edited[2]["body"] = "Now with a body."
    capsys.readouterr()
    code, out = run(capsys, "--workspace", str(workspace), "--github-issues",
                    write(tmp_path / "edited.json", edited))  # fmt: skip
    assert code == 0 and out["refused"] == []
    assert [(r["case_id"], r["status"], r["report_version"], r["revision"]) for r in out["revised"]]\
        == [(case_id(43), "revised", "0002", "0002")]  # fmt: skip
    assert [item["number"] for item in out["imported"]] == [41, 44]  # the others still import
    assert [item["status"] for item in out["imported"]] == ["imported", "imported"]
    after = snapshot(workspace)
    assert {k: v for k, v in after.items() if k in before} == before  # nothing rewritten
    added = sorted(
        k.split(case_id(43) + "/", 1)[1] for k in after if case_id(43) in k and k not in before
    )
    assert added == [
        "analysis/interpretations/.lock",
        "analysis/interpretations/0002/events.jsonl",
        "reports/0002/case.json",
        "reports/0002/report/report.json",
        "reports/0002/version.json",
    ]
    version = json.loads(after[f"cases/{case_id(43)}/reports/0002/case.json"])
    assert version["sources"][1]["text"] == "Now with a body."
    assert main(["verify", "--workspace", str(workspace)]) == 0
    capsys.readouterr()
    # the same edited export again: unchanged, nothing written
    code, out = run(capsys, "--workspace", str(workspace), "--github-issues",
                    write(tmp_path / "edited.json", edited))  # fmt: skip
    assert code == 0 and out["revised"] == [] and len(out["unchanged"]) == 3
    assert {item["status"] for item in out["unchanged"]} == {"unchanged"}
    assert snapshot(workspace) == after


@pytest.mark.parametrize(
    ("content", "argv"),
    [
        (b"{not json", []),
        (b"[1, 2]", []),
        (b'{"issue": [], "comments": []}', []),
        (b"[]", ["a-report.json"]),  # a report and --github-issues at once
    ],
)
def test_bad_exports_and_usage_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, argv: list[str]
) -> None:
    export = tmp_path / "export.json"
    export.write_bytes(content)
    code = main(
        ["import", "--workspace", str(tmp_path / "ws"), "--github-issues", str(export), *argv]
    )
    assert code == 2
    assert "error" in capsys.readouterr().err
    assert not (tmp_path / "ws" / "cases").exists()


def test_provenance_never_reaches_a_model_request(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    export = write(tmp_path / "one.json", {"issue": ISSUES[0], "comments": COMMENTS})
    assert main(["import", "--workspace", str(workspace), "--github-issues", export]) == 0
    argv = ["trial", "run", "--workspace", str(workspace), "--case-id", case_id(41)]
    assert main([*argv, "--stop-after", "interpretation"]) == 0
    package = workspace / "cases" / case_id(41)
    holding = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.json*")
        if b"I_kwDOExample41" in path.read_bytes() or b"/issues/41" in path.read_bytes()
    )
    assert holding == ["case.json", "report/report.json"]
    dispatches = list(package.rglob("dispatches/*.json"))
    assert dispatches  # the model was asked, with the comments as sources
    assert any(b"Which realm, and at what time?" in path.read_bytes() for path in dispatches)
    assert main(["verify", "--workspace", str(workspace)]) == 0
