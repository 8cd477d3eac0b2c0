"""An edited tracker issue imported again: a new report version and a new revision (ARCHITECTURE 15).

:func:`decide` is the import policy for a case that exists (its ``package.json`` does):

1. the new ``case.json`` equals the latest version's: ``unchanged`` (today's idempotence);
2. not a report of the same tracker issue as the latest version (no ``source`` block, another
   tracker, repository or number): ``unchanged`` if it equals any version's ``case.json``,
   otherwise refused with ``CASE_ALREADY_IMPORTED``, as before versions existed;
3. the same issue with the same content (:func:`content_sha256`: ``case.json`` without its
   ``source`` block and raw-report hash, so only labels or ``updated_at`` changed): ``unchanged``;
4. the same issue, changed, but an older snapshot than the latest version (its ``updated_at`` is
   earlier: an old export imported after a sync): ``unchanged``, nothing written;
5. otherwise ``revise``: version N+1 is written by :func:`write_version`.

Writes (the caller holds the case's import lock): the version's raw report files and
``case.json`` under ``reports/<VVVV>/``, then (after a flush: durable first) its ``version.json``,
then the revision that freezes it (:meth:`~vba_assets.store.package.CasePackage.new_revision`).
A crash between the record and the revision is repaired by the next import of the case
(:func:`bind_latest`: the latest version must have a revision); files of a version whose record
was never written are not a version and are replaced by the next import.
"""

import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from vba_assets.domain.canonical import canonical_bytes, content_hash, sha256_hex
from vba_assets.domain.case.builder import Case
from vba_assets.errors import ErrorCode, InputError
from vba_assets.store import CasePackage
from vba_assets.store.atomic import fsync_dir
from vba_assets.store.layout import (
    CASE_JSON,
    FIRST_REPORT_VERSION,
    PACKAGE_JSON,
    REPORT_DIR,
    case_json,
    version_dir,
    version_record,
)
from vba_assets.store.versions import (
    VERSION_SCHEMA_VERSION,
    bound_versions,
    read_record,
    report_versions,
)

Decision = Literal["unchanged", "revise"]


@dataclass(frozen=True)
class VersionDecision:
    """What an import of an existing case does: nothing (``version`` is the one it equals, or
    the latest), or write version ``version``."""

    action: Decision
    version: str
    reason: str = ""


#: What an import did: a new case, a new report version with its revision, or nothing.
ImportStatus = Literal["imported", "revised", "unchanged"]


@dataclass(frozen=True)
class ImportResult:
    """The outcome of one import. ``created`` is False when nothing was written.

    ``status``: ``imported`` (a new case), ``revised`` (an edited tracker report of an existing
    case: report version ``report_version`` and the revision ``revision`` that freezes it) or
    ``unchanged``. ``report_version`` is the version the report equals or became.
    """

    case_id: str
    package_id: str
    case_json_sha256: str
    created: bool
    source_name: str
    unreadable_sources: tuple[str, ...] = ()
    status: ImportStatus = "imported"
    report_version: str = FIRST_REPORT_VERSION
    revision: str | None = None

    def __str__(self) -> str:
        state = {
            "imported": "imported",
            "revised": f"revised (report version {self.report_version}, revision {self.revision})",
            "unchanged": "already imported (unchanged)",
        }[self.status]
        unreadable = ", ".join(self.unreadable_sources) or "none"
        return (
            f"{self.case_id}: {state} from {self.source_name} as package {self.package_id}; "
            f"case.json sha256 {self.case_json_sha256}; unreadable sources: {unreadable}"
        )


def admission_record(case: Case) -> dict[str, Any]:
    """The ``admission`` block of ``package.json`` and ``version.json``."""
    return {
        "status": "admitted",
        "unreadable_sources": [
            {
                "alias": source.alias,
                "kind": source.kind,
                "name": source.name,
                "reason": source.unreadable_reason,
            }
            for source in case.unreadable_sources
        ],
    }


#: What ``case.json`` holds that is not what the report says: the ``source`` block (labels and
#: ``updated_at`` are provenance, not a reason to analyse again) and the raw report's sha256
#: (which holds that block too).
_NOT_CONTENT = frozenset({"source", "report_sha256"})


def content_sha256(case_doc: dict[str, Any]) -> str:
    """The hash of what a report says: its ``case.json`` without :data:`_NOT_CONTENT`."""
    return content_hash({key: value for key, value in case_doc.items() if key not in _NOT_CONTENT})


