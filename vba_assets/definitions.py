"""The one Definitions object, loaded by ``workspace.yaml`` and ``dagster dev``.

Resources are chosen per deployment by configuration: ``VBA_PROJECT_CONFIG`` names a project config file
(``config/project.example.toml`` documents every key); unset means the embedded default (demo world DB,
workspace ``./vba-workspace``). Runs use the in-process executor: a partition is small and sequential,
and a subprocess per step costs seconds each (ARCHITECTURE 14).
"""

import os

import dagster as dg

from resources.dagster_resources import ProjectResource, WorldDatabaseResource
from vba_assets.defs.case_asset import case
from vba_assets.defs.sensors import build_inbox_sensor

project_config_path = os.environ.get("VBA_PROJECT_CONFIG", "")

interpret_cases_job = dg.define_asset_job(
    "interpret_cases",
    selection=dg.AssetSelection.assets(case),
    description="Materialize the case interpretation assets of one case x revision partition.",
)

defs = dg.Definitions(
    assets=[case],
    jobs=[interpret_cases_job],
    sensors=[build_inbox_sensor(interpret_cases_job)],
    resources={
        "project": ProjectResource(project_config=project_config_path),
        "world_db": WorldDatabaseResource(project_config=project_config_path),
    },
    executor=dg.in_process_executor,
)
