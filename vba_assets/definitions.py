"""The one Definitions object, loaded by ``workspace.yaml``, ``dagster dev`` and ``dg`` ([tool.dg]).

Resources are chosen per deployment by configuration, never by code:

* ``VBA_PROJECT_CONFIG`` names a project config file (``config/project.example.toml`` documents every
  key); unset means the embedded default (demo world DB, workspace ``./vba-workspace``).
* ``VBA_LLM_CONFIG`` names an LLM config file (``config/llm.example.toml``); unset means the
  deterministic ``heuristic`` baseline, which needs no API key.

Runs use the in-process executor: a partition is small and sequential, and a subprocess per step
costs seconds each (ARCHITECTURE 14). Concurrency is across runs (one run per partition): the run
queue, the pools and the per-revision limit are instance settings (``deploy/``,
:mod:`vba_assets.defs.concurrency`).
"""

import os

import dagster as dg

from vba_assets.defs.assets import ASSETS
from vba_assets.defs.checks import CHECKS
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.sensors import build_inbox_sensor

JOB_NAME = "interpret_cases"

interpret_cases_job = dg.define_asset_job(
    JOB_NAME,
    selection=dg.AssetSelection.assets(*ASSETS),
    description="Materialize and check the six case-interpretation assets of one case revision "
    "(partition `<case>|<revision>`). A failed blocking check stops the downstream assets of the "
    "run.",
)


def build_definitions(
    *, project: ProjectResource, world_db: WorldDatabaseResource, llm: LlmResource
) -> dg.Definitions:
    """The project's definitions with the given resources (tests and simulations swap them)."""
    return dg.Definitions(
        assets=ASSETS,
        asset_checks=CHECKS,
        jobs=[interpret_cases_job],
        sensors=[build_inbox_sensor(JOB_NAME)],
        resources={"project": project, "world_db": world_db, "llm": llm},
        executor=dg.in_process_executor,
    )


project_config_path = os.environ.get("VBA_PROJECT_CONFIG", "")
llm_config_path = os.environ.get("VBA_LLM_CONFIG", "")

defs = build_definitions(
    project=ProjectResource(project_config=project_config_path),
    world_db=WorldDatabaseResource(project_config=project_config_path),
    llm=LlmResource(llm_config=llm_config_path),
)