def decide(package: CasePackage, case_doc: dict[str, Any], case_sha: str) -> VersionDecision:
    """The import policy (module docstring) for ``case_doc`` (sha256 ``case_sha``).

    Raises:
        InputError: ``CASE_ALREADY_IMPORTED`` for another report of an existing case.
    """
    versions = report_versions(package)
    latest = versions[-1]
    latest_doc = package.read_json(case_json(latest))
    if package.artifact_ref(case_json(latest)).sha256 == case_sha:
        return VersionDecision("unchanged", latest)
    if not _same_issue(latest_doc.get("source"), case_doc.get("source")):
        for version in versions:
            if package.artifact_ref(case_json(version)).sha256 == case_sha:
                return VersionDecision("unchanged", version)
        recorded = read_record(package, latest).get("case_json_sha256")
        raise InputError(
            ErrorCode.CASE_ALREADY_IMPORTED,
            f"case {package.case_id} was already imported from a different report (case.json "
            f"sha256 {recorded}); nothing was written. Use a new case id for the new report (only "
            "a report of the same tracker issue becomes a new report version)",
            case_id=package.case_id,
            existing_case_json_sha256=recorded,
            new_case_json_sha256=case_sha,
        )
    if content_sha256(case_doc) == content_sha256(latest_doc):
        return VersionDecision("unchanged", latest)
    if _time(case_doc["source"]["updated_at"]) < _time(latest_doc["source"]["updated_at"]):
        return VersionDecision("unchanged", latest)
    return VersionDecision("revise", f"{int(latest) + 1:04d}", _reason(latest_doc, case_doc))


def version_document(
    package: CasePackage,
    version: str,
    source_name: str,
    raw_files: list[tuple[str, bytes]],
    case_doc: dict[str, Any],
    case_sha: str,
    reason: str,
) -> dict[str, Any]:
    """The content of ``reports/<VVVV>/version.json`` (no clock, no absolute path).

    ``previous`` chains it to the record before it (``package.json`` for version ``0002``).
    """
    previous = f"{int(version) - 1:04d}"
    return {
        "schema_version": VERSION_SCHEMA_VERSION,
        "case_id": package.case_id,
        "version": version,
        "reason": reason,
        "source_name": source_name,
        "files": [
            {"relpath": relpath, "sha256": sha256_hex(data), "size": len(data)}
            for relpath, data in raw_files
        ],
        "case_json_sha256": case_sha,
        "content_sha256": content_sha256(case_doc),
        "previous": {
            "version": previous,
            "record_sha256": package.artifact_ref(version_record(previous)).sha256,
            "case_json_sha256": package.artifact_ref(case_json(previous)).sha256,
        },
    }


