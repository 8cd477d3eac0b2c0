"""Importing reports into case packages (ARCHITECTURE 4 and 5): the IO around admission.

A report is either a JSON file or a folder holding ``report.json``; attachment files are named
relative to the report's folder and must stay inside it (symlinks are resolved). The import reads
everything, admits it (:mod:`vba_assets.domain.case.report`), builds the case
(:mod:`vba_assets.domain.case.builder`) and only then writes, in this order:

1. ``report/<file name>`` and ``report/<attachment path>``: the raw bytes, never changed;
2. ``case.json``: the canonical CaseBuilder output;
3. ``package.json``: the import record, written last, so its presence marks a complete import.

``package.json`` holds no wall-clock time, so importing the same report again is a byte-identical
no-op. For an imported case, :mod:`vba_assets.intake_versions` decides: an edited report of the
same tracker issue becomes a new report version and revision (``revised``), the same content
(labels or ``updated_at`` aside) is ``unchanged``, and any other report (or another package id)
is refused with ``CASE_ALREADY_IMPORTED`` before anything is written. The writes happen under the
case's import lock (:meth:`~vba_assets.store.package.CasePackage.import_lock`): two imports of
one case id at once are serialized, so the second always sees the first's complete import (the
same report: a no-op; another: ``CASE_ALREADY_IMPORTED`` or a new version), and temp files of a
killed import are removed.

Refused before anything is written, besides admission's own rules: a ``reported_at`` more than
the tolerance (:data:`DEFAULT_FUTURE_TOLERANCE`, one day, or ``VBA_REPORTED_AT_TOLERANCE_S``) after
the import time (``REPORT_FROM_THE_FUTURE``: it would anchor every relative date of the case), and
a report whose file name is not valid UTF-8 (``REPORT_NOT_UTF8``; in the inbox it is refused
alone, every other entry is still imported).
"""

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from vba_assets.domain.case.builder import Case, build_case
from vba_assets.domain.case.ids import default_package_id, validate_package_id
from vba_assets.domain.case.report import (
    MAX_REPORT_JSON_BYTES,
    MAX_TOTAL_BYTES,
    ReportDocument,
    admit,
    parse_report_json,
)
from vba_assets.domain.case.text import reject, validate_relative_path
from vba_assets.errors import ConfigError, ErrorCode, InputError, VbaError
from vba_assets.intake_versions import (
    ImportResult,
    ImportStatus,
    admission_record,
    existing_import,
    import_version,
)
from vba_assets.report_files import decodable, printable, read_confined
from vba_assets.store import CasePackage, Workspace, canonical_bytes, sha256_hex

REPORT_FILE = "report.json"
REPORT_DIR = "report"
CASE_FILE = "case.json"
PACKAGE_FILE = "package.json"
PACKAGE_SCHEMA_VERSION = 1
#: How far after the import time a ``reported_at`` may lie (a reporter's clock a little fast).
DEFAULT_FUTURE_TOLERANCE = timedelta(days=1)
#: Overrides the tolerance, in seconds (e.g. for a server whose reports come from far time zones).
FUTURE_TOLERANCE_ENV = "VBA_REPORTED_AT_TOLERANCE_S"
#: How long an import waits for another import of the same case id to finish.
IMPORT_LOCK_WAIT_S = 30.0

__all__ = ["ImportResult", "ImportStatus", "InboxRejection", "import_report", "import_submitted"]


@dataclass(frozen=True)
class InboxRejection:
    """An inbox entry that was not imported, and why.

    ``source_name`` is printable UTF-8 (an undecodable file name is shown with ``\\xNN``
    escapes), so it is safe in a log line, a cursor or a Dagster event; ``entry`` is the entry
    itself (the path to move aside), when there is one.
    """

    source_name: str
    code: ErrorCode
    message: str
    entry: Path | None = None

    def __str__(self) -> str:
        return f"{self.source_name}: rejected ({self.code.value}): {self.message}"


@dataclass(frozen=True)
class SubmittedReport:
    """What was read from disk: the report JSON and every attachment file it references."""

    source_name: str
    report_file_name: str
    document: ReportDocument
    files: dict[str, bytes]


