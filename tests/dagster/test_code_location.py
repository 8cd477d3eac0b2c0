"""One code location name for `dg dev` (`make run`), workspace.yaml and the backfill CLI.

A run submitted through ``workspace.yaml`` (``python -m vba_assets.defs.backfill --launch``) carries
the location name of that file; the `dg dev` daemon dequeues it only if its own workspace has a
location of that name (else ``DagsterCodeLocationNotFoundError``). The end-to-end proof is
tests/e2e/test_backfill_launch.py; this is the fast check of the configuration.
"""

import tomllib

import yaml
from dagster_dg_core.context import DgContext

from tests.conftest import REPO
from vba_assets.defs.backfill import WORKSPACE_YAML, backfill_command


def _workspace_location_names() -> list[str]:
    loaded = yaml.safe_load(WORKSPACE_YAML.read_text(encoding="utf-8"))
    return [entry["python_module"].get("location_name") for entry in loaded["load_from"]]


def test_dg_dev_and_workspace_yaml_name_the_same_location() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    configured = project["tool"]["dg"]["project"]["code_location_name"]
    # What `dg dev` computes from [tool.dg.project] (the clone's folder name when unset).
    dg_name = DgContext.for_project_environment(REPO, {}).code_location_name
    assert dg_name == configured == "vba_assets.definitions"
    assert _workspace_location_names() == [dg_name]


def test_the_backfill_cli_submits_through_that_workspace_file() -> None:
    command = backfill_command(["A|0001"])
    assert command[command.index("-w") + 1] == str(REPO / "workspace.yaml")
    assert WORKSPACE_YAML == REPO / "workspace.yaml"
