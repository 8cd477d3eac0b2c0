"""Numeric metadata of a model-calling step: tokens, requests, corrections, latency and cost.

Dagster plots a numeric metadata entry across materializations (the asset's Plots tab), so each
figure is a ``MetadataValue.int``/``float`` of its own, never text. Two sets per step:

* ``input_tokens``, ``output_tokens``, ``cache_read_tokens``, ``cache_write_tokens``,
  ``requests``, ``corrections``, ``latency_ms`` (and ``cost_usd``): the attempts this run sent;
* the same names prefixed ``total_``: every attempt of the stage in the revision so far (what the
  case cost), including earlier blocked runs.

The token counts are the provider's own (:mod:`vba_assets.pipeline.usage`). The cost is computed
by the evaluation's own per-call rule (:func:`vba_assets.evaluation.observing.observe_call`), so a
Dagster figure and an eval report agree: the project's price table (``[operations] prices``, the
table ``vba eval --prices`` reads) when it has the model, else genai-prices' list price for the
provider and model at the time each request was sent, else no cost entry.
``price_source`` (``total_price_source``) names the source: ``config`` or ``genai-prices <release>``
(:mod:`vba_assets.evaluation.pricing`).
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dagster as dg

from vba_assets.domain.stages import Stage
from vba_assets.evaluation.observations import Price
from vba_assets.evaluation.observing import observe_call
from vba_assets.evaluation.runner import load_prices
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.usage import StageUsage, last_seq, stage_usage

#: The numeric entries of one usage set (without the ``total_`` prefix).
USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "requests",
    "corrections",
    "latency_ms",
)

_PRICES: dict[Path, dict[str, Price]] = {}


def price_table(path: Path | None) -> dict[str, Price] | None:
    """The price table of ``[operations] prices`` (read once per process), or None."""
    if path is None:
        return None
    if path not in _PRICES:
        _PRICES[path] = load_prices(path)
    return _PRICES[path]


def cost_usd(
    usage: StageUsage, provider: str, prices: Mapping[str, Price] | None
) -> tuple[float, str | None] | None:
    """The cost of ``usage``'s attempts in USD and the sources that priced them (sorted, comma
    separated; None when nothing was sent, which costs 0); None when an attempt has no price."""
    total = 0
    sources: set[str] = set()
    for record, sent in zip(usage.records, usage.requested_at, strict=True):
        call = observe_call(record, provider, prices, sent)
        if call.cost_microusd is None or call.price_source is None:
            return None
        total += call.cost_microusd
        sources.add(call.price_source)
    return total / 1_000_000, ", ".join(sorted(sources)) or None


def usage_entries(
    usage: StageUsage, prefix: str, provider: str, prices: Mapping[str, Price] | None
) -> dict[str, Any]:
    """One usage set as numeric metadata entries named ``<prefix><key>``."""
    entries: dict[str, Any] = {
        f"{prefix}{key}": dg.MetadataValue.int(getattr(usage, key))
        for key in USAGE_KEYS
        if key != "latency_ms"
    }
    entries[f"{prefix}latency_ms"] = dg.MetadataValue.float(float(usage.latency_ms))
    priced = cost_usd(usage, provider, prices)
    if priced is not None:
        entries[f"{prefix}cost_usd"] = dg.MetadataValue.float(priced[0])
        if priced[1] is not None:
            entries[f"{prefix}price_source"] = dg.MetadataValue.text(priced[1])
    return entries


class UsageMeter:
    """Notes where a stage's run starts in the revision's event log; then reports its usage."""

    def __init__(self, env: RevisionEnv, stage: Stage) -> None:
        self.env = env
        self.stage = stage
        self.start = last_seq(env.package, env.revision) if stage.calls_model else 0

    def metadata(self) -> dict[str, Any]:
        """This run's and the revision's usage of the stage (nothing for a stage without model)."""
        if not self.stage.calls_model:
            return {}
        env = self.env
        prices = price_table(env.project.operations.prices)
        provider = env.llm.provider
        run = stage_usage(env.package, env.layout, self.stage, self.start)
        total = stage_usage(env.package, env.layout, self.stage)
        entries = {
            **usage_entries(run, "", provider, prices),
            **usage_entries(total, "total_", provider, prices),
        }
        rejected = env.layout.rejected_dir(self.stage)
        if env.package.list_dir(rejected):
            entries["rejected_records"] = dg.MetadataValue.path(str(env.package.path(rejected)))
        return entries
