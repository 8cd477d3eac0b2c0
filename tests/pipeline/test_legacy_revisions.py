"""Revisions recorded before protocol v3 still verify and replay byte for byte.

``tests/fixtures/legacy_v2`` holds three case packages written by the code before the stage
registry and timing-free content (protocol v2; see its README). A release that stops verifying or
replaying them has broken the promise that a frozen revision keeps its rules and its bytes.
"""

import shutil
from pathlib import Path

import pytest

from tests.layout import REV1
from tests.pipeline.support import project_config
from vba_assets.cli import main as vba
from vba_assets.domain.llm.call import conversation
from vba_assets.domain.stages import MODEL_STAGES, Stage
from vba_assets.errors import ErrorCode
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.stage_requests import rebuild_request
from vba_assets.pipeline.trial import run_trial
from vba_assets.pipeline.verification import verify_revision
from vba_assets.store import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_v2"
CASES = ("BUG-000020", "BUG-000021", "BUG-000022")
RESOLVED = [
    "resolution_plan",
    "candidate_index",
    "resolution_assessment",
    "context",
    "interpretation",
]
EXPECTED_CHECKED = {
    "BUG-000020": RESOLVED,
    "BUG-000021": RESOLVED,
    "BUG-000022": ["interpretation"],
}


@pytest.fixture
def legacy(tmp_path: Path) -> Workspace:
    """A copy of the fixtures in a workspace of their own (the fixtures are never written)."""
    workspace = Workspace(tmp_path / "elsewhere")
    for case_id in CASES:
        shutil.copytree(FIXTURES / case_id, workspace.cases_dir / case_id)
    return workspace


@pytest.mark.parametrize("case_id", CASES)
def test_a_legacy_revision_verifies_under_the_rules_it_was_made_with(
    legacy: Workspace, case_id: str
) -> None:
    package = legacy.case(case_id)
    rev = load_frozen(package, "0001")
    assert rev.interpretation.protocol_version == 2  # the fixture really is a v2 revision
    report = verify_revision(package, "0001")
    assert [f for f in report.findings if f.is_error] == []
    # its log predates the hash chain: said once, as information, never as tampering
    assert [(f.code, f.severity) for f in report.findings] == [
        (ErrorCode.PACKAGE_EVENTS_UNCHAINED, "info")
    ]
    assert [line.split(":")[0] for line in report.checked] == EXPECTED_CHECKED[case_id]


@pytest.mark.parametrize("case_id", CASES)
def test_every_recorded_request_of_a_legacy_revision_rebuilds_byte_for_byte(
    legacy: Workspace, case_id: str
) -> None:
    """Including the correction round of BUG-000021, whose wording is that of protocol v2."""
    package = legacy.case(case_id)
    rev = load_frozen(package, "0001")
    attempts = 0
    for stage in MODEL_STAGES:
        records = PackageRecorder(package, REV1, stage).records()
        if not records:
            continue
        request, _ = rebuild_request(rev, stage)
        for record in records:
            rejected = [
                r for r in records if r.outcome == "rejected" and r.attempt < record.attempt
            ]
            assert record.base_request_sha256 == request.sha256()
            assert record.request_sha256 == request.sha256(conversation(request, rejected))
            attempts += 1
    assert attempts == {"BUG-000020": 3, "BUG-000021": 4, "BUG-000022": 1}[case_id]


def test_the_correction_round_of_a_legacy_revision_names_the_generic_rule_code(
    legacy: Workspace,
) -> None:
    records = PackageRecorder(legacy.case("BUG-000021"), REV1, Stage.RESOLUTION_PLAN).records()
    assert [r.outcome for r in records] == ["rejected", "accepted"]
    correction = records[1].request["messages"][-1]["content"]
    assert "- LLM_INVALID_JSON: not valid JSON" in correction


@pytest.mark.parametrize("case_id", CASES)
def test_a_legacy_revision_replays_with_no_model_and_no_database(
    legacy: Workspace, tmp_path: Path, case_id: str
) -> None:
    package = legacy.case(case_id)
    before = {p: package.read_bytes(p) for p in package.list_dir("", recursive=True)}

    def no_db() -> None:
        raise AssertionError("replay must not open the DB")

    report = run_trial(
        legacy,
        case_id,
        "0001",
        project_config(tmp_path / "elsewhere"),
        LlmConfig(provider="replay"),
        stop_after="interpretation",
        max_dispatches=0,
        open_db=no_db,
    )
    assert report.dispatches_this_run == 0
    artifacts = {s.stage: s.sha256 for s in report.stages if s.relpath}
    assert artifacts[Stage.INTERPRETATION] == package.artifact_ref(REV1.interpretation).sha256
    after = {p: package.read_bytes(p) for p in package.list_dir("", recursive=True)}
    changed = [p for p in after if before.get(p) != after[p] and not p.endswith("events.jsonl")]
    assert changed == []  # nothing but the lifecycle log was touched


def test_vba_verify_accepts_a_legacy_revision(
    legacy: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    code = vba(
        ["verify", "--workspace", str(legacy.root), "--case-id", "BUG-000021", "--revision", "0001"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "PROBLEM" not in out
