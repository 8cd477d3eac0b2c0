"""Shared helpers of the Dagster tests: the graph with its checks, resources, registration."""

from pathlib import Path

import dagster as dg

from resources.dagster_resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.assets import ASSETS
from vba_assets.defs.checks import CHECKS
from vba_assets.defs.partitions import register as register_pairs

#: The six assets and their check definitions: what a run of `interpret_cases` executes.
GRAPH: list[dg.AssetsDefinition] = [*ASSETS, *CHECKS]


def stage_graph(*names: str) -> list[dg.AssetsDefinition]:
    """The named assets and the checks that target them."""
    assets = [a for a in ASSETS if a.key.to_user_string() in names]
    checks = [
        c for c in CHECKS if {k.asset_key.to_user_string() for k in c.check_keys} <= set(names)
    ]
    return [*assets, *checks]


def resources(project_file: Path, llm: LlmResource | None = None) -> dict[str, object]:
    return {
        "project": ProjectResource(project_config=str(project_file)),
        "world_db": WorldDatabaseResource(project_config=str(project_file)),
        "llm": llm or LlmResource(),
    }


def register(instance: dg.DagsterInstance, *case_ids: str, revision: str = "0001") -> None:
    """Register ``<case>|<revision>`` for each case (what the inbox sensor does)."""
    register_pairs(instance, [(case_id, revision) for case_id in case_ids])


def materialized(result: dg.ExecuteInProcessResult) -> set[str]:
    return {
        e.event_specific_data.materialization.asset_key.to_user_string()  # type: ignore[union-attr]
        for e in result.get_asset_materialization_events()
    }


def data_versions(result: dg.ExecuteInProcessResult) -> dict[str, str]:
    versions = {}
    for event in result.get_asset_materialization_events():
        materialization = event.event_specific_data.materialization  # type: ignore[union-attr]
        versions[materialization.asset_key.to_user_string()] = materialization.tags[
            "dagster/data_version"
        ]
    return versions
