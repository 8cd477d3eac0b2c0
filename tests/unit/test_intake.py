"""Importing reports into real workspaces: artifacts, determinism, re-imports, inbox, samples."""

import csv
import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from vba_assets.domain.case.builder import build_case
from vba_assets.domain.case.report import admit
from vba_assets.errors import ErrorCode, InputError
from vba_assets.intake import (
    ImportResult,
    InboxRejection,
    import_inbox,
    import_report,
    read_report,
)
from vba_assets.samples import sample_report_path, sample_report_paths
from vba_assets.store import Workspace, canonical_bytes, sha256_hex
from vba_assets.worlddata.packaged import packaged_data_dir

#: Reference rows the tests need, shipped with them (not ../shared, which a fresh clone lacks).
REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "reference"

REPORT: dict[str, Any] = {
    "case_id": "BUG-000300",
    "title": "Wild Wolpertinger not visible",
    "body": "Goldark Snipehunter gave me the net.\r\nNo Wild Wolpertinger anywhere.",
    "reported_at": "2026-09-24T21:47:12+02:00",
    "reporter": "Thalindra",
    "attachments": [
        {"name": "quest text", "kind": "quest_text", "file": "quest.txt"},
        {"name": "screenshot", "kind": "screenshot", "file": "shots/hills.png"},
        {"name": "note", "kind": "other", "text": "drunk and with goggles"},
    ],
}
FILES = {"quest.txt": b"Catch the Wild Wolpertinger!\r\n", "shots/hills.png": b"\x89PNG\r\n\x1a\n"}


