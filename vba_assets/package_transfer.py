"""Case packages between a bucket and local folders, verified on arrival (issue 31).

* :func:`export_cases`: the bucket's packages into ``<dest>/cases/<CASE-ID>``, each verified
  there (``vba export``): a folder a machine without the bucket and without the database can
  verify again with ``vba verify --workspace <dest>``.
* :func:`import_package`: a local package into the bucket, verified before it is sent and again
  from a fresh download of what arrived (``vba import-package``).
* :func:`verify_from_bucket`: ``vba verify`` against a bucket: each case downloaded into a
  temporary folder and verified there, so what is proven is the bucket's bytes, not a host's
  working copy.

No Dagster import; the verification is the one of ``vba verify``
(:mod:`vba_assets.pipeline.verification`).
"""

import tempfile
from dataclasses import dataclass
from pathlib import Path

from vba_assets.domain.case.ids import validate_case_id
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.objectstore import ObjectStore
from vba_assets.pipeline.verification import CaseReport, verify_case
from vba_assets.store import CasePackage, Workspace
from vba_assets.store.remote import remote_case_ids
from vba_assets.store.transfer import Transfer, download_case, upload_case


@dataclass(frozen=True)
class Copied:
    """One case copied and the verification of the copy that arrived."""

    transfer: Transfer
    report: CaseReport


def _case_ids(store: ObjectStore, case_ids: list[str] | None) -> list[str]:
    if case_ids is None:
        return remote_case_ids(store)
    return [validate_case_id(case_id) for case_id in case_ids]


def verify_from_bucket(
    store: ObjectStore, case_ids: list[str] | None = None, revision: str | None = None
) -> list[CaseReport]:
    """Verify the bucket's packages (all of them, or ``case_ids``), each from a fresh download."""
    reports = []
    for case_id in _case_ids(store, case_ids):
        with tempfile.TemporaryDirectory(prefix="vba-verify-") as folder:
            workspace = Workspace(Path(folder))
            download_case(store, case_id, workspace.cases_dir / case_id)
            package = workspace.case(case_id)
            reports.append(verify_case(package, [revision] if revision else None))
    return reports


def export_cases(store: ObjectStore, dest: Path, case_ids: list[str] | None = None) -> list[Copied]:
    """Download each case into ``dest/cases/<CASE-ID>`` and verify it there."""
    workspace = Workspace(dest)
    copied = []
    for case_id in _case_ids(store, case_ids):
        transfer = download_case(store, case_id, workspace.cases_dir / case_id)
        copied.append(Copied(transfer, verify_case(workspace.case(case_id))))
    return copied


def import_package(store: ObjectStore, case_dir: Path) -> Copied:
    """Send the package at ``case_dir`` (a case folder, named by its case id) to the bucket once
    it verifies, then verify what arrived.

    Raises:
        StoreError: ``PACKAGE_ARTIFACT_INVALID`` if the local package has error findings
            (nothing is sent); ``ARTIFACT_CONFLICT`` if the bucket holds other bytes for it.
    """
    case_dir = Path(case_dir).resolve()
    case_id = validate_case_id(case_dir.name)
    source = verify_case(CasePackage(case_dir, case_id))
    errors = [f for f in source.all_findings() if f.is_error]
    if errors or not (case_dir / "case.json").is_file():
        first = errors[0].line() if errors else "it has no case.json"
        raise StoreError(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            f"{case_dir} does not verify ({len(errors)} error finding(s); {first}): "
            "nothing was sent",
            case_id=case_id,
            path=str(case_dir),
        )
    transfer = upload_case(store, case_dir, case_id)
    [arrived] = verify_from_bucket(store, [case_id])
    return Copied(transfer, arrived)
