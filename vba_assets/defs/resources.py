"""Dagster resources: configuration chosen per deployment, yielding the real adapters.

Which deployment a resource talks to is chosen by configuration (``config/*.toml``), never by code:
``project_config`` is the path of a project config file, or empty for the embedded default (the demo
world DB). Dagster shows these fields in the UI's resource view; they never hold secrets (the DB
password is read from the environment variable the config names).

``world_db`` overrides ``create_resource`` (Dagster's documented way for a resource to vend another
object at run time): a step receives the adapter itself,
:class:`resources.world_db.WorldDatabase`, typed by the domain's
:class:`~vba_assets.domain.catalog.world.ReadOnlyWorldDatabase` Protocol, not a wrapper that
forwards a hand-picked subset of its methods (one such wrapper once hid ``identity_search`` from
every UI run while every CLI test passed). It connects on first use, so a step that reuses its
artifact opens no connection, and it is closed when the step's resources are torn down.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
from pydantic import PrivateAttr

from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig, load_project_config
from vba_assets.domain.catalog.world import ReadOnlyWorldDatabase
from vba_assets.domain.llm.contract import Provider
from vba_assets.domain.llm.policy import DispatchBudget
from vba_assets.llm_config import LlmConfig, load_llm_config
from vba_assets.pipeline.providers import provider_factory
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stage_runs import WorldAccess
from vba_assets.store import Workspace
from vba_assets.store.opening import open_workspace


def _project_config(path: str) -> ProjectConfig:
    return load_project_config(Path(path) if path else None)


class ProjectResource(dg.ConfigurableResource):
    """The project configuration and the case-package workspace it names."""

    project_config: str = ""

    _config: ProjectConfig | None = PrivateAttr(default=None)
    _workspace: Workspace | None = PrivateAttr(default=None)

    def load(self) -> ProjectConfig:
        if self._config is None:
            self._config = _project_config(self.project_config)
        return self._config

    def workspace(self) -> Workspace:
        """The local workspace, or the bucket's with a local working copy ([workspace] url):
        opened once (a bucket's client costs ~0.15 s to create)."""
        if self._workspace is None:
            self._workspace = open_workspace(self.load())
        return self._workspace


class WorldDatabaseResource(dg.ConfigurableResource):
    """The read-only, allowlisted world database of ``project_config`` (contains search, identity
    search, fetch by identity, snapshot binding; no raw SQL). Assets take it as
    ``world_db: dg.ResourceParam[ReadOnlyWorldDatabase]``."""

    project_config: str = ""

    def create_resource(self, context: dg.InitResourceContext) -> ReadOnlyWorldDatabase:
        return WorldDatabase.from_config(_project_config(self.project_config))

    @contextmanager
    def yield_for_execution(
        self, context: dg.InitResourceContext
    ) -> Iterator[ReadOnlyWorldDatabase]:
        database = self.create_resource(context)
        try:
            yield database
        finally:
            database.close()


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
