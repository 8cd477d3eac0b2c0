"""LLM config: every example loads, bad keys are named, and no secret is read or echoed."""

from pathlib import Path
from typing import Any

import pytest

from resources.llm import PROVIDERS, ProviderOptions, build_provider
from resources.llm.anthropic_provider import AnthropicProvider
from resources.llm.openai_compatible import OpenAICompatibleProvider
from vba_assets.domain.llm.policy import RetryPolicy
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.llm_config import PROVIDER_NAMES, LlmConfig, load_llm_config, parse_llm_config

REPO = Path(__file__).resolve().parents[3]
PASTED_KEY = "sk-ant-api03-PASTED-BY-MISTAKE"


def parse(**data: Any) -> LlmConfig:
    return parse_llm_config(data, source="llm.toml")


def config_error(**data: Any) -> ConfigError:
    with pytest.raises(ConfigError) as raised:
        parse(**data)
    assert raised.value.code is ErrorCode.CONFIG_INVALID
    return raised.value


def test_the_example_documents_and_sets_every_key() -> None:
    config = load_llm_config(REPO / "config" / "llm.example.toml")
    assert (config.provider, config.model, config.api_key_env) == (
        "anthropic",
        "claude-sonnet-4-6",
        "ANTHROPIC_API_KEY",
    )
    assert config.retry == RetryPolicy(
        max_retries=4, backoff_base_s=2.0, backoff_cap_s=60.0, max_wait_s=60.0
    )
    text = (REPO / "config" / "llm.example.toml").read_text(encoding="utf-8")
    for key in [*LlmConfig.model_fields, *RetryPolicy.model_fields]:
        if key == "retry":
            assert "\n[retry]\n" in text
        elif key != "source":
            assert f"\n{key} =" in text or f"\n# {key} =" in text, key


def test_defaults_select_the_heuristic_provider_without_a_key() -> None:
    config = load_llm_config(None)
    assert config.provider == "heuristic" and config.api_key_env is None
    assert tuple(PROVIDERS) == PROVIDER_NAMES


def test_provider_defaults() -> None:
    anthropic = parse(provider="anthropic", model="m")
    assert (anthropic.api_key_env, anthropic.response_format) == (
        "ANTHROPIC_API_KEY",
        "strict_tool",
    )
    openai = parse(provider="openai_compatible", model="m", base_url="http://127.0.0.1:1/v1/")
    assert (openai.api_key_env, openai.response_format) == (None, "json_schema")
    assert openai.base_url == "http://127.0.0.1:1/v1"


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"provider": "anthropic"}, "model"),
        ({"provider": "openai_compatible", "model": "m"}, "base_url"),
        ({"provider": "gpt"}, "provider"),
        (
            {"provider": "anthropic", "model": "m", "response_format": "json_object"},
            "response_format",
        ),
        ({"provider": "replay", "response_format": "text"}, "response_format"),
        ({"timeout_s": 0}, "timeout_s"),
        ({"max_tokens": "many"}, "max_tokens"),
        ({"temperature": 3}, "temperature"),
        ({"retry": {"max_retries": -1}}, "retry.max_retries"),
        ({"retry": {"backoff_base_s": 10, "backoff_cap_s": 1}}, "retry.backoff_cap_s"),
        ({"retry": {"jitter": True}}, "retry.jitter"),
        ({"modle": "typo"}, "modle"),
        ({"base_url": "https://user:secret@example.com/v1"}, "base_url"),
        ({"base_url": "ftp://example.com"}, "base_url"),
    ],
)
def test_invalid_config_names_the_key(data: dict[str, Any], key: str) -> None:
    error = config_error(**data)
    assert error.detail["key"] == key
    assert f"llm.toml: {key}:" in error.message


def test_a_literal_api_key_is_refused_and_not_echoed() -> None:
    error = config_error(provider="anthropic", model="m", api_key=PASTED_KEY)
    assert error.detail["key"] == "api_key"
    assert PASTED_KEY not in str(error) and PASTED_KEY not in repr(error.detail)


def test_a_key_pasted_into_api_key_env_is_not_echoed() -> None:
    error = config_error(provider="anthropic", model="m", api_key_env=PASTED_KEY)
    assert error.detail["key"] == "api_key_env"
    assert PASTED_KEY not in str(error) and PASTED_KEY not in repr(error.detail)


def test_files_that_are_missing_or_not_toml_fail_with_a_code(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as missing:
        load_llm_config(tmp_path / "absent.toml")
    assert missing.value.code is ErrorCode.CONFIG_NOT_FOUND
    broken = tmp_path / "broken.toml"
    broken.write_text("provider = ", encoding="utf-8")
    with pytest.raises(ConfigError) as invalid:
        load_llm_config(broken)
    assert invalid.value.code is ErrorCode.CONFIG_INVALID


def test_building_needs_the_key_from_the_named_environment_variable() -> None:
    config = parse(provider="anthropic", model="m", api_key_env="VBA_TEST_KEY")
    with pytest.raises(ConfigError) as raised:
        build_provider(config, ProviderOptions(env={}))
    assert raised.value.detail["key"] == "api_key_env"
    assert "VBA_TEST_KEY" in raised.value.message
    provider = build_provider(config, ProviderOptions(env={"VBA_TEST_KEY": "sk-test"}))
    assert isinstance(provider, AnthropicProvider)


def test_openai_compatible_builds_without_a_key_unless_one_is_named() -> None:
    config = parse(provider="openai_compatible", model="m", base_url="http://127.0.0.1:1/v1")
    assert isinstance(build_provider(config, ProviderOptions(env={})), OpenAICompatibleProvider)
    named = parse(
        provider="openai_compatible", model="m", base_url="http://127.0.0.1:1/v1", api_key_env="K"
    )
    with pytest.raises(ConfigError):
        build_provider(named, ProviderOptions(env={"K": "  "}))


def test_a_valid_provider_without_an_installed_factory_is_a_clear_config_error() -> None:
    registry = {name: spec for name, spec in PROVIDERS.items() if name != "heuristic"}
    with pytest.raises(ConfigError) as raised:
        build_provider(load_llm_config(None), ProviderOptions(env={}), registry=registry)
    assert raised.value.detail["key"] == "provider"
    assert "'heuristic' is not installed" in raised.value.message


def test_the_default_provider_is_the_installed_heuristic_baseline() -> None:
    provider = build_provider(load_llm_config(None), ProviderOptions(env={}))
    assert provider.name == "heuristic"