def version_files(version: str, raw_files: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The raw report files (``report/...`` relpaths) moved under the version's folder."""
    folder = version_dir(version)
    return [(f"{folder}/{relpath}", data) for relpath, data in raw_files]


def write_version(
    package: CasePackage,
    version: str,
    raw_files: list[tuple[str, bytes]],
    case_bytes: bytes,
    record: dict[str, Any],
) -> str:
    """Write version ``version`` and the revision that freezes it; return that revision.

    Leftovers of an unfinished version (files without their ``version.json``) that differ from
    what is written now are removed first: nothing names them.
    """
    folder = version_dir(version)
    planned = [*raw_files, (f"{folder}/{CASE_JSON}", case_bytes)]
    _clear_unfinished(package, version, dict(planned))
    for relpath, data in planned:
        package.write_bytes(relpath, data)
    package.flush()  # the version's files are durable before the record that completes it
    package.write_bytes(version_record(version), canonical_bytes(record))
    return package.new_revision(
        f"report version {version} ({record['reason']})", report_version=version
    )


def bind_latest(package: CasePackage) -> str | None:
    """The revision a crash left uncreated: when the latest version has no revision bound to
    it, create it (the caller holds the import lock) and return its number; None otherwise."""
    latest = report_versions(package)[-1]
    if bound_versions(package).get(latest):
        return None
    reason = read_record(package, latest).get("reason", "edited")
    return package.new_revision(f"report version {latest} ({reason})", report_version=latest)


def latest_revision_of(package: CasePackage, version: str) -> str:
    """The newest revision bound to ``version``."""
    return bound_versions(package)[version][-1]


def existing_import(
    package: CasePackage, case: Case, case_sha: str, package_id: str
) -> ImportResult | None:
    """The earlier result if this report changes nothing (checked without the lock); None when
    the import must take the lock (a new case, a new version, a crash to repair); raise if the
    report may not be imported into this case."""
    if not package.exists(PACKAGE_JSON):
        return None
    record = package.read_json(PACKAGE_JSON)
    if record.get("package_id") != package_id:
        decide(package, case.to_json(), case_sha)  # another report: CASE_ALREADY_IMPORTED first
        raise InputError(
            ErrorCode.CASE_ALREADY_IMPORTED,
            f"case {package.case_id} was already imported as package {record.get('package_id')!r}"
            f", not {package_id!r}; nothing was written",
            case_id=package.case_id,
            existing_package_id=record.get("package_id"),
        )
    decision = decide(package, case.to_json(), case_sha)
    latest = report_versions(package)[-1]
    if decision.action != "unchanged" or not bound_versions(package).get(latest):
        return None
    return unchanged_result(package, decision.version, case_sha)


def unchanged_result(package: CasePackage, version: str, case_sha: str) -> ImportResult:
    record = read_record(package, version)
    unreadable = record.get("admission", {}).get("unreadable_sources", [])
    return ImportResult(
        case_id=package.case_id,
        package_id=read_record(package, FIRST_REPORT_VERSION).get("package_id", ""),
        case_json_sha256=case_sha,
        created=False,
        source_name=record.get("import", {}).get("source_name", record.get("source_name", "")),
        unreadable_sources=tuple(item["alias"] for item in unreadable),
        status="unchanged",
        report_version=version,
    )


def import_version(
    package: CasePackage,
    case: Case,
    case_bytes: bytes,
    source_name: str,
    raw_files: list[tuple[str, bytes]],
) -> ImportResult:
    """Under the import lock: the policy of :mod:`vba_assets.intake_versions` for a case that
    exists, then a new version and revision, the repair of a crash, or nothing."""
    case_sha = sha256_hex(case_bytes)
    decision = decide(package, case.to_json(), case_sha)
    if decision.action == "unchanged":
        revision = bind_latest(package)  # a crash after the last version's record
        if revision is None:
            return unchanged_result(package, decision.version, case_sha)
        version = report_versions(package)[-1]
    else:
        version = decision.version
        files = version_files(version, raw_files)
        document = version_document(
            package, version, source_name, files, case.to_json(), case_sha, decision.reason
        )
        record = {**document, "admission": admission_record(case)}
        revision = write_version(package, version, files, case_bytes, record)
    return ImportResult(
        case_id=package.case_id,
        package_id=read_record(package, FIRST_REPORT_VERSION).get("package_id", ""),
        case_json_sha256=package.artifact_ref(case_json(version)).sha256,
        created=True,
        source_name=source_name,
        unreadable_sources=tuple(source.alias for source in case.unreadable_sources),
        status="revised",
        report_version=version,
        revision=revision,
    )


def _clear_unfinished(package: CasePackage, version: str, planned: dict[str, bytes]) -> None:
    folder = version_dir(version)
    removed = []
    for relpath in package.list_dir(folder, recursive=True):
        if planned.get(relpath) != package.read_bytes(relpath):
            os.unlink(package.path(relpath))
            removed.append(relpath)
    for parent in sorted({relpath.rpartition("/")[0] for relpath in removed}):
        fsync_dir(package.path(parent))


def _same_issue(old: object, new: object) -> bool:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return False
    return (
        old.get("tracker") == new.get("tracker")
        and str(old.get("repository", "")).lower() == str(new.get("repository", "")).lower()
        and old.get("number") == new.get("number")
    )


def _reason(old: dict[str, Any], new: dict[str, Any]) -> str:
    """``clarification_answer``, ``edited`` (title or body) or ``comments`` (the attachments)."""
    kinds = [source.get("kind") for source in new.get("sources", [])]
    old_kinds = [source.get("kind") for source in old.get("sources", [])]
    if kinds.count("clarification_answer") > old_kinds.count("clarification_answer"):
        return "clarification_answer"
    title_body = [s for s in new.get("sources", []) if s.get("kind") in ("title", "body")]
    old_title_body = [s for s in old.get("sources", []) if s.get("kind") in ("title", "body")]
    return "edited" if content_hash(title_body) != content_hash(old_title_body) else "comments"


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


__all__ = [
    "REPORT_DIR",
    "ImportResult",
    "ImportStatus",
    "VersionDecision",
    "admission_record",
    "bind_latest",
    "content_sha256",
    "decide",
    "existing_import",
    "import_version",
    "latest_revision_of",
    "unchanged_result",
    "version_document",
    "version_files",
    "write_version",
]
