"""``vba export``, ``vba import-package`` and ``vba verify`` against a bucket (moto in server mode).

A case is imported and run (heuristic provider: plumbing, not quality) with the project's
workspace in the bucket; the tests then prove the bucket's package, a folder exported from it on
a "machine" that can reach neither the bucket nor the DB, and find one tampered object.
"""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.objectstore.conftest import new_bucket
from tests.objectstore.support import project_file, set_credentials
from vba_assets.cli import main
from vba_assets.objectstore import ObjectStore
from vba_assets.samples import sample_report_path

CASE = "BUG-000020"
REVISION = "analysis/interpretations/0001"


@pytest.fixture
def ran(
    bucket: ObjectStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[ObjectStore, Path]:
    """A bucket holding CASE imported and interpreted through host-a's working copy."""
    set_credentials(monkeypatch)
    project = project_file(tmp_path, tmp_path / "host-a", bucket)
    assert main(["import", "--project-config", str(project), str(sample_report_path(CASE))]) == 0
    run = ["trial", "run", "--project-config", str(project), "--case-id", CASE]
    assert main([*run, "--stop-after", "interpretation"]) == 0
    return bucket, project


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["verify", "--json", *args])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, document


def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No bucket and no world DB can be opened from here on."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("opened although the verification needs no bucket and no DB")

    monkeypatch.setattr("vba_assets.objectstore.client.ObjectStore.__init__", refuse)
    monkeypatch.setattr("resources.world_db.WorldDatabase.from_config", refuse)


def test_export_verifies_without_the_bucket_and_the_db(
    ran: tuple[ObjectStore, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _bucket, project = ran
    code, report = _verify(capsys, "--project-config", str(project), "--case-id", CASE)
    assert code == 0 and report["ok"] is True, report
    dest = tmp_path / "exported"
    assert main(["export", "--project-config", str(project), "--to", str(dest)]) == 0
    working_copy = tmp_path / "host-a" / "cases" / CASE
    for path in working_copy.rglob("*"):  # the same bytes as the writer's own copy
        relpath = path.relative_to(working_copy)
        if path.is_file() and not any(part.startswith(".") for part in relpath.parts):
            assert (dest / "cases" / CASE / relpath).read_bytes() == path.read_bytes(), relpath
    _offline(monkeypatch)
    code, report = _verify(capsys, "--workspace", str(dest))
    assert code == 0 and report["ok"] is True, report
    [case] = report["cases"]
    assert [r["revision"] for r in case["revisions"]] == ["0001"]


@pytest.mark.parametrize(
    ("relpath", "code"),
    [
        (f"{REVISION}/interpretation.json", None),  # any finding: its hash is recorded elsewhere
        (f"{REVISION}/.events/00000002", "PACKAGE_EVENTS_INVALID"),
    ],
)
def test_one_tampered_object_in_the_bucket_is_found(
    ran: tuple[ObjectStore, Path],
    capsys: pytest.CaptureFixture[str],
    relpath: str,
    code: str | None,
) -> None:
    bucket, project = ran
    key = f"cases/{CASE}/{relpath}"
    fetched = bucket.get(key)
    assert fetched is not None
    original = fetched.data
    tampered = original.replace(b'"', b"'", 1) if code else _edit_json(original)
    assert tampered != original
    bucket.put_overwriting(key, tampered)
    exit_code, report = _verify(capsys, "--project-config", str(project), "--case-id", CASE)
    assert exit_code == 5 and report["ok"] is False
    [case] = report["cases"]
    findings = [*case["findings"], *(f for r in case["revisions"] for f in r["findings"])]
    errors = [f for f in findings if f.get("severity", "error") == "error"]
    target = relpath.replace(".events/00000002", "events.jsonl")
    named = {f.get("artifact") for f in errors}
    assert target in named, errors
    assert named <= {target, None}, errors  # nothing else is blamed
    if code:
        assert code in {f["code"] for f in errors}
    bucket.put_overwriting(key, original)  # put back: clean again
    assert _verify(capsys, "--project-config", str(project), "--case-id", CASE)[0] == 0


def _edit_json(data: bytes) -> bytes:
    """Still canonical JSON, one value changed: only the package's hashes can tell."""
    document = json.loads(data)
    document["tampered"] = True
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def test_import_package_into_another_bucket_verifies_on_arrival(
    ran: tuple[ObjectStore, Path],
    moto_endpoint: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bucket, project = ran
    dest = tmp_path / "exported"
    assert main(["export", "--project-config", str(project), "--to", str(dest)]) == 0
    other = new_bucket(moto_endpoint)
    other_project = project_file(tmp_path, tmp_path / "host-b", other)
    package = str(dest / "cases" / CASE)
    capsys.readouterr()
    assert main(["import-package", "--project-config", str(other_project), package]) == 0
    assert "already there" in capsys.readouterr().out
    names = {info.name for info in bucket.list("") if "/.lease/" not in info.name}
    assert {info.name for info in other.list("")} == names - {
        n for n in names if "import-locks" in n
    }
    for name in names:  # object for object, the same bytes
        if "import-locks" not in name:
            assert other.get(name).data == bucket.get(name).data  # type: ignore[union-attr]
    # a second import sends nothing new
    capsys.readouterr()
    assert main(["import-package", "--project-config", str(other_project), package]) == 0
    assert " 0 copied" in capsys.readouterr().out


def test_import_package_refuses_a_package_that_does_not_verify(
    ran: tuple[ObjectStore, Path],
    moto_endpoint: str,
    tmp_path: Path,
) -> None:
    _bucket, project = ran
    dest = tmp_path / "exported"
    assert main(["export", "--project-config", str(project), "--to", str(dest)]) == 0
    target = dest / "cases" / CASE / REVISION / "interpretation.json"
    target.chmod(0o644)
    target.write_bytes(_edit_json(target.read_bytes()))
    other = new_bucket(moto_endpoint)
    other_project = project_file(tmp_path, tmp_path / "host-b", other)
    package = str(dest / "cases" / CASE)
    assert main(["import-package", "--project-config", str(other_project), package]) == 5
    assert other.list("") == []  # nothing was sent


def test_export_and_import_need_a_bucket(tmp_path: Path) -> None:
    local = project_file(tmp_path, tmp_path / "local")
    assert main(["export", "--project-config", str(local), "--to", str(tmp_path / "x")]) == 3
    shutil.rmtree(tmp_path / "x", ignore_errors=True)
