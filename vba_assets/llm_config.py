"""LLM configuration: which provider answers the model calls, and how (``config/llm.*.toml``).

Pure (stdlib + pydantic). Invalid configuration fails at load time with a
:class:`~vba_assets.errors.ConfigError` whose ``detail['key']`` names the key. No secret is ever
read from or stored in a config file: the API key is read from the environment variable that
``api_key_env`` names, when a provider is built (``resources/llm``), and a literal ``api_key`` key
is refused. Error messages never echo a value that could be a secret.
"""

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vba_assets.config import first_error_key, read_toml
from vba_assets.domain.llm.policy import RetryPolicy
from vba_assets.domain.llm.schemas import SchemaDialect
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.provider_registry import DEFAULT_PROVIDER, PROVIDERS, ResponseFormat

#: Every provider name a config may select (``vba_assets/provider_registry.py`` is the one list).
PROVIDER_NAMES = tuple(PROVIDERS)

_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")
_URL = re.compile(r"^https?://[^\s/@?#]+(/[^\s?#]*)?$")


class LlmConfig(BaseModel):
    """One LLM configuration. See ``config/llm.example.toml`` for every key."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: str = DEFAULT_PROVIDER
    model: str | None = Field(default=None, min_length=1, max_length=200)
    api_key_env: str | None = Field(
        default=None, description="Name of the environment variable that holds the API key."
    )
    base_url: str | None = None
    timeout_s: float = Field(default=120.0, gt=0, le=3600)
    max_tokens: int = Field(default=8192, ge=1, le=200_000)
    temperature: float | None = Field(default=None, ge=0, le=2)
    response_format: ResponseFormat | None = None
    json_schema_fallback: Literal["json_object"] | None = Field(
        default=None,
        description="openai_compatible with response_format json_schema: when the server "
        "refuses json_schema, retry in this mode (the schema then rides in the system text).",
    )
    max_dispatches: int = Field(default=12, ge=1, le=1000)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    source: str = "<default>"

    @model_validator(mode="before")
    @classmethod
    def _provider_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "api_key" in data:
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                f"{data.get('source', '<config>')}: api_key: API keys are never read from a config "
                "file; put the key in an environment variable and name it in api_key_env",
                key="api_key",
            )
        spec = PROVIDERS.get(str(data.get("provider", DEFAULT_PROVIDER)))
        if spec is not None:
            if spec.api_key_env:
                data.setdefault("api_key_env", spec.api_key_env)
            if spec.response_formats:
                data.setdefault("response_format", spec.response_formats[0])
        return data

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        if value not in PROVIDERS:
            raise ValueError(f"must be one of {', '.join(map(repr, PROVIDERS))}")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            # Never echo the value: a key pasted here by mistake must not reach a log.
            raise ValueError("must be an environment variable NAME (A-Z, 0-9, _), not a key")
        return value

    @field_validator("base_url")
    @classmethod
    def _plain_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not _URL.match(value):
            raise ValueError(
                "must be an http(s) URL without credentials, query or fragment, e.g. "
                "'http://127.0.0.1:8000/v1'"
            )
        return value.rstrip("/")

    @model_validator(mode="after")
    def _provider_requirements(self) -> "LlmConfig":
        def fail(key: str, reason: str) -> ConfigError:
            return ConfigError(ErrorCode.CONFIG_INVALID, f"{self.source}: {key}: {reason}", key=key)

        spec = PROVIDERS[self.provider]
        if spec.network and self.model is None:
            raise fail("model", f"required for provider {self.provider!r}")
        if spec.requires_base_url and self.base_url is None:
            raise fail("base_url", f"required for provider {self.provider!r}")
        allowed = spec.response_formats
        if not allowed and self.response_format is not None:
            raise fail("response_format", f"provider {self.provider!r} takes no response_format")
        if allowed and self.response_format not in allowed:
            raise fail(
                "response_format",
                f"provider {self.provider!r} supports {', '.join(map(repr, allowed))}",
            )
        if self.json_schema_fallback is not None and (
            self.provider != "openai_compatible" or self.response_format != "json_schema"
        ):
            raise fail(
                "json_schema_fallback",
                "only provider 'openai_compatible' with response_format 'json_schema' falls back",
            )
        if self.retry.backoff_cap_s < self.retry.backoff_base_s:
            raise fail("retry.backoff_cap_s", "must be at least retry.backoff_base_s")
        return self


def parse_llm_config(data: dict[str, Any], *, source: str) -> LlmConfig:
    """Validate a parsed TOML document (``source`` names it in errors)."""
    try:
        return LlmConfig.model_validate({**data, "source": source})
    except ValidationError as exc:
        key = first_error_key(exc)
        error = exc.errors()[0]
        reason = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        raise ConfigError(
            ErrorCode.CONFIG_INVALID, f"{source}: {key}: {reason}", key=key, source=source
        ) from None


def schema_dialect(config: LlmConfig) -> SchemaDialect:
    """How output schemas are shaped for the configured provider and response format (frozen
    with each revision): a strict format gets its strict dialect."""
    return PROVIDERS[config.provider].dialect_of(config.response_format)


def model_name(config: LlmConfig) -> str:
    """The model a revision records: the configured one, or ``vba-<provider>`` for local ones."""
    return config.model or f"vba-{config.provider}"


def load_llm_config(path: Path | str | None = None) -> LlmConfig:
    """Load an LLM config file, or the default (the deterministic ``heuristic`` provider)."""
    if path is None:
        return LlmConfig()
    path = Path(path)
    return parse_llm_config(read_toml(path, what="LLM config"), source=str(path))