def read_report(report_path: Path) -> SubmittedReport:
    """Read and parse a report file or folder (nothing is written).

    Raises:
        InputError: ``REPORT_UNREADABLE`` for a missing or unreadable path, the admission codes
            for a bad ``report.json``, ``REPORT_INVALID_FIELD`` for an attachment path that
            escapes the report's folder.
    """
    if not decodable(report_path.name):
        reject(
            ErrorCode.REPORT_NOT_UTF8,
            "report",
            f"the file name {printable(report_path.name)!r} is not valid UTF-8; rename it",
        )
    real_path = Path(os.path.realpath(report_path))
    if real_path.is_dir():
        folder, report_file_name = real_path, REPORT_FILE
    elif real_path.is_file():
        folder, report_file_name = real_path.parent, real_path.name
        validate_relative_path(report_file_name, "report file name")
    else:
        reject(ErrorCode.REPORT_UNREADABLE, "report", f"{report_path.name!r} does not exist")
    source_name = real_path.name
    data = read_confined(folder / report_file_name, folder, "report.json", MAX_REPORT_JSON_BYTES)
    document = parse_report_json(data)
    files: dict[str, bytes] = {}
    budget = MAX_TOTAL_BYTES - len(data)
    for spec in document.attachments:
        if spec.file is None or spec.file in files:
            continue
        path = folder.joinpath(*spec.file.split("/"))
        if not os.path.lexists(path):
            continue  # admission reports the missing file, naming the attachment
        content = read_confined(path, folder, f"{spec.field}.file", budget)
        budget -= len(content)
        files[spec.file] = content
    return SubmittedReport(source_name, report_file_name, document, files)


def import_report(
    workspace: Workspace,
    report_path: Path,
    package_id: str | None = None,
    *,
    future_tolerance: timedelta | None = None,
) -> ImportResult:
    """Admit a report and write its case package (see the module docstring for the order).

    Args:
        workspace: where ``cases/<case id>/`` goes; its clock is the import time.
        report_path: a report JSON file, or a folder containing ``report.json``.
        package_id: defaults to ``default_package_id(case_id)``.
        future_tolerance: how far after the import time ``reported_at`` may lie (default:
            :func:`future_tolerance_default`).

    Raises:
        InputError: the report is refused (nothing written), ``REPORT_FROM_THE_FUTURE``, or
            ``CASE_ALREADY_IMPORTED``.
    """
    submitted = read_report(Path(report_path))
    return import_submitted(workspace, submitted, package_id, future_tolerance=future_tolerance)


def import_report_json(
    workspace: Workspace,
    report_json: bytes,
    source_name: str,
    *,
    future_tolerance: timedelta | None = None,
) -> ImportResult:
    """Import a report given as the bytes of its ``report.json`` (no attachment files: inline
    text and ``url`` attachments only), e.g. one mapped from a tracker issue. It is kept as
    ``report/report.json``; ``source_name`` is recorded as the import's source. Raises as
    :func:`import_report`."""
    document = parse_report_json(report_json)
    submitted = SubmittedReport(source_name, REPORT_FILE, document, {})
    return import_submitted(workspace, submitted, None, future_tolerance=future_tolerance)


def import_submitted(
    workspace: Workspace,
    submitted: SubmittedReport,
    package_id: str | None = None,
    *,
    future_tolerance: timedelta | None = None,
) -> ImportResult:
    """Admit a report already read (:func:`read_report`) and write its case package."""
    admitted = admit(submitted.document, submitted.files, submitted.report_file_name)
    _refuse_future(submitted.document, workspace.clock(), future_tolerance)
    case = build_case(admitted)
    case_id = case.case_id
    package_id = validate_package_id(package_id) if package_id else default_package_id(case_id)
    case_bytes = canonical_bytes(case.to_json())
    case_sha = sha256_hex(case_bytes)
    raw_files = [(f"{REPORT_DIR}/{submitted.report_file_name}", submitted.document.raw)]
    raw_files += [(f"{REPORT_DIR}/{relpath}", data) for relpath, data in admitted.files]
    record = package_record(case, package_id, submitted.source_name, raw_files, case_sha)
    package = workspace.case(case_id)
    existing = existing_import(package, case, case_sha, package_id)  # a re-import touches nothing
    if existing is not None:
        return existing
    with package.import_lock(wait_s=IMPORT_LOCK_WAIT_S):
        if package.exists(PACKAGE_FILE):  # an existing case: the version policy decides
            return import_version(package, case, case_bytes, submitted.source_name, raw_files)
        planned = [*raw_files, (CASE_FILE, case_bytes), (PACKAGE_FILE, canonical_bytes(record))]
        _refuse_partial_conflict(package, planned)
        created = False
        for relpath, data in planned:
            created = package.write_bytes(relpath, data).created or created
    return ImportResult(
        case_id=case_id,
        package_id=package_id,
        case_json_sha256=case_sha,
        created=created,
        source_name=submitted.source_name,
        unreadable_sources=tuple(source.alias for source in case.unreadable_sources),
        status="imported" if created else "unchanged",
    )


