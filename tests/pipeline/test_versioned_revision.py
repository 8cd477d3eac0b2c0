"""A revision of a later report version, run by ``vba trial run``: it freezes that version, the
readers use its ``case.json``, and ``vba verify`` finds a tampered binding."""

import json
from pathlib import Path

import pytest

from tests.fakes.github_issue import REPO, rest_issue
from tests.pipeline.support import LLM, project_config
from vba_assets.context_show import show_context
from vba_assets.pipeline.trial import run_trial
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import CasePackage, Workspace
from vba_assets.store.layout import case_json
from vba_assets.store.versions import revision_report_version
from vba_assets.tracker.github_issues import case_id_for
from vba_assets.tracker.issue_import import import_github_issues

FIRST = rest_issue(
    8, "Quest giver has no marker", "[Mankrik](https://www.wowhead.com/npc=3432) has no marker."
)
EDITED = {
    **FIRST,
    "body": "Wrong one, sorry: [Hogger](https://www.wowhead.com/npc=448) cannot be killed.",
    "updated_at": "2026-11-02T10:00:00Z",
}
CASE = case_id_for(REPO, 8)


@pytest.fixture
def versioned(tmp_path: Path) -> tuple[Workspace, CasePackage]:
    workspace = Workspace(tmp_path / "ws")
    import_github_issues(workspace, [(FIRST, [])])
    (revised,) = import_github_issues(workspace, [(EDITED, [])]).revised
    assert revised[1].revision == "0002"
    report = run_trial(
        workspace,
        CASE,
        "0002",
        project_config(tmp_path / "ws"),
        LLM,
        stop_after="interpretation",
        max_dispatches=12,
    )
    assert report is not None
    return workspace, workspace.case(CASE)


def _errors(package: CasePackage) -> set[tuple[str, str | None]]:
    return {(f.code.value, f.artifact) for f in verify_case(package).all_findings() if f.is_error}


def test_the_revision_freezes_its_version_and_verifies(
    versioned: tuple[Workspace, CasePackage],
) -> None:
    workspace, package = versioned
    frozen = package.read_json("analysis/interpretations/0002/input.json")
    assert frozen["case_sha256"] == package.artifact_ref(case_json("0002")).sha256
    assert frozen["case_sha256"] != package.artifact_ref("case.json").sha256
    started = next(e for e in package.read_events("0002") if e["event"] == "started")
    assert started["report_version"] == "0002"
    assert started["version_sha256"] == package.artifact_ref("reports/0002/version.json").sha256
    context = package.read_json("analysis/interpretations/0002/entity-resolution/context.json")
    assert [(n["identity"], n["name"]) for n in context["selected"]] == [(448, "Hogger")]
    assert _errors(package) == set()
    shown = show_context(workspace.root, CASE, "0002", as_json=True)
    sources = [
        item["source"]
        for dispatch in json.loads(shown)["dispatches"]
        for item in dispatch["manifest"]["items"]
        if "case.json" in item["source"]
    ]
    assert sources and all(s.startswith("reports/0002/case.json#/") for s in sources)
    # a new revision of the case (`vba revision new`) binds the newest version
    assert package.new_revision("vba revision new") == "0003"
    assert revision_report_version(package, "0003") == "0002"


def test_verify_finds_a_rebound_created_event_and_a_removed_version(
    versioned: tuple[Workspace, CasePackage],
) -> None:
    _, package = versioned
    log = package.path("analysis/interpretations/0002/events.jsonl")
    lines = log.read_bytes().split(b"\n")
    created = json.loads(lines[0])
    del created["report_version"]  # the created line now says version 0001
    lines[0] = json.dumps(created, sort_keys=True, separators=(",", ":")).encode()
    original = log.read_bytes()
    log.write_bytes(b"\n".join(lines))
    errors = _errors(package)
    assert ("PACKAGE_FROZEN_INPUT_MISMATCH", "analysis/interpretations/0002/input.json") in errors
    assert ("PACKAGE_EVENTS_INVALID", "analysis/interpretations/0002/events.jsonl") in errors
    log.write_bytes(original)
    assert _errors(package) == set()
    package.path("reports/0002/version.json").unlink()
    errors = _errors(package)
    assert ("PACKAGE_FILE_MISSING", "reports/0002/version.json") in errors
    assert ("PACKAGE_EVENT_INVALID", "analysis/interpretations/0002/events.jsonl") in errors
