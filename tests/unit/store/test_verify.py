"""verify(): a package checks itself offline, from its own bytes."""

import os
import shutil
from pathlib import Path

from tests.layout import REV1
from vba_assets.errors import ErrorCode
from vba_assets.store import CasePackage, Workspace, content_hash

CAPTURES = "analysis/interpretations/0001/entity-resolution/captures"


def build_package(package: CasePackage) -> str:
    package.write_bytes("report/body.txt", b"I can't find the Wild Wolpertinger")
    package.write_bytes("report/original.json", b'{ "pretty": true,\n  "raw": 1.0 }')
    package.write_json("case.json", {"sources": [{"alias": "S1", "text": "body"}]})
    package.write_json("analysis/interpretations/0001/input.json", {"protocol_version": 2})
    package.append_event("0001", "started")
    package.append_event("0001", "accepted", stage="plan")
    return package.write_object(CAPTURES, {"term": "Wolpertinger", "rows": []}).relpath


def test_a_clean_package_has_no_findings_and_stays_clean_when_copied(
    package: CasePackage, tmp_path: Path
) -> None:
    build_package(package)
    with package.lock("0001"):
        assert package.verify() == []
    copy_root = tmp_path / "elsewhere"
    shutil.copytree(package.root, copy_root / "cases" / package.case_id)
    assert Workspace(copy_root).case(package.case_id).verify() == []


def test_a_tampered_content_addressed_object_is_found(package: CasePackage) -> None:
    relpath = build_package(package)
    tampered = b'{"rows":[{"identity":1}],"term":"Wolpertinger"}'  # still canonical JSON
    target = package.path(relpath)
    assert target.stat().st_mode & 0o777 == 0o444  # published read-only
    os.chmod(target, 0o644)
    target.write_bytes(tampered)

    findings = package.verify()

    assert [(f.code, f.artifact, f.is_error) for f in findings] == [
        (ErrorCode.PACKAGE_HASH_MISMATCH, relpath, True)
    ]
    assert content_hash({"rows": [{"identity": 1}], "term": "Wolpertinger"}) in findings[0].message


def test_a_non_canonical_json_artifact_is_found_but_raw_report_files_are_exempt(
    package: CasePackage,
) -> None:
    build_package(package)
    package.write_bytes(REV1.interpretation, b'{"b":1,"a":1.0}')

    findings = package.verify()

    assert [(f.code, f.artifact) for f in findings] == [
        (ErrorCode.PACKAGE_NOT_CANONICAL, REV1.interpretation)
    ]
    assert "not RFC 8785" in findings[0].message


def test_broken_events_and_unexpected_hidden_files_are_found(package: CasePackage) -> None:
    build_package(package)
    events = package.path(REV1.events)
    lines = events.read_bytes().splitlines(keepends=True)
    events.write_bytes(lines[1] + lines[0])  # reordered: seq 2 before seq 1
    (package.root / ".DS_Store").write_bytes(b"junk")

    findings = package.verify()

    assert [(f.code, f.artifact) for f in findings] == [
        (ErrorCode.PACKAGE_UNEXPECTED_HIDDEN, ".DS_Store"),
        (ErrorCode.PACKAGE_EVENTS_INVALID, REV1.events),
    ]
    assert "expected 1" in findings[1].message
    assert all(f.is_error for f in findings)


def test_a_missing_package_verifies_as_empty(workspace: Workspace) -> None:
    assert workspace.case("NEVER-WRITTEN").verify() == []
