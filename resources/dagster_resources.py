"""Dagster resources: thin, configurable wrappers around the IO adapters.

Which deployment a resource talks to is chosen by configuration (``config/*.toml``), never by code:
``project_config`` is the path of a project config file, or empty for the embedded default (the demo
world DB). Dagster shows these fields in the UI's resource view; they never hold secrets (the DB
password is read from the environment variable the config names).
"""

from collections.abc import Callable
from pathlib import Path

import dagster as dg
from pydantic import PrivateAttr

from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig, load_project_config
from vba_assets.domain.catalog.world import CatalogRow, SearchResult, SnapshotBinding
from vba_assets.domain.llm.contract import Provider
from vba_assets.domain.llm.policy import DispatchBudget
from vba_assets.llm_config import LlmConfig, load_llm_config
from vba_assets.pipeline.providers import provider_factory
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stages import WorldAccess
from vba_assets.store import Workspace


class ProjectResource(dg.ConfigurableResource):
    """The project configuration and the case-package workspace it names."""

    project_config: str = ""

    _config: ProjectConfig | None = PrivateAttr(default=None)

    def load(self) -> ProjectConfig:
        if self._config is None:
            self._config = load_project_config(
                Path(self.project_config) if self.project_config else None
            )
        return self._config

    def workspace(self) -> Workspace:
        return Workspace(self.load().workspace)


class WorldDatabaseResource(dg.ConfigurableResource):
    """The read-only, allowlisted world database. Offers only contains-search and fetch-by-identity."""

    project_config: str = ""

    _db: WorldDatabase | None = PrivateAttr(default=None)

    def _database(self) -> WorldDatabase:
        if self._db is None:
            config = load_project_config(Path(self.project_config) if self.project_config else None)
            self._db = WorldDatabase.from_config(config)
        return self._db

    def contains_search(self, catalog: str, term: str, limit: int) -> SearchResult:
        return self._database().contains_search(catalog, term, limit)

    def fetch_by_identity(self, catalog: str, identity: int | str) -> list[CatalogRow]:
        return self._database().fetch_by_identity(catalog, identity)

    def snapshot_binding(self) -> SnapshotBinding:
        return self._database().snapshot_binding()

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


class LlmResource(dg.ConfigurableResource):
    """Which model provider answers the stages: ``config/llm.*.toml``, or the heuristic default.

    The API key, if the provider needs one, comes only from the environment variable the config
    names; it is never a resource field, so it never shows in the UI.
    """

    llm_config: str = ""

    _config: LlmConfig | None = PrivateAttr(default=None)
    _budget: DispatchBudget | None = PrivateAttr(default=None)

    def load(self) -> LlmConfig:
        if self._config is None:
            self._config = load_llm_config(Path(self.llm_config) if self.llm_config else None)
        return self._config

    def budget(self) -> DispatchBudget:
        """``max_dispatches`` bounds the model requests of one run, shared by all its steps."""
        if self._budget is None:
            self._budget = DispatchBudget(max_dispatches=self.load().max_dispatches)
        return self._budget

    def provider_factory(self, env: RevisionEnv, world: WorldAccess) -> Callable[[], Provider]:
        """A lazy provider for one stage run: reusing accepted stages never builds one."""
        return provider_factory(env, world)
