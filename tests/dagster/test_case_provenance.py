"""The case asset shows a tracker report's provenance: a link and one line; other cases none."""

import json
from pathlib import Path

import dagster as dg

from tests.dagster.support import register, resources, stage_graph
from tests.dagster.test_case_asset import project_config
from vba_assets.defs.partitions import partition_key
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

URL = "https://github.com/example-org/example-core/issues/17"
REPORT = {
    "case_id": "gh-provenance-17",
    "title": "Wolpertinger missing",
    "body": "No Wild Wolpertinger anywhere.",
    "reported_at": "2026-09-24T19:47:12Z",
    "source": {
        "tracker": "github",
        "repository": "example-org/example-core",
        "number": 17,
        "url": URL,
        "author": "reporter-one",
        "created_at": "2026-09-24T19:47:12Z",
        "updated_at": "2026-09-25T06:00:00Z",
        "labels": ["bug"],
        "ids": {"issue_id": 123456789, "node_id": "I_kwDOExample"},
    },
}


def test_the_case_asset_links_to_the_tracker_issue(tmp_path: Path) -> None:
    config = project_config(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    report = tmp_path / "report.json"
    report.write_text(json.dumps(REPORT), encoding="utf-8")
    results = [
        import_report(workspace, report),
        import_report(workspace, sample_report_path("BUG-000020")),
    ]
    with dg.instance_for_test() as instance:
        register(instance, *(result.case_id for result in results))
        metadata = {}
        for result in results:
            outcome = dg.materialize(
                stage_graph("case"),
                partition_key=partition_key(result.case_id, "0001"),
                resources=resources(config),
                instance=instance,
            )
            assert outcome.success
            [materialization] = outcome.asset_materializations_for_node("case")
            metadata[result.case_id] = materialization.metadata
    tracked = metadata["gh-provenance-17"]
    assert tracked["source_url"] == dg.MetadataValue.url(URL)
    assert tracked["source"].value.startswith(
        "github example-org/example-core#17 by reporter-one, created 2026-09-24T19:47:12Z"
    )
    assert "source_url" not in metadata["BUG-000020"] and "source" not in metadata["BUG-000020"]
