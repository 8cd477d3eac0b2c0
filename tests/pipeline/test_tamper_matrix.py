"""``vba verify`` proves a package: a generated tamper matrix over every file of a completed revision.

The revision is made by the current code (protocol v4, sealed records) with one rejected plan reply,
so every file type exists: package.json, the raw report files, case.json, both frozen inputs, the
hash-chained events.jsonl, plan, captures, candidates, assessment, context, dispatch records,
context manifests, a rejected record and the interpretation. :mod:`tests.pipeline.tamper` derives
the matrix from the files present (byte flips, canonical value edits, deletions, truncations, swaps,
injected files, event lines forged, edited, dropped, duplicated, reordered, renumbered); every
tamper must give at least one error finding, and none may crash the verification.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.layout import REV1
from tests.pipeline.support import (
    QUEST,
    assess_exact,
    imported,
    interpret,
    plan_reply,
    project_config,
    run,
)
from tests.pipeline.tamper import HOSTILE, Tamper, applied_copy, file_type, generate
from vba_assets.cli import main as vba
from vba_assets.domain.protocol import CURRENT_PROTOCOL_VERSION
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import Workspace

CASE = "BUG-000020"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_v2"


@pytest.fixture(scope="module")
def completed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The case folder of a completed revision (never modified: tampers work on copies)."""
    root = tmp_path_factory.mktemp("completed")
    workspace, package = imported(root)
    case_doc = package.read_json("case.json")
    provider = ScriptedProvider(
        {
            "resolution_plan": ["{not json", plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )
    report = run(workspace, CASE, project_config(root / "ws"), provider)
    assert report.stages[-1].status == "accepted"
    assert package.read_json(REV1.input)["protocol_version"] == CURRENT_PROTOCOL_VERSION
    return package.root


@pytest.fixture(scope="module")
def completed_unresolved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A completed revision frozen without entity resolution (four 'disabled' artifacts)."""
    root = tmp_path_factory.mktemp("unresolved")
    workspace, package = imported(root)
    provider = ScriptedProvider({"interpretation": [from_stage_context(interpret)]})
    report = run(workspace, CASE, project_config(root / "ws", resolution=False), provider)
    assert report.stages[-1].status == "accepted"
    assert package.read_json(REV1.plan)["status"] == "disabled"
    return package.root


def _verify(case_root: Path) -> list[str]:
    """The error codes ``vba verify`` finds for a case folder (raises if verification crashes)."""
    report = verify_case(Workspace(case_root.parents[1]).case(case_root.name))
    return [f.code.value for f in report.all_findings() if f.is_error]


def _run_matrix(source: Path, tampers: list[Tamper], scratch: Path) -> dict[str, object]:
    detected: Counter[str] = Counter()
    total: Counter[str] = Counter()
    rows: Counter[str] = Counter()
    undetected, crashed = [], []
    for number, tamper in enumerate(tampers):
        case = applied_copy(source, tamper, scratch / str(number) / "cases" / source.name)
        total[tamper.kind] += 1
        rows[file_type(tamper.target)] += 1
        try:
            codes = _verify(case)
        except Exception as exc:  # the point of the test: verification never crashes
            crashed.append(f"{tamper.name}: {type(exc).__name__}: {exc}")
        else:
            if codes:
                detected[tamper.kind] += 1
            else:
                undetected.append(tamper.name)
        shutil.rmtree(scratch / str(number))
    return {
        "total": total,
        "detected": detected,
        "file_types": rows,
        "undetected": undetected,
        "crashed": crashed,
    }


def test_the_completed_revision_verifies_clean_in_another_folder(
    completed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere" / "cases" / CASE
    shutil.copytree(completed, elsewhere)
    report = verify_case(Workspace(tmp_path / "elsewhere").case(CASE))
    assert report.all_findings() == []
    assert vba(["verify", "--workspace", str(tmp_path / "elsewhere"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] and document["errors"] == 0
    assert [r["revision"] for r in document["cases"][0]["revisions"]] == ["0001"]
    assert len(document["cases"][0]["revisions"][0]["checked"]) == 5


def test_the_matrix_covers_every_file_type_and_tamper_kind(completed: Path) -> None:
    tampers = generate(completed)
    kinds = {t.kind for t in tampers}
    assert kinds >= {
        "byte_flip",
        "value_edit",
        "delete",
        "truncate",
        "swap",
        "inject",
        "event_drop",
        "event_edit",
        "event_forge",
        "event_reorder",
        "event_duplicate",
        "event_renumber",
        "event_truncate",
        "event_unchain",
        *HOSTILE,
    }
    types = {file_type(t.target) for t in tampers}
    assert types >= {
        "package.json",
        "report/report.json",
        "report/attachment",
        "case.json",
        "input.json",
        "events.jsonl",
        "entity-resolution/input.json",
        "entity-resolution/plan.json",
        "capture",
        "entity-resolution/candidates.json",
        "entity-resolution/assessment.json",
        "entity-resolution/context.json",
        "dispatch record",
        "context manifest",
        "rejected record",
        "interpretation.json",
    }
    assert len(tampers) > 400


def _reader(relpath: str) -> str:
    """How verify reads a file: a raw report file, the event log, or a JSON artifact."""
    if relpath.startswith("report/"):
        return "raw"
    return "log" if relpath.endswith("events.jsonl") else "artifact"


def _sample(tampers: list[Tamper]) -> list[Tamper]:
    """One tamper per (kind, file type), and every edit of a value the issue named; a hostile
    file (what replaces a file does not depend on its type) once per way verify reads files."""
    seen: set[tuple[str, str]] = set()
    chosen = []
    for tamper in tampers:
        hostile = tamper.kind in HOSTILE
        key = (tamper.kind, _reader(tamper.target) if hostile else file_type(tamper.target))
        named = tamper.kind == "value_edit" and any(
            word in tamper.detail
            for word in ("reported_at", "provider", "package_id", "snapshot", "search_id")
        )
        if key not in seen or named:
            seen.add(key)
            chosen.append(tamper)
    return chosen


@pytest.mark.parametrize("revision", ["completed", "completed_unresolved"])
def test_a_sample_of_the_tamper_matrix_is_detected(
    request: pytest.FixtureRequest, tmp_path: Path, revision: str
) -> None:
    """The quick suite's share of the matrix (the full one is marked slow; CI runs both)."""
    source = request.getfixturevalue(revision)
    sample = _sample(generate(source))
    result = _run_matrix(source, sample, tmp_path)
    assert result["crashed"] == []
    assert result["undetected"] == []
    assert len(sample) > 40


@pytest.mark.slow
@pytest.mark.parametrize("revision", ["completed", "completed_unresolved"])
def test_every_tamper_of_the_matrix_is_detected_and_none_crashes(
    request: pytest.FixtureRequest, tmp_path: Path, revision: str
) -> None:
    source = request.getfixturevalue(revision)
    tampers = generate(source)
    result = _run_matrix(source, tampers, tmp_path)
    summary = {
        kind: f"{result['detected'][kind]}/{count}"  # type: ignore[index]
        for kind, count in sorted(result["total"].items())  # type: ignore[attr-defined]
    }
    print(f"tamper matrix ({revision}): {len(tampers)} cases; detected per kind: {summary}")
    assert result["crashed"] == []
    assert result["undetected"] == []


# --- what the issue found, one by one, through the command ----------------------------------------


def _tampered(completed: Path, tmp_path: Path, target: str, change: object) -> Path:
    case = tmp_path / "ws" / "cases" / CASE
    shutil.copytree(completed, case)
    path = case / target
    path.chmod(0o644)
    if callable(change):
        change(path)
    else:
        path.unlink()
    return tmp_path / "ws"


def _edit(*pointer: object, value: object) -> object:
    def change(path: Path) -> None:
        doc = json.loads(path.read_bytes())
        node = doc
        for part in pointer[:-1]:
            node = node[part]
        node[pointer[-1]] = value
        path.write_bytes(json.dumps(doc, separators=(",", ":"), sort_keys=True).encode())

    return change


@pytest.mark.parametrize(
    ("target", "change", "code"),
    [
        (REV1.interpretation, None, "PACKAGE_FILE_MISSING"),
        (REV1.events, None, "PACKAGE_FILE_MISSING"),
        (REV1.input, _edit("reported_at", value="2026-09-24T19:47:13Z"), "FROZEN_INPUT"),
        (REV1.input, _edit("provider", value="anthropic"), "HASH_REFERENCE"),
        ("package.json", _edit("package_id", value="pkg-other"), "HASH_REFERENCE"),
        (REV1.er_input, _edit("snapshot", "label", value="other"), "HASH_REFERENCE"),
        (REV1.er_input, _edit("catalogs", 0, "name", value="renamed"), "HASH_REFERENCE"),
        (REV1.input, _edit("schema_version", value=2), "PACKAGE_ARTIFACT_INVALID"),
        (
            REV1.assessment,
            _edit("assessment", "assessments", 0, "search_id", value="Q9"),
            "HASH_REFERENCE",
        ),
        (REV1.plan, _edit("request_sha256", value="0" * 64), "HASH_REFERENCE"),
        ("case.json", _edit("sources", 0, "chars", value=1), "HASH_REFERENCE"),
    ],
)
def test_vba_verify_reports_what_the_issue_found_and_exits_5(
    completed: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    target: str,
    change: object,
    code: str,
) -> None:
    workspace = _tampered(completed, tmp_path, target, change)
    assert vba(["verify", "--workspace", str(workspace), "--case-id", CASE]) == 5
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code in out
    assert vba(["verify", "--workspace", str(workspace), "--case-id", CASE, "--json"]) == 5
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is False and document["errors"] >= 1


def test_no_ok_line_contradicts_a_finding_about_the_same_artifact(
    completed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = _tampered(
        completed, tmp_path, REV1.interpretation, _edit("prompt", value="unresolved")
    )
    assert (
        vba(["verify", "--workspace", str(workspace), "--revision", "0001", "--case-id", CASE]) == 5
    )
    lines = capsys.readouterr().out.splitlines()
    assert not [
        line for line in lines if line.strip().startswith("ok") and "interpretation:" in line
    ]
    assert any(REV1.interpretation in line and "ERROR" in line for line in lines)


def test_an_extra_capture_dispatch_or_rejected_record_is_reported_as_unreferenced(
    completed: Path, tmp_path: Path
) -> None:
    case = tmp_path / "ws" / "cases" / CASE
    shutil.copytree(completed, case)
    record = case / REV1.dispatch(Stage.INTERPRETATION, 1)
    (case / REV1.dir / "rejected").mkdir(exist_ok=True)
    (case / REV1.dir / "rejected" / "interpretation-7.json").write_bytes(record.read_bytes())
    report = verify_case(Workspace(tmp_path / "ws").case(CASE))
    assert [(f.code, f.artifact) for f in report.all_findings() if f.is_error] == [
        (ErrorCode.PACKAGE_UNREFERENCED_FILE, f"{REV1.dir}/rejected/interpretation-7.json")
    ]


def test_a_whole_workspace_is_verified_case_by_case(completed: Path, tmp_path: Path) -> None:
    for name in ("A-1", "A-2"):
        shutil.copytree(completed, tmp_path / "ws" / "cases" / CASE.replace("BUG-000020", name))
    # a copy under another case id: package.json and input.json name BUG-000020
    reports = [verify_case(Workspace(tmp_path / "ws").case(n)) for n in ("A-1", "A-2")]
    for report in reports:
        codes = {f.code for f in report.all_findings() if f.is_error}
        assert ErrorCode.PACKAGE_ARTIFACT_INVALID in codes  # package.json names another case
        assert ErrorCode.PACKAGE_FROZEN_INPUT_MISMATCH in codes  # so does input.json


# --- revisions of earlier releases --------------------------------------------------------------


def _unbound_before_v4(name: str) -> bool:
    kind, target = name.split(":")[:2]
    return (
        kind.startswith("event_")
        or target.endswith(".manifest.json")
        or (target.endswith(("package.json", "input.json")) and kind in ("value_edit", "byte_flip"))
    )


def test_tampering_with_a_legacy_revision_never_crashes_the_verification(tmp_path: Path) -> None:
    """A protocol v2 revision predates sealed records: its log is not chained, and neither its
    context manifests, nor package.json, nor the fields of its frozen inputs that no later record
    repeats (the provider, a catalog's table) are bound by a hash, so edits there can go unseen
    (the unchained log is reported as ``info``); every other tamper is found, and nothing
    crashes. The quick share: one fixture, one tamper per (kind, file type)."""
    source = FIXTURES / "BUG-000021"
    result = _run_matrix(source, _sample(generate(source)), tmp_path)
    assert result["crashed"] == []
    undetected = result["undetected"]
    assert isinstance(undetected, list)
    assert [name for name in undetected if not _unbound_before_v4(name)] == []


@pytest.mark.slow
def test_the_full_matrix_over_every_legacy_revision(tmp_path: Path) -> None:
    total = detected = 0
    for case_id in ("BUG-000020", "BUG-000021", "BUG-000022"):
        tampers = generate(FIXTURES / case_id)
        result = _run_matrix(FIXTURES / case_id, tampers, tmp_path / case_id)
        assert result["crashed"] == []
        undetected = result["undetected"]
        assert isinstance(undetected, list)
        assert [name for name in undetected if not _unbound_before_v4(name)] == []
        total += len(tampers)
        detected += len(tampers) - len(undetected)
    print(f"legacy tamper matrix: {total} cases, {detected} detected, 0 crashes")


# --- hostile files: findings in bounded time, through the command in its own process ---------------

REPO = Path(__file__).resolve().parents[2]
#: The issue's bound for ``vba verify`` on a damaged package, interpreter start included.
VERIFY_BOUND_S = 5.0


@pytest.mark.parametrize(
    ("kind", "target", "code"),
    [
        ("nesting", REV1.interpretation, "PACKAGE_NOT_CANONICAL"),
        ("nesting", REV1.events, "PACKAGE_EVENTS_INVALID"),
        ("fifo", REV1.interpretation, "PACKAGE_FILE_UNREADABLE"),
        ("fifo", REV1.events, "PACKAGE_FILE_UNREADABLE"),
        ("fifo", "report/report.json", "PACKAGE_FILE_UNREADABLE"),
        ("device", "case.json", "PACKAGE_"),
        ("huge", REV1.plan, "PACKAGE_FILE_TOO_LARGE"),
    ],
)
def test_vba_verify_of_a_hostile_file_reports_findings_in_bounded_time_without_a_traceback(
    completed: Path, tmp_path: Path, kind: str, target: str, code: str
) -> None:
    """The command in a subprocess with a timeout: a hang (a FIFO opened for reading waits for a
    writer forever) fails the test instead of blocking the suite."""
    workspace = _tampered(completed, tmp_path, target, HOSTILE[kind])
    command = [sys.executable, "-m", "vba_assets", "verify", "--workspace", str(workspace)]
    started = time.monotonic()
    done = subprocess.run(
        [*command, "--case-id", CASE],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=VERIFY_BOUND_S,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    elapsed = time.monotonic() - started
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert done.returncode == 5, done.stdout + done.stderr
    assert f"ERROR  {code}" in done.stdout and target in done.stdout
    assert elapsed < VERIFY_BOUND_S
