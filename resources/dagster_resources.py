"""Dagster resources: thin, configurable wrappers around the IO adapters.

Which deployment a resource talks to is chosen by configuration (``config/*.toml``), never by code:
``project_config`` is the path of a project config file, or empty for the embedded default (the demo
world DB). Dagster shows these fields in the UI's resource view; they never hold secrets (the DB
password is read from the environment variable the config names).
"""

from pathlib import Path

import dagster as dg
from pydantic import PrivateAttr

from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig, load_project_config
from vba_assets.domain.research import CatalogRow, SearchResult, SnapshotBinding
from vba_assets.store import Workspace


class ProjectResource(dg.ConfigurableResource):  # type: ignore[misc]
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


class WorldDatabaseResource(dg.ConfigurableResource):  # type: ignore[misc]
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
