"""Report versions of a case (ARCHITECTURE 15): which exist, and which one a revision freezes.

Version ``0001`` is the first import, exactly as before versions existed (``package.json``,
``report/...``, ``case.json``). A later version ``VVVV`` lives in ``reports/<VVVV>/`` (see
:mod:`vba_assets.store.layout`); its ``version.json`` is written last, so a folder without one is
an unfinished import and not a version. Each record names the one before it by sha256
(``previous``): a hash chain from ``package.json`` on, so deleting, swapping or editing a version
is a ``vba verify`` finding.

A revision is bound to one version by its ``created`` event (``report_version``); a revision
without that field (``0001``, and every revision created before versions existed) freezes
version ``0001``, so no existing log changes its bytes or its meaning.
"""

from pathlib import Path
from typing import Any, Protocol

from vba_assets.domain.case.ids import validate_revision
from vba_assets.errors import ErrorCode, InputError, StoreError
from vba_assets.store.layout import (
    FIRST_REPORT_VERSION,
    PACKAGE_JSON,
    REPORTS_DIR,
    case_json,
    version_record,
)


class CasePackage(Protocol):
    """What these functions read of a :class:`~vba_assets.store.package.CasePackage` (a protocol:
    the package module uses this one, so this one cannot import it)."""

    @property
    def root(self) -> Path: ...

    @property
    def case_id(self) -> str: ...

    def exists(self, relpath: str) -> bool: ...

    def read_json(self, relpath: str) -> Any: ...

    def read_events(self, revision: str) -> list[dict[str, Any]]: ...

    def revisions(self) -> list[str]: ...


#: The field of a revision's ``created`` (and ``started``) event naming its report version.
REPORT_VERSION_FIELD = "report_version"
VERSION_SCHEMA_VERSION = 1


def report_versions(package: CasePackage) -> list[str]:
    """The complete report versions of the case, in order (``[]`` before the first import ends).

    ``0001`` exists once ``package.json`` does; ``VVVV`` once ``reports/<VVVV>/version.json``
    does. Folders under ``reports/`` with another name are not versions (``vba verify`` lists them).
    """
    if not package.exists(PACKAGE_JSON):
        return []
    found = [FIRST_REPORT_VERSION]
    folder = package.root / REPORTS_DIR
    if folder.is_dir() and not folder.is_symlink():
        for entry in sorted(folder.iterdir(), key=lambda path: path.name):
            if is_version_name(entry.name) and package.exists(version_record(entry.name)):
                found.append(entry.name)
    return found


def latest_version(package: CasePackage) -> str:
    """The newest complete version (raises ``ARTIFACT_MISSING`` for a case never imported)."""
    versions = report_versions(package)
    if not versions:
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} was never imported (no {PACKAGE_JSON})",
            case_id=package.case_id,
        )
    return versions[-1]


def require_version(package: CasePackage, version: str) -> str:
    """``version`` if it is a complete version of the case; ``ARTIFACT_MISSING`` otherwise."""
    validate_revision(version)
    if version not in report_versions(package):
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} has no report version {version} ({version_record(version)} "
            "does not exist)",
            case_id=package.case_id,
            missing=version_record(version),
        )
    return version


def revision_report_version(package: CasePackage, revision: str) -> str:
    """The report version ``revision`` freezes: its ``created`` event's ``report_version``, or
    ``0001`` (no such field, no ``created`` event, no log yet)."""
    for event in package.read_events(revision):
        if event["event"] == "created":
            version = event.get(REPORT_VERSION_FIELD, FIRST_REPORT_VERSION)
            return version if isinstance(version, str) else FIRST_REPORT_VERSION
    return FIRST_REPORT_VERSION


def revision_case_json(package: CasePackage, revision: str) -> str:
    """The ``case.json`` relpath the revision freezes (see :func:`revision_report_version`)."""
    return case_json(revision_report_version(package, revision))


def bound_versions(package: CasePackage) -> dict[str, list[str]]:
    """Report version -> the revisions bound to it (``0001`` always holds revision ``0001``, which
    starts by itself)."""
    bound: dict[str, list[str]] = {FIRST_REPORT_VERSION: ["0001"]}
    for revision in package.revisions():
        version = revision_report_version(package, revision)
        if revision not in bound.setdefault(version, []):
            bound[version].append(revision)
    return bound


def read_record(package: CasePackage, version: str) -> dict[str, Any]:
    """The record of a version (``package.json`` or ``version.json``), a JSON object."""
    relpath = version_record(version)
    record = package.read_json(relpath)
    if not isinstance(record, dict):
        raise StoreError(
            ErrorCode.ARTIFACT_CORRUPT,
            f"case {package.case_id}: {relpath} is not a JSON object",
            relpath=relpath,
        )
    return record


def version_folders(root: Path) -> list[str]:
    """The folders a later report version is written to under a package ``root``
    (``reports/<VVVV>`` and its ``report/``): where an import's stale temp files may lie."""
    folder = root / REPORTS_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    names = sorted(entry.name for entry in folder.iterdir() if is_version_name(entry.name))
    return [f"{REPORTS_DIR}/{name}{tail}" for name in names for tail in ("", "/report")]


def is_version_name(name: str) -> bool:
    """Whether ``name`` is the folder name of a later report version (``NNNN`` after 0001)."""
    try:
        validate_revision(name)
    except InputError:
        return False
    return name != FIRST_REPORT_VERSION


__all__ = [
    "REPORT_VERSION_FIELD",
    "VERSION_SCHEMA_VERSION",
    "bound_versions",
    "is_version_name",
    "latest_version",
    "read_record",
    "report_versions",
    "require_version",
    "revision_case_json",
    "revision_report_version",
    "version_folders",
]
