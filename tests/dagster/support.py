"""Shared helpers of the Dagster tests: the graph with its checks, resources, registration."""

import re
from pathlib import Path

import dagster as dg

from vba_assets.defs.assets import ASSETS
from vba_assets.defs.checks import CHECKS
from vba_assets.defs.partitions import register as register_pairs
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource

#: The six assets and their check definitions: what a run of `interpret_cases` executes.
GRAPH: list[dg.AssetsDefinition] = [*ASSETS, *CHECKS]


def stage_graph(*names: str) -> list[dg.AssetsDefinition]:
    """The named assets and the checks that target them."""
    assets = [a for a in ASSETS if a.key.to_user_string() in names]
    checks = [
        c for c in CHECKS if {k.asset_key.to_user_string() for k in c.check_keys} <= set(names)
    ]
    return [*assets, *checks]


REPO = Path(__file__).resolve().parents[2]


def embedded_project_file(folder: Path) -> Path:
    """A project config of the CI catalogs on the embedded demo world DB, workspace ``ws``."""
    text = (REPO / "config" / "project.mariadb-ci.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^url = .*$", 'url = "embedded:demo"', text)
    text = re.sub(r"(?m)^password_env = .*$", "", text)
    text = re.sub(r"(?m)^workspace = .*$", f'workspace = "{folder / "ws"}"', text)
    path = folder / "project.toml"
    path.write_text(text, encoding="utf-8")
    return path


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
