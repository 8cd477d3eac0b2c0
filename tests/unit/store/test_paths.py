"""Artifact paths stay inside the package: every rejected form, and symlink escapes."""

import os
from pathlib import Path

import pytest

from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import CasePackage

REJECTED = [
    ("", "is empty"),
    ("/etc/passwd", "is absolute"),
    ("../other-case/case.json", "'..'"),
    ("report/../../escape.json", "'..'"),
    ("./case.json", "'.'"),
    ("report//a.txt", "empty part"),
    ("report/", "empty part"),
    ("report\\a.txt", "backslash"),
    ("report/a\x00.txt", "NUL"),
    (".lock", "reserved for the store"),
    ("analysis/.case.json.tmp-1-0123456789abcdef", "reserved for the store"),
]


@pytest.mark.parametrize(("relpath", "reason"), REJECTED)
def test_rejected_relpaths_name_the_problem(
    package: CasePackage, relpath: str, reason: str
) -> None:
    operations = [
        lambda: package.write_bytes(relpath, b"x"),
        lambda: package.write_json(relpath, {}),
        lambda: package.read_bytes(relpath),
        lambda: package.exists(relpath),
        lambda: package.list_dir(relpath) if relpath else package.write_object(relpath, {}),
    ]
    for operation in operations:
        with pytest.raises(StoreError) as caught:
            operation()
        assert caught.value.code is ErrorCode.ARTIFACT_PATH_INVALID
        assert reason in caught.value.message
        assert repr(relpath) in caught.value.message
    assert not package.root.exists() or package.verify() == []


def test_non_string_relpath_is_rejected(package: CasePackage) -> None:
    with pytest.raises(StoreError) as caught:
        package.write_bytes(Path("case.json"), b"x")  # type: ignore[arg-type]
    assert caught.value.code is ErrorCode.ARTIFACT_PATH_INVALID
    assert "must be a string" in caught.value.message


def test_symlink_escaping_the_package_is_refused(package: CasePackage, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    package.write_bytes("case.json", b"{}")
    os.symlink(outside, package.root / "report")

    for operation in (
        lambda: package.write_bytes("report/evil.txt", b"x"),
        lambda: package.read_bytes("report/evil.txt"),
        lambda: package.write_object("report", {"a": 1}),
    ):
        with pytest.raises(StoreError) as caught:
            operation()
        assert caught.value.code is ErrorCode.ARTIFACT_PATH_INVALID
        assert "outside the case package" in caught.value.message
    assert os.listdir(outside) == []
    assert [finding.code for finding in package.verify()] == [ErrorCode.PACKAGE_SYMLINK]


def test_symlink_inside_the_package_is_followed(package: CasePackage) -> None:
    package.write_bytes("report/body.txt", b"hello")
    os.symlink(package.root / "report", package.root / "alias")
    assert package.read_bytes("alias/body.txt") == b"hello"


def test_valid_nested_relpath_creates_parents(package: CasePackage) -> None:
    relpath = "analysis/interpretations/0001/entity-resolution/dispatches/plan-1.json"
    package.write_json(relpath, {"ok": True})
    assert package.exists(relpath)
    assert package.read_json(relpath) == {"ok": True}
