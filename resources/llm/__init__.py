"""The model providers (ARCHITECTURE 8) and the registry that builds one from an LLM config.

``PROVIDER_FACTORIES`` is the one extension point: a provider is a class with ``name``,
``wire_request`` and ``send`` (:class:`~vba_assets.domain.llm.contract.Provider`) plus a factory
``(LlmConfig, ProviderOptions) -> Provider``. Adding one (e.g. the deterministic ``heuristic``
provider, which answers from ``request.stage`` and ``request.stage_context``) is one entry here;
the correction loop does not change.
"""

from resources.llm.anthropic_provider import AnthropicProvider
from resources.llm.base import ProviderFactory, ProviderOptions
from resources.llm.heuristic import HeuristicProvider
from resources.llm.openai_compatible import OpenAICompatibleProvider
from resources.llm.replay import ReplayProvider
from vba_assets.domain.llm.contract import Provider
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.llm_config import LlmConfig

PROVIDER_FACTORIES: dict[str, ProviderFactory] = {
    "anthropic": AnthropicProvider.from_config,
    "openai_compatible": OpenAICompatibleProvider.from_config,
    "replay": ReplayProvider.from_config,
    "heuristic": HeuristicProvider.from_config,
}


def build_provider(config: LlmConfig, options: ProviderOptions | None = None) -> Provider:
    """The provider ``config.provider`` names, built with ``options`` (environment, transports)."""
    factory = PROVIDER_FACTORIES.get(config.provider)
    if factory is None:
        available = ", ".join(sorted(PROVIDER_FACTORIES))
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{config.source}: provider: {config.provider!r} is not installed in this build "
            f"(available: {available})",
            key="provider",
        )
    return factory(config, options or ProviderOptions())


__all__ = [
    "PROVIDER_FACTORIES",
    "AnthropicProvider",
    "HeuristicProvider",
    "OpenAICompatibleProvider",
    "ProviderFactory",
    "ProviderOptions",
    "ReplayProvider",
    "build_provider",
]
