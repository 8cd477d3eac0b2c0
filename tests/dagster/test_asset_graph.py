"""Snapshot of the asset graph: keys, dependencies, partitions, checks and their blocking flags.

A change to the graph must be deliberate: regenerate with ``VBA_UPDATE_SNAPSHOTS=1 pytest tests/dagster``
and review the diff.
"""

import json
import os
from pathlib import Path
from typing import Any

import dagster as dg

from vba_assets.definitions import defs
from vba_assets.domain.prompting.prompts import CURRENT_PROMPT_VERSION
from vba_assets.domain.protocol import CURRENT_PROTOCOL_VERSION
from vba_assets.pipeline.code_versions import stage_code_versions

SNAPSHOT = Path(__file__).with_name("asset_graph.snapshot.json")


def graph_summary() -> dict[str, Any]:
    repo = defs.get_repository_def()
    graph = repo.asset_graph
    assets = {}
    for key in sorted(graph.get_all_asset_keys(), key=lambda k: k.to_user_string()):
        node = graph.get(key)
        assets[key.to_user_string()] = {
            "deps": sorted(parent.to_user_string() for parent in node.parent_keys),
            "partitions": type(node.partitions_def).__name__ if node.partitions_def else None,
            "owners": sorted(node.owners),
            "tags": dict(sorted(node.tags.items())),
            "pools": sorted(node.pools or []),
            "has_code_version": bool(node.code_version),
            "checks": sorted(
                check_key.name + (" (blocking)" if graph.get(check_key).blocking else "")
                for check_key in node.check_keys
            ),
        }
    return {
        "assets": assets,
        "jobs": sorted(job.name for job in repo.get_all_jobs() if not job.name.startswith("__")),
        "sensors": sorted(s.name for s in repo.sensor_defs),
        "resources": sorted(repo.get_top_level_resources()),
    }


def test_asset_graph_matches_snapshot() -> None:
    summary = graph_summary()
    if os.environ.get("VBA_UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    # a missing snapshot fails (never silently rewritten): regenerate it deliberately
    assert SNAPSHOT.exists(), f"{SNAPSHOT} is missing: run with VBA_UPDATE_SNAPSHOTS=1"
    assert summary == json.loads(SNAPSHOT.read_text())


#: The operational source assets (not case stages): unpartitioned, observed, not materialized.
OPERATIONS_ASSETS = {"blocked_revisions"}
#: Materialized from `vba eval` results, not from a case (tests/dagster/test_eval_quality.py).
EVALUATION_ASSETS = {"eval_quality"}


def test_every_asset_is_partitioned_by_case_revision_with_dagster_conventions() -> None:
    summary = graph_summary()
    assert summary["assets"], "no assets defined"
    stages = {
        k: v for k, v in summary["assets"].items() if k not in OPERATIONS_ASSETS | EVALUATION_ASSETS
    }
    assert set(stages) == {stage.value for stage in stage_code_versions()}
    for key, node in stages.items():
        assert node["partitions"] == "DynamicPartitionsDefinition", key
        assert node["owners"] and node["tags"] and node["has_code_version"], key


def test_the_operations_assets_are_observable_sources_outside_the_case_group() -> None:
    repo = defs.get_repository_def()
    for name in OPERATIONS_ASSETS:
        node = repo.asset_graph.get(dg.AssetKey(name))
        assert node.is_observable and not node.is_materializable, name
        assert node.partitions_def is None and node.group_name == "operations", name
        assert node.tags.get("vba/kind") == "operations", name


def test_code_versions_follow_the_protocol_the_prompts_and_the_stage_code() -> None:
    versions = {stage.value: version for stage, version in stage_code_versions().items()}
    for name, version in versions.items():
        assert version.startswith(
            f"protocol-{CURRENT_PROTOCOL_VERSION}.prompts-{CURRENT_PROMPT_VERSION}."
        ), name
    repo = defs.get_repository_def()
    for key in repo.asset_graph.get_all_asset_keys():
        if key.to_user_string() not in OPERATIONS_ASSETS | EVALUATION_ASSETS:
            assert repo.asset_graph.get(key).code_version == versions[key.to_user_string()]
    # the evaluation's figures are tied to every stage (the last folds in the others) and more
    last = versions[list(versions)[-1]]
    assert repo.asset_graph.get(dg.AssetKey("eval_quality")).code_version.startswith(  # type: ignore[union-attr]
        f"{last}.eval-"
    )


def test_no_check_requires_its_asset_to_be_materialized() -> None:
    """Checks are their own definitions (not inline check_specs): executable alone."""
    repo = defs.get_repository_def()
    for key in repo.asset_graph.get_all_asset_keys():
        assets_def = repo.asset_graph.get(key).assets_def
        assert not list(assets_def.check_specs), key