def package_record(
    case: Case,
    package_id: str,
    source_name: str,
    raw_files: list[tuple[str, bytes]],
    case_sha: str,
) -> dict[str, Any]:
    """The content of ``package.json`` (no clock, no absolute path)."""
    return {
        "schema_version": PACKAGE_SCHEMA_VERSION,
        "package_id": package_id,
        "case_id": case.case_id,
        "import": {
            "source_name": source_name,
            "files": [
                {"relpath": relpath, "sha256": sha256_hex(data), "size": len(data)}
                for relpath, data in raw_files
            ],
        },
        "admission": admission_record(case),
        "case_json_sha256": case_sha,
    }


def import_inbox(
    workspace: Workspace,
    include_unchanged: bool = False,
    *,
    future_tolerance: timedelta | None = None,
) -> list[ImportResult | InboxRejection]:
    """Import every report in ``<workspace>/inbox/`` (``*.json`` files and report folders).

    Entries are taken in name order; hidden entries and other files (attachments of a JSON
    report) are ignored. A bad report becomes an :class:`InboxRejection` and the others still
    import. Reports already imported unchanged are left out unless ``include_unchanged``.
    Inbox files are never moved or deleted.
    """
    inbox = workspace.inbox_dir
    if not inbox.is_dir():
        return []
    outcomes: list[ImportResult | InboxRejection] = []
    for entry in sorted(inbox.iterdir(), key=lambda path: path.name):
        if entry.name.startswith("."):
            continue
        if not decodable(entry.name):  # refused alone: never written, logged or hashed as is
            outcomes.append(
                InboxRejection(
                    printable(entry.name),
                    ErrorCode.REPORT_NOT_UTF8,
                    "the file name is not valid UTF-8; rename it to import the report",
                    entry,
                )
            )
            continue
        if entry.is_dir():
            if not (entry / REPORT_FILE).is_file():
                outcomes.append(
                    InboxRejection(
                        entry.name,
                        ErrorCode.REPORT_UNREADABLE,
                        f"folder has no {REPORT_FILE}",
                        entry,
                    )
                )
                continue
        elif not (entry.is_file() and entry.suffix.lower() == ".json"):
            continue
        try:
            result = import_report(workspace, entry, future_tolerance=future_tolerance)
        except VbaError as error:
            outcomes.append(InboxRejection(entry.name, error.code, error.message, entry))
            continue
        if result.created or include_unchanged:
            outcomes.append(result)
    return outcomes


def _refuse_partial_conflict(package: CasePackage, planned: list[tuple[str, bytes]]) -> None:
    """An unfinished import (no package.json) may be completed only by the same report."""
    planned_paths = {relpath for relpath, _ in planned}
    leftovers = [
        relpath for relpath in package.list_dir(REPORT_DIR) if relpath not in planned_paths
    ]
    differing = [
        relpath
        for relpath, data in planned
        if package.exists(relpath) and package.read_bytes(relpath) != data
    ]
    if leftovers or differing:
        raise InputError(
            ErrorCode.CASE_ALREADY_IMPORTED,
            f"case {package.case_id} holds an unfinished import of a different report "
            f"({', '.join(sorted([*leftovers, *differing]))}); nothing was written",
            case_id=package.case_id,
            conflicting=sorted([*leftovers, *differing]),
        )


# --- times ------------------------------------------------------------------------------------------


def future_tolerance_default() -> timedelta:
    """:data:`DEFAULT_FUTURE_TOLERANCE`, or ``VBA_REPORTED_AT_TOLERANCE_S`` seconds when set."""
    value = os.environ.get(FUTURE_TOLERANCE_ENV, "").strip()
    if not value:
        return DEFAULT_FUTURE_TOLERANCE
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{FUTURE_TOLERANCE_ENV} must be a number of seconds >= 0, not {value!r}",
            key=FUTURE_TOLERANCE_ENV,
        )
    return timedelta(seconds=seconds)


def _refuse_future(document: ReportDocument, now: datetime, tolerance: timedelta | None) -> None:
    """``reported_at`` anchors every relative date of the case: one from the future is refused."""
    tolerance = future_tolerance_default() if tolerance is None else tolerance
    reported = datetime.fromisoformat(document.reported_at.utc)
    if reported > now + tolerance:
        reject(
            ErrorCode.REPORT_FROM_THE_FUTURE,
            "reported_at",
            f"{document.reported_at.utc} is {_duration(reported - now)} after the import time "
            f"(at most {_duration(tolerance)} is tolerated for a reporter's clock); a report "
            "from the future would anchor every relative date of the case. Fix the timestamp, "
            f"or raise the tolerance ({FUTURE_TOLERANCE_ENV}) if the clock is right",
            reported_at=document.reported_at.utc,
            import_time=now.isoformat(),
            tolerance_s=tolerance.total_seconds(),
        )


def _duration(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours / 24:.1f} days" if hours >= 48 else f"{hours:.1f} h"
