"""Build the model provider a revision runs with (IO wiring, no Dagster)."""

from collections.abc import Callable

from resources.llm import ProviderOptions, build_provider
from vba_assets.domain.llm.contract import Provider
from vba_assets.pipeline.recorder import revision_records
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stage_runs import WorldAccess


def provider_factory(env: RevisionEnv, world: WorldAccess) -> Callable[[], Provider]:
    """A lazy factory: reuse of accepted stages never builds a provider (or opens the DB)."""
    built: list[Provider] = []

    def factory() -> Provider:
        if not built:
            rev = env.frozen()
            options = ProviderOptions(
                replay_records=(
                    revision_records(env.package, env.layout)
                    if env.llm.provider == "replay"
                    else None
                ),
                catalogs=(rev.catalogs if rev.started else []) or env.project.catalogs,
                catalog_search=world.search if env.llm.provider == "heuristic" else None,
            )
            built.append(build_provider(env.llm, options))
        return built[0]

    return factory
