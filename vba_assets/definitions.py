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

from vba_assets.defs.job import JOB_NAME, build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource

project_config_path = os.environ.get("VBA_PROJECT_CONFIG", "")
llm_config_path = os.environ.get("VBA_LLM_CONFIG", "")

defs = build_definitions(
    project=ProjectResource(project_config=project_config_path),
    world_db=WorldDatabaseResource(project_config=project_config_path),
    llm=LlmResource(llm_config=llm_config_path),
)


__all__ = ["JOB_NAME", "build_definitions", "defs"]
