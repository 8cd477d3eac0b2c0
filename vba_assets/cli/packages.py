"""``vba verify``, ``vba export`` and ``vba import-package``: case packages proven from their own
bytes, and copied between a bucket and a folder (verified on arrival)."""

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vba_assets.cli.common import bucket_of, workspace_of
from vba_assets.errors import ErrorCode, StoreError


def cmd_verify(args: argparse.Namespace) -> int:
    """Prove case packages from their own bytes (no API, no DB): exit 5 on any error finding."""
    from vba_assets.pipeline.verification import verify_case, verify_workspace

    workspace = workspace_of(args)
    if args.revision and not args.case_id:
        print("vba: error: --revision needs --case-id", file=sys.stderr)
        return 2
    if workspace.bucket is not None:  # the bucket's bytes, each case from a fresh download
        from vba_assets.package_transfer import verify_from_bucket

        ids = [args.case_id] if args.case_id else None
        return _print_verified(args, verify_from_bucket(workspace.bucket, ids, args.revision))
    if args.case_id:
        package = workspace.case(args.case_id)
        _require_case(package)
        if args.revision:
            _require_revision(package, args.revision)
        reports = [verify_case(package, [args.revision] if args.revision else None)]
    else:
        reports = verify_workspace(workspace)
    return _print_verified(args, reports)


def _print_verified(args: argparse.Namespace, reports: Sequence[Any]) -> int:
    error_count = sum(len([f for f in r.all_findings() if f.is_error]) for r in reports)
    if args.json:
        document = {
            "ok": error_count == 0,
            "errors": error_count,
            "cases": [report.to_json() for report in reports],
        }
        print(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        print("\n".join(_verify_lines(reports, error_count)))
    return 0 if error_count == 0 else 5


def cmd_export(args: argparse.Namespace) -> int:
    """``vba export --to DIR``: the bucket's packages into ``DIR/cases/``, verified there."""
    from vba_assets.package_transfer import export_cases

    ids = [args.case_id] if args.case_id else None
    copied = export_cases(bucket_of(args), Path(args.to).resolve(), ids)
    for item in copied:
        print(item.transfer.line())
    return _print_verified(args, [item.report for item in copied])


def cmd_import_package(args: argparse.Namespace) -> int:
    """``vba import-package DIR``: a verified local case folder into the bucket, verified there."""
    from vba_assets.package_transfer import import_package

    copied = import_package(bucket_of(args), Path(args.package))
    print(copied.transfer.line())
    return _print_verified(args, [copied.report])


def _require_case(package: Any) -> None:
    """``ARTIFACT_MISSING`` (exit 5) for a case that is not there; whatever is at ``case.json``
    otherwise (a FIFO, a device) is never opened here: the verification reports it."""

    if not os.path.lexists(package.path("case.json")):
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} has no artifact case.json",
            case_id=package.case_id,
            relpath="case.json",
        )


def _require_revision(package: Any, revision: str) -> None:
    from vba_assets.store.layout import RevisionLayout

    if not package.path(RevisionLayout(revision).dir).is_dir():
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} has no revision {revision}",
            case_id=package.case_id,
            revision=revision,
        )


def _verify_lines(reports: Sequence[Any], error_count: int) -> list[str]:
    """One block per case and revision: ``ok`` lines only for what has no finding."""
    lines = []
    revisions = 0
    for report in reports:
        state = "ok" if not [f for f in report.findings if f.is_error] else "FAILED"
        lines.append(f"{report.case_id}  package  {state}")
        lines += [f"  {_label(f)}  {f.line()}" for f in report.findings]
        for revision in report.revisions:
            revisions += 1
            state = "ok" if revision.ok else "FAILED"
            lines.append(f"{report.case_id}  revision {revision.revision}  {state}")
            lines += [f"  ok     {line}" for line in revision.checked]
            lines += [f"  {_label(f)}  {f.line()}" for f in revision.findings]
    lines.append(
        f"verified {len(reports)} case(s), {revisions} revision(s): {error_count} error(s)"
    )
    return lines


def _label(finding: Any) -> str:
    return "ERROR" if finding.is_error else "info "
