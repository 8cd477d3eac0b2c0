"""The model providers (ARCHITECTURE 8) and :func:`build_provider`, which builds one from a config.

The providers are listed once, in :data:`vba_assets.provider_registry.PROVIDERS`: a provider is a class
with ``name``, ``wire_request`` and ``send`` (:class:`~vba_assets.domain.llm.contract.Provider`)
plus a factory ``(LlmConfig, ProviderOptions) -> Provider``. The correction loop does not change
when one is added. Provider modules are imported only when their provider is built.
"""

import importlib
from collections.abc import Callable
from typing import cast

from resources.llm.base import ProviderFactory, ProviderOptions
from vba_assets.domain.llm.contract import Provider
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.llm_config import LlmConfig
from vba_assets.provider_registry import PROVIDERS, ProviderSpec


def provider_factory(spec: ProviderSpec) -> ProviderFactory:
    """Import the factory ``spec`` names (``module:Class.method``)."""
    module_name, _, path = spec.factory.partition(":")
    target: object = importlib.import_module(module_name)
    for part in path.split("."):
        target = getattr(target, part)
    return cast(ProviderFactory, target)


def build_provider(
    config: LlmConfig,
    options: ProviderOptions | None = None,
    *,
    registry: dict[str, ProviderSpec] | None = None,
) -> Provider:
    """The provider ``config.provider`` names, built with ``options`` (environment, transports)."""
    providers = PROVIDERS if registry is None else registry
    spec = providers.get(config.provider)
    if spec is None:
        available = ", ".join(sorted(providers))
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{config.source}: provider: {config.provider!r} is not installed in this build "
            f"(available: {available})",
            key="provider",
        )
    factory: Callable[..., Provider] = provider_factory(spec)
    return factory(config, options or ProviderOptions())


__all__ = ["PROVIDERS", "ProviderFactory", "ProviderOptions", "ProviderSpec", "build_provider"]
