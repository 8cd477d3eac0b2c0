"""The cost of one dispatch record: the configured table, else genai-prices, else none.

``observe_call`` is the one pricing rule (``vba eval`` and the Dagster figures both call it); the
list prices are genai-prices' bundled data of its pinned release.
"""

from datetime import UTC, datetime

import pytest

from vba_assets.domain.llm.contract import DispatchRecord, TokenUsage
from vba_assets.evaluation.observations import Price
from vba_assets.evaluation.observing import observe_call
from vba_assets.evaluation.pricing import CONFIG_SOURCE, GENAI_PRICES_SOURCE
from vba_assets.pipeline.usage import attempt_times

SENT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _record(
    provider: str = "anthropic", model: str = "claude-sonnet-4-6", **usage: int
) -> DispatchRecord:
    return DispatchRecord(
        record_version=2,
        stage="resolution_plan",
        attempt=1,
        provider=provider,
        model=model,
        parameters={},
        protocol_version=4,
        output_name="submit_resolution_plan",
        base_request_sha256="0" * 64,
        request_sha256="1" * 64,
        request={},
        outcome="accepted",
        usage=TokenUsage(**usage),
    )


def test_a_known_model_is_priced_by_genai_prices_without_a_table() -> None:
    # Anthropic's input_tokens exclude the cached ones: 620 uncached x $3, 3100 cache writes x
    # $3.75, 180 cache reads x $0.30, 200 output x $15 per million tokens (Sonnet 4.6 list price)
    record = _record(input=620, cache_creation=3100, cache_read=180, output=200)
    call = observe_call(record, "anthropic", None, SENT)
    assert call.price_source == GENAI_PRICES_SOURCE == "genai-prices 0.2.5"
    assert call.cost_microusd == 620 * 3 + round(3100 * 3.75) + round(180 * 0.3) + 200 * 15
    # a dated model id matches its family; the replay provider is priced as the frozen one
    dated = _record(provider="replay", model="claude-sonnet-4-5-20250929", input=1000, output=0)
    assert observe_call(dated, "anthropic", {}, SENT).cost_microusd == 3000


def test_the_price_is_the_one_in_force_when_the_request_was_sent() -> None:
    # Sonnet 4.6 billed prompts over 200k tokens at $6 until 2026-03-13, then $3 flat
    record = _record(input=300_000, output=0)
    assert observe_call(
        record, "anthropic", None, datetime(2026, 1, 5, tzinfo=UTC)
    ).cost_microusd == (1_800_000)
    assert observe_call(record, "anthropic", None, SENT).cost_microusd == 900_000
    # an attempt whose send time is unknown is not priced from a list (never "today's" price)
    assert observe_call(record, "anthropic", None, None).cost_microusd is None


def test_the_configured_table_overrides_genai_prices() -> None:
    record = _record(input=1000, output=100)
    negotiated = {"claude-sonnet-4-6": Price(input=1.0, output=2.0)}
    call = observe_call(record, "anthropic", negotiated, SENT)
    assert (call.cost_microusd, call.price_source) == (1000 + 200, CONFIG_SOURCE)
    # the table also prices what genai-prices never does (no send time needed)
    local = _record(provider="openai_compatible", model="local-model", input=5000, output=10)
    call = observe_call(local, "openai_compatible", {"local-model": Price(0.0, 0.0)}, None)
    assert (call.cost_microusd, call.price_source) == (0, CONFIG_SOURCE)


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        ("anthropic", "claude-nonexistent-9"),  # genai-prices does not list it
        ("heuristic", "vba-heuristic"),  # no list price for the local baseline
        # an OpenAI-compatible server may be self-hosted: a listed name is not priced from a list
        ("openai_compatible", "gpt-4o"),
        ("scripted", "claude-sonnet-4-6"),  # a provider the registry does not know
    ],
)
def test_an_unknown_model_or_unlisted_provider_gives_no_cost(provider: str, model: str) -> None:
    call = observe_call(_record(provider, model, input=1000, output=100), provider, None, SENT)
    assert (call.cost_microusd, call.price_source) == (None, None)
    assert call.prompt_tokens == 1000  # the tokens are still counted


def test_attempt_times_are_the_events_send_times() -> None:
    events = [
        {"seq": 1, "at": "2026-12-01T10:00:00.000000Z", "event": "started"},
        {
            "seq": 2,
            "at": "2026-12-01T10:00:03.000000Z",
            "event": "dispatched",
            "stage": "resolution_plan",
            "attempt": 1,
            "started_at": "2026-12-01T10:00:01.500000Z",
        },
        # a recovered attempt has no timing: the time its event was logged
        {
            "seq": 3,
            "at": "2026-12-02T08:00:00.000000Z",
            "event": "rejected",
            "stage": "interpretation",
            "attempt": 2,
            "recovered": True,
        },
    ]
    assert attempt_times(events) == {
        ("resolution_plan", 1): datetime(2026, 12, 1, 10, 0, 1, 500000, tzinfo=UTC),
        ("interpretation", 2): datetime(2026, 12, 2, 8, 0, tzinfo=UTC),
    }
