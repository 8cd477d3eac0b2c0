"""The imported files: ``package.json``, the raw report files it lists and ``case.json``, and
which revision folder (if any) a path of the package belongs to."""

import re

from vba_assets.domain.case.ids import validate_revision
from vba_assets.domain.findings import Finding
from vba_assets.errors import ErrorCode, InputError
from vba_assets.pipeline.integrity.ledger import Ledger, safely
from vba_assets.pipeline.integrity.versions import account_versions
from vba_assets.store import CasePackage
from vba_assets.store.layout import (
    CASE_JSON,
    INTERPRETATIONS_DIR,
    PACKAGE_JSON,
    REPORT_DIR,
    REPORTS_DIR,
)


def account_package(package: CasePackage) -> list[Finding]:
    """``package.json``, the raw report files and ``case.json``; files outside any revision that
    nothing vouches for."""
    ledger = Ledger(package)
    files = package.list_dir("", recursive=True)
    safely(ledger, PACKAGE_JSON, lambda: _account_import(ledger, files))
    safely(ledger, REPORTS_DIR, lambda: account_versions(ledger, files))
    for relpath in files:
        if relpath in ledger.accounted or revision_of(relpath) is not None:
            continue
        if _write_back_record(ledger, relpath):
            continue
        ledger.add(
            ErrorCode.PACKAGE_UNREFERENCED_FILE,
            relpath,
            "no record of the package accounts for this file (package.json lists the imported "
            "files, reports/<VVVV>/version.json those of a later report version; revisions live "
            "in analysis/interpretations/<NNNN>/)",
        )
    return ledger.findings


#: ``write-back/<revision>/<NNNN>.json``: a tracker comment's record (vba_assets.tracker.write_back),
#: outside every revision's hashed content.
_WRITE_BACK = re.compile(r"write-back/[0-9]{4}/[0-9]{4}\.json")


def _write_back_record(ledger: Ledger, relpath: str) -> bool:
    """A write-back record accounts for itself: a JSON object of this case and its revision."""
    if not _WRITE_BACK.fullmatch(relpath):
        return False
    record = ledger.json(relpath, "a write-back record")
    revision = relpath.split("/")[1]
    if not isinstance(record, dict) or (record.get("case_id"), record.get("revision")) != (
        ledger.package.case_id,
        revision,
    ):
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            relpath,
            f"is not the write-back record of {ledger.package.case_id} revision {revision}",
        )
    return True


def _account_import(ledger: Ledger, files: list[str]) -> None:
    package = ledger.package
    if not files:
        return
    ledger.accounted.add(PACKAGE_JSON)
    record = ledger.json(PACKAGE_JSON, "the import record")
    if not isinstance(record, dict):
        if record is not None:
            ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, PACKAGE_JSON, "is not a JSON object")
        return
    if record.get("case_id") != package.case_id:
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            PACKAGE_JSON,
            f"records case {record.get('case_id')!r}, but the package is {package.case_id}",
        )
    imported = (
        record.get("import", {}).get("files") if isinstance(record.get("import"), dict) else None
    )
    if not isinstance(imported, list):
        ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, PACKAGE_JSON, "has no import.files list")
        imported = []
    for entry in imported:
        relpath = entry.get("relpath") if isinstance(entry, dict) else None
        if not isinstance(relpath, str) or not relpath.startswith(f"{REPORT_DIR}/"):
            ledger.add(
                ErrorCode.PACKAGE_ARTIFACT_INVALID,
                PACKAGE_JSON,
                f"import.files holds an entry that is not a report file: {entry!r}",
            )
            continue
        ledger.accounted.add(relpath)
        actual = ledger.sha(relpath)
        if actual is None:
            ledger.add(ErrorCode.PACKAGE_FILE_MISSING, relpath, "package.json lists it")
        elif actual != entry.get("sha256") or package.path(relpath).stat().st_size != entry.get(
            "size"
        ):
            ledger.add(
                ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
                relpath,
                f"package.json records sha256 {entry.get('sha256')} ({entry.get('size')} bytes), "
                f"the file has {actual}: the raw report was changed after its import",
            )
    ledger.accounted.add(CASE_JSON)
    case_sha = ledger.sha(CASE_JSON)
    if case_sha is None:
        ledger.add(ErrorCode.PACKAGE_FILE_MISSING, CASE_JSON, "the case built at import is missing")
    elif case_sha != record.get("case_json_sha256"):
        ledger.add(
            ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
            CASE_JSON,
            f"package.json records case.json sha256 {record.get('case_json_sha256')}, the file "
            f"has {case_sha}",
        )


def revision_of(relpath: str) -> str | None:
    """The revision a package path belongs to (``analysis/interpretations/<NNNN>/...``)."""
    prefix = f"{INTERPRETATIONS_DIR}/"
    if not relpath.startswith(prefix):
        return None
    name = relpath.removeprefix(prefix).split("/", 1)
    if len(name) < 2:
        return None
    try:
        return validate_revision(name[0])
    except InputError:
        return None


def revision_folders(package: CasePackage) -> list[str]:
    """Every revision folder that holds a file (started or not, with or without a log)."""
    found = {revision_of(relpath) for relpath in package.list_dir("", recursive=True)}
    return sorted(revision for revision in found if revision is not None)
