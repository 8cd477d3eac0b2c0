"""The price of one model call: the configured table's row, else genai-prices, else none.

Two sources, in this order:

1. the project's price table (``vba eval --prices``, ``[operations] prices``): a row for the
   call's model name wins, whatever the provider (``local-model = 0`` prices a self-hosted
   server, a negotiated price overrides the list price);
2. `genai-prices <https://github.com/pydantic/genai-prices>`_, the list prices it bundles for the
   provider named by the provider's :attr:`~vba_assets.provider_registry.ProviderSpec.genai_prices_provider`
   (``anthropic``). A provider without one (``openai_compatible``: any server, often
   self-hosted, whose model names say nothing of what it bills; ``heuristic``; ``replay``) is
   priced by the table only.

A model in neither gives no cost. genai-prices is pinned exactly (pyproject.toml): its data is
part of what a recorded cost means, so :data:`GENAI_PRICES_SOURCE` names the release, and the
price is the one in force when the request was sent (``requested_at``; its data has prices that
start on a date and off-peak hours), never "today's": the same records give the same cost on any
day. A call whose send time is unknown is not priced by genai-prices. Only the data bundled with
the package is read (its updater, which downloads newer data, is never started).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_EVEN
from importlib.metadata import version

from vba_assets.evaluation.observations import Price

#: ``price_source`` of a call priced by the configured table.
CONFIG_SOURCE = "config"
#: ``price_source`` of a call priced by genai-prices: the package and its (pinned) release.
GENAI_PRICES_SOURCE = f"genai-prices {version('genai-prices')}"


@dataclass(frozen=True)
class CallTokens:
    """What one call is billed on (``prompt``: every input token, cached ones included)."""

    prompt: int
    cache_write: int
    cache_read: int
    output: int


@dataclass(frozen=True)
class CallCost:
    """One call's cost in micro-dollars and which source priced it."""

    microusd: int
    source: str


def call_cost(
    model: str,
    tokens: CallTokens,
    prices: Mapping[str, Price] | None,
    genai_provider: str | None,
    requested_at: datetime | None,
) -> CallCost | None:
    """The cost of one call (see the module docstring); None when no source has a price."""
    price = (prices or {}).get(model)
    if price is not None:
        cost = price.cost_microusd(
            tokens.prompt, tokens.cache_write, tokens.cache_read, tokens.output
        )
        return CallCost(cost, CONFIG_SOURCE)
    if genai_provider is None or requested_at is None:
        return None
    listed = genai_prices_microusd(model, tokens, genai_provider, requested_at)
    return None if listed is None else CallCost(listed, GENAI_PRICES_SOURCE)


def genai_prices_microusd(
    model: str, tokens: CallTokens, provider: str, requested_at: datetime
) -> int | None:
    """genai-prices' price of one call in micro-dollars, None for a model it does not list."""
    # Imported here: loading its price data takes ~0.15 s, which a command that prices nothing
    # (`vba lookup`) should not pay.
    import genai_prices

    usage = genai_prices.Usage(
        input_tokens=tokens.prompt,  # genai-prices' input_tokens include the cached ones
        cache_write_tokens=tokens.cache_write,
        cache_read_tokens=tokens.cache_read,
        output_tokens=tokens.output,
    )
    try:
        priced = genai_prices.calc_price(
            usage, model, provider_id=provider, genai_request_timestamp=requested_at
        )
    except LookupError:
        return None
    return int((priced.total_price * 1_000_000).to_integral_value(ROUND_HALF_EVEN))
