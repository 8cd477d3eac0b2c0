"""``interpret_cases`` on a real Dagster instance with the case packages in a bucket (moto).

The heuristic provider answers (plumbing and byte-equality, not model quality): the point is that
the six assets materialize through the bucket backend, that the package read back from the bucket
alone verifies, and that every data version equals a local-store run of the same case.
"""

from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.support import GRAPH, data_versions, materialized, register, resources
from tests.objectstore.support import project_file, set_credentials
from vba_assets.config import load_project_config
from vba_assets.defs.assets import ASSETS
from vba_assets.intake import import_report
from vba_assets.objectstore import ObjectStore
from vba_assets.package_transfer import verify_from_bucket
from vba_assets.pipeline.verification import verify_case
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace
from vba_assets.store.opening import open_workspace

CASE = "BUG-000020"


def _run(project: Path) -> dict[str, str]:
    import_report(open_workspace(load_project_config(project)), sample_report_path(CASE))
    with dg.instance_for_test() as instance:
        register(instance, CASE)
        result = dg.materialize(
            GRAPH, partition_key=f"{CASE}|0001", resources=resources(project), instance=instance
        )
    assert result.success
    assert materialized(result) == {a.key.to_user_string() for a in ASSETS}
    evaluations = result.get_asset_check_evaluations()
    assert evaluations and all(e.passed for e in evaluations)
    return data_versions(result)


def test_interpret_cases_through_the_bucket_matches_the_local_store(
    bucket: ObjectStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_credentials(monkeypatch)
    in_bucket = _run(project_file(tmp_path, tmp_path / "host-a", bucket))
    local = _run(project_file(tmp_path, tmp_path / "local"))
    assert in_bucket == local
    assert len(in_bucket) == len(ASSETS)

    # the package as the bucket holds it, on a host that never ran it: every file, and verify
    fresh = Workspace(tmp_path / "host-b", bucket=bucket)
    package = fresh.case(CASE)
    report = verify_case(package)
    assert report.ok, report.to_json()
    assert [r.revision for r in report.revisions] == ["0001"]
    local_root = tmp_path / "local" / "cases" / CASE
    local_files = {
        p.relative_to(local_root).as_posix(): p.read_bytes()
        for p in local_root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(local_root).parts)
    }
    fetched = {relpath: package.read_bytes(relpath) for relpath in local_files}
    events = "analysis/interpretations/0001/events.jsonl"
    differing = sorted(r for r in local_files if fetched[r] != local_files[r] and r != events)
    # identical bytes for the same work; only events.jsonl differs (its lines carry wall-clock at)
    assert differing == []
    assert package.list_dir("", recursive=True) == sorted(local_files)
    # and as `vba verify` proves a bucket: from a fresh download of its objects alone
    [from_bucket] = verify_from_bucket(bucket)
    assert from_bucket.ok and [r.revision for r in from_bucket.revisions] == ["0001"]
