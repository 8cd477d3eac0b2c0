"""The one Definitions object, loaded by ``workspace.yaml`` and ``dagster dev``.

Resources are chosen per deployment by configuration, never by code:

* ``VBA_PROJECT_CONFIG`` names a project config file (``config/project.example.toml`` documents every
  key); unset means the embedded default (demo world DB, workspace ``./vba-workspace``).
* ``VBA_LLM_CONFIG`` names an LLM config file (``config/llm.example.toml``); unset means the
  deterministic ``heuristic`` baseline, which needs no API key.

Runs use the in-process executor: a partition is small and sequential, and a subprocess per step
costs seconds each (ARCHITECTURE 14).
"""

import os

import dagster as dg

from resources.dagster_resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.assets import ASSETS
from vba_assets.defs.sensors import build_inbox_sensor

project_config_path = os.environ.get("VBA_PROJECT_CONFIG", "")
llm_config_path = os.environ.get("VBA_LLM_CONFIG", "")

interpret_cases_job = dg.define_asset_job(
    "interpret_cases",
    selection=dg.AssetSelection.assets(*ASSETS),
    description="Materialize the six case-interpretation assets of one case x revision partition.",
)

defs = dg.Definitions(
    assets=ASSETS,
    jobs=[interpret_cases_job],
    sensors=[build_inbox_sensor(interpret_cases_job)],
    resources={
        "project": ProjectResource(project_config=project_config_path),
        "world_db": WorldDatabaseResource(project_config=project_config_path),
        "llm": LlmResource(llm_config=llm_config_path),
    },
    executor=dg.in_process_executor,
)
