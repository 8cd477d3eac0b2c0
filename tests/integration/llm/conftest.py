"""Fixtures: a scripted local API server, providers built from config, canary keys, a fake clock.

API keys are canaries set for the test only (the session conftest clears real ones); every test
that exercises a provider checks that the canary never reaches a record, a log line or an error.
"""

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from resources.llm import ProviderOptions, build_provider
from resources.llm.anthropic_provider import AnthropicProvider
from resources.llm.openai_compatible import OpenAICompatibleProvider
from tests.fakes.api_rules import refuse_invalid
from tests.fakes.http_server import ScriptedHTTPServer
from tests.fakes.toy_stage import FakeClock
from tests.providers import API_KEY_VARS, key_vars
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.llm_config import parse_llm_config

ANTHROPIC_CANARY = "sk-ant-api03-CANARY-anthropic-7f3c19e2-never-log-me"
OPENAI_CANARY = "sk-proj-CANARY-openai-4b8d02aa-never-log-me"
#: The canary key of each provider that can carry one (test_llm_canaries.py checks the registry).
CANARY_KEYS: dict[str, str] = {"anthropic": ANTHROPIC_CANARY, "openai_compatible": OPENAI_CANARY}
CANARIES = tuple(CANARY_KEYS.values())


@pytest.fixture
def canary_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only canary keys in the environment: every key variable of the registry is removed first,
    then each provider's first key variable (its registry default) holds its canary."""
    for name in API_KEY_VARS:
        monkeypatch.delenv(name, raising=False)
    for provider, canary in CANARY_KEYS.items():
        monkeypatch.setenv(key_vars(provider)[0], canary)


@pytest.fixture
def server() -> Iterator[ScriptedHTTPServer]:
    """The local API: refuses what the real API would refuse (``tests.fakes.api_rules``)."""
    with ScriptedHTTPServer(check=refuse_invalid()) as running:
        yield running


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture every log record, DEBUG included (the SDK and httpx log requests at DEBUG)."""
    caplog.set_level(logging.DEBUG)
    return caplog


def anthropic_provider(url: str, **overrides: Any) -> AnthropicProvider:
    config = parse_llm_config(
        {"provider": "anthropic", "model": "claude-test-model", "base_url": url, "timeout_s": 5}
        | overrides,
        source="test",
    )
    provider = build_provider(config, ProviderOptions())
    assert isinstance(provider, AnthropicProvider)
    return provider


def openai_provider(url: str, **overrides: Any) -> OpenAICompatibleProvider:
    config = parse_llm_config(
        {
            "provider": "openai_compatible",
            "model": "test-model",
            "base_url": f"{url}/v1",
            "api_key_env": "OPENAI_API_KEY",
            "timeout_s": 5,
        }
        | overrides,
        source="test",
    )
    provider = build_provider(config, ProviderOptions())
    assert isinstance(provider, OpenAICompatibleProvider)
    return provider


def assert_no_secret(
    records: list[DispatchRecord], logs: pytest.LogCaptureFixture, *errors: BaseException
) -> None:
    """No canary key in any record, captured log line, or exception text and detail."""
    texts = [record.model_dump_json() for record in records]
    texts += [logs.text, *(r.getMessage() for r in logs.records)]
    for error in errors:
        texts.append(json.dumps(getattr(error, "detail", {}), default=str))
        chained: BaseException | None = error
        while chained is not None:  # the whole chain a traceback would print
            texts += [str(chained), repr(chained)]
            chained = chained.__cause__ or chained.__context__
    for canary in CANARIES:
        for text in texts:
            assert canary not in text
