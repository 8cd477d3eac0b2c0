"""The one provider registry: the names a config accepts, their defaults and how to build them.

It lives beside the LLM config (not in ``resources/llm``) so that loading a config imports no
provider module: each factory is named by its import path and loaded only when built.

Adding a provider is one module (a class with ``name``, ``wire_request``, ``send`` and a factory
``from_config(LlmConfig, ProviderOptions)``) plus one :class:`ProviderSpec` here; the LLM config
(``vba_assets/llm_config.py``) validates names, defaults and options against this table, and
:func:`resources.llm.build_provider` imports the factory only when the provider is built (so
loading a config never imports an SDK).
"""

from dataclasses import dataclass
from typing import Literal

from vba_assets.domain.llm.schemas import SchemaDialect

ResponseFormat = Literal["strict_tool", "tool_use", "json_schema", "json_object", "text"]


@dataclass(frozen=True)
class ProviderSpec:
    """One provider.

    Attributes:
        name: What ``provider`` in an LLM config selects.
        factory: ``module:Class.method`` building it from ``(LlmConfig, ProviderOptions)``.
        network: Sends requests over HTTP: needs ``model`` (and may need a key).
        api_key_env: The default environment variable of its API key (None: no key by default).
        response_formats: The ``response_format`` values it takes; the first is the default.
        requires_base_url: ``base_url`` must be set (a self-hosted server).
        schema_dialect: How output schemas are shaped for it (frozen with each revision).
        format_dialects: The dialect of a response format when it differs from
            ``schema_dialect`` (a strict format needs a strict dialect).
        input_includes_cached: The usage's input tokens already count the cached ones
            (OpenAI's ``prompt_tokens``); False when cache reads and writes come on top
            (Anthropic's ``input_tokens``).
        genai_prices_provider: The genai-prices provider id whose list prices a call of it
            costs when the price table has no row for its model
            (:mod:`vba_assets.evaluation.pricing`); None: priced by the table only.
    """

    name: str
    factory: str
    network: bool = False
    api_key_env: str | None = None
    response_formats: tuple[ResponseFormat, ...] = ()
    requires_base_url: bool = False
    schema_dialect: SchemaDialect = "json_schema"
    format_dialects: tuple[tuple[ResponseFormat, SchemaDialect], ...] = ()
    input_includes_cached: bool = True
    genai_prices_provider: str | None = None

    def dialect_of(self, response_format: ResponseFormat | None) -> SchemaDialect:
        """The schema dialect a revision freezes for ``response_format``."""
        for name, dialect in self.format_dialects:
            if name == response_format:
                return dialect
        return self.schema_dialect


PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec(
            "anthropic",
            "resources.llm.anthropic_provider:AnthropicProvider.from_config",
            network=True,
            api_key_env="ANTHROPIC_API_KEY",
            response_formats=("strict_tool", "tool_use", "json_schema"),
            schema_dialect="anthropic",
            format_dialects=(
                ("strict_tool", "anthropic_strict"),
                ("json_schema", "anthropic_strict"),
            ),
            input_includes_cached=False,
            genai_prices_provider="anthropic",
        ),
        ProviderSpec(
            "openai_compatible",
            "resources.llm.openai_compatible:OpenAICompatibleProvider.from_config",
            network=True,
            response_formats=("json_schema", "json_object", "text"),
            requires_base_url=True,
            format_dialects=(("json_schema", "openai_strict"),),
            # Any server speaking the OpenAI API, often self-hosted: its model names say
            # nothing of what it bills, so only the price table prices it.
        ),
        ProviderSpec("replay", "resources.llm.replay:ReplayProvider.from_config"),
        ProviderSpec("heuristic", "resources.llm.heuristic:HeuristicProvider.from_config"),
    )
}
#: What a config without ``provider`` selects: the deterministic local baseline (no key).
DEFAULT_PROVIDER = "heuristic"
