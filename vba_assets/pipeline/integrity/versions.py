"""The report versions after the first: ``reports/<VVVV>/`` (:mod:`vba_assets.store.versions`).

Each ``version.json`` lists its raw report files (sha256 and size) and the sha256 of its
``case.json``, and names the record before it (``previous``: version, record sha256, case.json
sha256; ``package.json`` for ``0002``): a hash chain, so an edited, removed, swapped or injected
version is a finding. Versions are numbered without a gap from ``0002``; a folder without its
``version.json`` is an unfinished import (the next import of the case replaces it).
"""

from vba_assets.errors import ErrorCode
from vba_assets.pipeline.integrity.ledger import Ledger
from vba_assets.store.layout import (
    FIRST_REPORT_VERSION,
    REPORT_DIR,
    REPORTS_DIR,
    VERSION_FILE,
    case_json,
    version_dir,
    version_record,
)
from vba_assets.store.versions import is_version_name


def account_versions(ledger: Ledger, files: list[str]) -> None:
    """Every file under ``reports/`` accounted for by its version's record, and the chain."""
    folders = sorted({relpath.split("/")[1] for relpath in files if _in_reports(relpath)})
    expected = int(FIRST_REPORT_VERSION) + 1
    for name in folders:
        if not is_version_name(name):
            continue  # its files stay unreferenced
        relpath = f"{REPORTS_DIR}/{name}/{VERSION_FILE}"
        if relpath not in files:
            ledger.add(
                ErrorCode.PACKAGE_FILE_MISSING,
                relpath,
                f"report version {name} has files but no record: an unfinished import (the next "
                "import of the case replaces it)",
            )
            continue
        if int(name) != expected:
            ledger.add(
                ErrorCode.PACKAGE_FILE_MISSING,
                version_record(f"{expected:04d}"),
                f"report version {name} exists, but version {expected:04d} before it does not",
            )
        _account_version(ledger, name)
        expected = int(name) + 1


def _account_version(ledger: Ledger, version: str) -> None:
    relpath = version_record(version)
    ledger.accounted.add(relpath)
    record = ledger.json(relpath, "the report version record")
    if not isinstance(record, dict):
        if record is not None:
            ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, relpath, "is not a JSON object")
        return
    package = ledger.package
    if record.get("case_id") != package.case_id or record.get("version") != version:
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            relpath,
            f"records case {record.get('case_id')!r} version {record.get('version')!r}, but it "
            f"is version {version} of {package.case_id}",
        )
    entries = record.get("files")
    if not isinstance(entries, list):
        ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, relpath, "has no files list")
        entries = []
    report_dir = f"{version_dir(version)}/{REPORT_DIR}/"
    for entry in entries:
        name = entry.get("relpath") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.startswith(report_dir):
            ledger.add(
                ErrorCode.PACKAGE_ARTIFACT_INVALID,
                relpath,
                f"files holds an entry that is not a report file of the version: {entry!r}",
            )
            continue
        _bound(ledger, relpath, name, entry.get("sha256"), entry.get("size"))
    _bound(ledger, relpath, case_json(version), record.get("case_json_sha256"), None)
    _account_previous(ledger, version, record.get("previous"))


def _account_previous(ledger: Ledger, version: str, previous: object) -> None:
    relpath = version_record(version)
    before = f"{int(version) - 1:04d}"
    if not isinstance(previous, dict) or previous.get("version") != before:
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            relpath,
            f"previous must name version {before}, not {previous!r}",
        )
        return
    for key, path in (("record_sha256", version_record(before)), ("case_json_sha256", None)):
        path = path or case_json(before)
        actual = ledger.sha(path)
        if actual is not None and previous.get(key) != actual:
            ledger.add(
                ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
                path,
                f"{relpath} records previous {key} {previous.get(key)}, the file has {actual}: "
                "the version before it was changed or swapped",
            )


def _bound(ledger: Ledger, record: str, relpath: str, sha: object, size: object) -> None:
    ledger.accounted.add(relpath)
    actual = ledger.sha(relpath)
    if actual is None:
        ledger.add(ErrorCode.PACKAGE_FILE_MISSING, relpath, f"{record} lists it")
        return
    if actual != sha or (size is not None and ledger.package.path(relpath).stat().st_size != size):
        ledger.add(
            ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
            relpath,
            f"{record} records sha256 {sha}, the file has {actual}: it was changed after its import",
        )


def _in_reports(relpath: str) -> bool:
    parts = relpath.split("/")
    return len(parts) > 2 and parts[0] == REPORTS_DIR


__all__ = ["account_versions"]