def write_report(
    folder: Path, report: dict[str, Any] = REPORT, files: dict[str, bytes] = FILES
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.json").write_bytes(json.dumps(report, indent=1).encode("utf-8"))
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_import_writes_raw_report_case_and_package(tmp_path: Path) -> None:
    folder = write_report(tmp_path / "BUG-000300")
    workspace = Workspace(tmp_path / "ws")
    result = import_report(workspace, folder)
    assert (result.case_id, result.package_id, result.created) == (
        "BUG-000300",
        "pkg-BUG-000300",
        True,
    )
    assert result.unreadable_sources == ("S4",)
    package = workspace.case("BUG-000300")
    files = tree(package.root)
    assert set(files) == {
        "report/report.json",
        "report/quest.txt",
        "report/shots/hills.png",
        "case.json",
        "package.json",
    }
    assert files["report/report.json"] == (folder / "report.json").read_bytes()
    assert files["report/quest.txt"] == FILES["quest.txt"]  # raw, CRLF kept
    assert sha256_hex(files["case.json"]) == result.case_json_sha256
    case = package.read_json("case.json")
    assert case["sources"][2]["text"] == "Catch the Wild Wolpertinger!\n"
    record = package.read_json("package.json")
    assert record == {
        "schema_version": 1,
        "package_id": "pkg-BUG-000300",
        "case_id": "BUG-000300",
        "import": {
            "source_name": "BUG-000300",
            "files": [
                {"relpath": f"report/{name}", "sha256": sha256_hex(data), "size": len(data)}
                for name, data in [("report.json", files["report/report.json"]), *FILES.items()]
            ],
        },
        "admission": {
            "status": "admitted",
            "unreadable_sources": [
                {"alias": "S4", "kind": "screenshot", "name": "screenshot", "reason": "binary_kind"}
            ],
        },
        "case_json_sha256": result.case_json_sha256,
    }
    assert files["package.json"] == canonical_bytes(record)


def test_same_report_gives_byte_identical_packages_anywhere(tmp_path: Path) -> None:
    original = write_report(tmp_path / "a" / "BUG-000300")
    copy = tmp_path / "elsewhere" / "deeper" / "BUG-000300"
    shutil.copytree(original, copy)
    first = Workspace(tmp_path / "ws1")
    second = Workspace(tmp_path / "other" / "ws2")
    import_report(first, original)
    import_report(second, copy, package_id=None)
    assert tree(first.case("BUG-000300").root) == tree(second.case("BUG-000300").root)


def test_file_form_and_folder_form_give_the_same_case(tmp_path: Path) -> None:
    report = {**REPORT, "attachments": REPORT["attachments"][2:]}
    folder = write_report(tmp_path / "folder", report, {})
    single = tmp_path / "single" / "BUG-000300.json"
    single.parent.mkdir()
    shutil.copy(folder / "report.json", single)
    from_folder = import_report(Workspace(tmp_path / "ws1"), folder)
    from_file = import_report(Workspace(tmp_path / "ws2"), single)
    assert from_folder.case_json_sha256 == from_file.case_json_sha256
    package = Workspace(tmp_path / "ws2").case("BUG-000300")
    assert package.exists("report/BUG-000300.json")
    assert package.read_json("package.json")["import"]["source_name"] == "BUG-000300.json"


def test_identical_reimport_is_a_no_op(tmp_path: Path) -> None:
    folder = write_report(tmp_path / "BUG-000300")
    workspace = Workspace(tmp_path / "ws")
    first = import_report(workspace, folder)
    before = tree(workspace.root)
    mtimes = {p: p.stat().st_mtime_ns for p in workspace.root.rglob("*")}
    again = import_report(workspace, folder)
    assert not again.created
    assert again.case_json_sha256 == first.case_json_sha256
    assert again.unreadable_sources == first.unreadable_sources
    assert tree(workspace.root) == before
    assert {p: p.stat().st_mtime_ns for p in workspace.root.rglob("*")} == mtimes


def test_conflicting_reimport_is_rejected_and_original_untouched(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, write_report(tmp_path / "v1"))
    before = tree(workspace.root)
    changed = write_report(tmp_path / "v2", {**REPORT, "body": "Actually it works now."})
    with pytest.raises(InputError) as caught:
        import_report(workspace, changed)
    assert caught.value.code is ErrorCode.CASE_ALREADY_IMPORTED
    assert "BUG-000300" in caught.value.message
    assert tree(workspace.root) == before


def test_changed_attachment_bytes_conflict(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, write_report(tmp_path / "v1"))
    before = tree(workspace.root)
    # Same normalized text, different raw bytes (LF instead of CRLF): still a different report.
    files = {**FILES, "quest.txt": b"Catch the Wild Wolpertinger!\n"}
    with pytest.raises(InputError) as caught:
        import_report(workspace, write_report(tmp_path / "v2", REPORT, files))
    assert caught.value.code is ErrorCode.CASE_ALREADY_IMPORTED
    assert tree(workspace.root) == before


def test_identical_report_under_another_package_id_is_rejected(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    folder = write_report(tmp_path / "BUG-000300")
    import_report(workspace, folder, package_id="trial-BUG-000300")
    before = tree(workspace.root)
    with pytest.raises(InputError) as caught:
        import_report(workspace, folder)
    assert caught.value.code is ErrorCode.CASE_ALREADY_IMPORTED
    assert "trial-BUG-000300" in caught.value.message
    assert tree(workspace.root) == before
    assert not import_report(workspace, folder, package_id="trial-BUG-000300").created


def test_unfinished_import_is_completed_by_the_same_report_only(tmp_path: Path) -> None:
    folder = write_report(tmp_path / "BUG-000300")
    workspace = Workspace(tmp_path / "ws")
    package = workspace.case("BUG-000300")
    # A crash after the raw files: report/ written, no case.json, no package.json.
    package.write_bytes("report/report.json", (folder / "report.json").read_bytes())
    other = write_report(tmp_path / "other", {**REPORT, "title": "different"})
    with pytest.raises(InputError) as caught:
        import_report(workspace, other)
    assert caught.value.code is ErrorCode.CASE_ALREADY_IMPORTED
    assert not package.exists("case.json")
    result = import_report(workspace, folder)
    assert result.created and package.exists("package.json")


def test_inbox_imports_good_reports_and_reports_bad_ones(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    inbox = workspace.inbox_dir
    write_report(inbox / "a-good-folder")
    inbox.joinpath("b-good-file.json").write_text(
        json.dumps({**REPORT, "case_id": "BUG-000301", "attachments": []})
    )
    inbox.joinpath("c-broken.json").write_text('{"case_id": ')
    inbox.joinpath("d-naive.json").write_text(
        json.dumps(
            {
                **REPORT,
                "case_id": "BUG-000302",
                "reported_at": "2026-09-24T21:47:12",
                "attachments": [],
            }
        )
    )
    (inbox / "e-no-report-folder").mkdir()
    inbox.joinpath("f-notes.txt").write_text("not a report")
    inbox.joinpath(".partial.json").write_text("{")

    outcomes = import_inbox(workspace)
    summary = [
        (o.source_name, o.case_id if isinstance(o, ImportResult) else o.code) for o in outcomes
    ]
    assert summary == [
        ("a-good-folder", "BUG-000300"),
        ("b-good-file.json", "BUG-000301"),
        ("c-broken.json", ErrorCode.REPORT_MALFORMED),
        ("d-naive.json", ErrorCode.REPORT_INVALID_FIELD),
        ("e-no-report-folder", ErrorCode.REPORT_UNREADABLE),
    ]
    rejection = outcomes[3]
    assert isinstance(rejection, InboxRejection) and "reported_at" in str(rejection)
    assert workspace.case_ids() == ["BUG-000300", "BUG-000301"]

    # A second scan: imported reports are skipped quietly, the bad ones are reported again.
    again = import_inbox(workspace)
    assert [o.source_name for o in again] == ["c-broken.json", "d-naive.json", "e-no-report-folder"]
    unchanged = [
        o for o in import_inbox(workspace, include_unchanged=True) if isinstance(o, ImportResult)
    ]
    assert [(o.case_id, o.created) for o in unchanged] == [
        ("BUG-000300", False),
        ("BUG-000301", False),
    ]
    assert inbox.joinpath("c-broken.json").exists()  # the inbox is never emptied


def test_inbox_reports_a_conflicting_report(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, write_report(tmp_path / "first"))
    write_report(workspace.inbox_dir / "again", {**REPORT, "body": "new text"})
    outcomes = import_inbox(workspace)
    assert len(outcomes) == 1 and isinstance(outcomes[0], InboxRejection)
    assert outcomes[0].code is ErrorCode.CASE_ALREADY_IMPORTED


def test_missing_inbox_is_empty(tmp_path: Path) -> None:
    assert import_inbox(Workspace(tmp_path / "ws")) == []


# -- samples ---------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", sample_report_paths(), ids=lambda path: path.name)
def test_every_sample_imports_cleanly(tmp_path: Path, folder: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    result = import_report(workspace, folder)
    assert result.created and result.case_id == folder.name
    case = workspace.case(result.case_id).read_json("case.json")
    assert case["reported_at"].startswith("2026-")
    readable = [s for s in case["sources"] if s["readable"] and s["text"]]
    assert readable and all(not s["format_controls"] for s in case["sources"])
    assert not import_report(workspace, folder).created


def test_the_required_samples_exist() -> None:
    assert len(sample_report_paths()) >= 6

    def case_of(case_id: str) -> dict[str, Any]:
        submitted = read_report(sample_report_path(case_id))
        return build_case(admit(submitted.document, submitted.files)).to_json()

    brewfest = case_of("BUG-000020")
    texts = "\n".join(s["text"] or "" for s in brewfest["sources"])
    assert "Goldark Snipehunter" in texts and "Wild Wolpertinger" in texts
    quest = next(s for s in brewfest["sources"] if s["kind"] == "quest_text")
    real = _quest_11117()
    for field in ("LogTitle", "LogDescription"):
        assert real[field] in quest["text"]
    assert real["QuestDescription"].replace("$b", "\n") in quest["text"]
    assert any(not s["readable"] for s in brewfest["sources"])

    german = "\n".join(s["text"] or "" for s in case_of("BUG-000021")["sources"])
    assert "Goldark Spatzenjäger" in german and "Wilder Wolpertinger" in german  # NFC matches
    assert "Lieutenant Icehammer" in case_of("BUG-000022")["sources"][1]["text"]
    assert any(s["kind"] == "chat_log" for s in case_of("BUG-000025")["sources"])
    assert "Glodrak Huntsnipper" in case_of("BUG-000024")["sources"][1]["text"]


def test_sample_names_exist_in_the_reference_data_and_no_ids_leak() -> None:
    names = _catalog_names()
    used = [
        "Goldark Snipehunter",
        "Wild Wolpertinger",
        "Goldark Spatzenjäger",
        "Wilder Wolpertinger",
        "Lieutenant Icehammer",
        "Harpoon Master Yavus",
        "Glodrak Huntsniper",
        "Elwynn Pink Elekk",
        "Azuremyst Pink Elekk",
        "Teldrassil Pink Elekk",
        "Illidan Stormrage",
    ]
    assert [name for name in used if name not in names] == []
    assert "Glodrak Huntsnipper" not in names  # the misspelling really is one
    ids = ("23486", "23487", "24657", "22943", "24634", "24665", "24644", "22917", "23467")
    for folder in sample_report_paths():
        for path in folder.rglob("*"):
            if path.is_file() and path.suffix in {".json", ".txt"}:
                text = path.read_text(encoding="utf-8")
                assert not [i for i in ids if i in text], path


def _quest_11117() -> dict[str, str]:
    """The quest row, shipped with the tests (tests/fixtures/reference/README.md)."""
    path = REFERENCE / "quest_template_11117.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        return next(row for row in csv.DictReader(handle) if row["ID"] == "11117")


def _catalog_names() -> set[str]:
    """Every creature name and localized name of the packaged catalog (derived from the
    reference data, shipped in the package)."""
    names: set[str] = set()
    for table, column in (("creature_template", "name"), ("creature_template_locale", "Name")):
        with gzip.open(packaged_data_dir() / f"{table}.csv.gz", "rt", encoding="utf-8") as handle:
            names.update(row[column] for row in csv.DictReader(handle))
    return names
