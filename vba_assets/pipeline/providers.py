"""Build the model provider a revision runs with (IO wiring, no Dagster)."""

from collections.abc import Callable

from resources.llm import ProviderOptions, build_provider
from vba_assets.config import CatalogConfig, ProjectConfig
from vba_assets.domain.llm.contract import DispatchRecord, Provider
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.revision import RevisionEnv, resolution_input
from vba_assets.pipeline.stages import WorldAccess


def recorded_dispatches(env: RevisionEnv) -> list[DispatchRecord]:
    """Every dispatch record of the revision (both stage directories)."""
    records: list[DispatchRecord] = []
    for base in (env.er_dir, env.rev_dir):
        records += PackageRecorder(env.package, env.revision, base).all_records()
    return records


def frozen_catalogs(env: RevisionEnv) -> list[CatalogConfig]:
    """The catalogs frozen in the revision's resolution input (empty before it is frozen)."""
    if not env.package.exists(f"{env.er_dir}/input.json"):
        return []
    frozen = resolution_input(env, None)
    return [CatalogConfig.model_validate(catalog) for catalog in frozen.catalogs]


def provider_factory(
    env: RevisionEnv, llm: LlmConfig, project: ProjectConfig, world: WorldAccess
) -> Callable[[], Provider]:
    """A lazy factory: reuse of accepted stages never builds a provider (or opens the DB)."""
    built: list[Provider] = []

    def factory() -> Provider:
        if not built:
            options = ProviderOptions(
                replay_records=recorded_dispatches(env) if llm.provider == "replay" else None,
                catalogs=frozen_catalogs(env) or project.catalogs,
                catalog_search=world.search if llm.provider == "heuristic" else None,
            )
            built.append(build_provider(llm, options))
        return built[0]

    return factory
