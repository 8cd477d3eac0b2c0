"""Shared plumbing of the HTTP providers: fault classification, ``retry-after``, keys, redaction.

Providers map one provider-neutral :class:`~vba_assets.domain.model_contract.ModelRequest` to one
HTTP request and the response back to a
:class:`~vba_assets.domain.model_contract.ProviderReply`. Everything a provider hands back
(bodies, messages, error text) has its API key redacted first, so no record, log line or exception
can carry it.
"""

import email.utils
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from vba_assets.config import CatalogConfig
from vba_assets.domain.model_contract import DispatchRecord, Provider, ProviderFault
from vba_assets.domain.research import CatalogSearch
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.llm_config import LlmConfig

REDACTED = "[REDACTED]"
#: Status codes worth retrying: request timeout, conflict, rate limit, server errors, overload.
RETRYABLE_STATUS = frozenset({408, 409, 429})
AUTH_STATUS = frozenset({401, 403})
#: How much of an error body goes into an exception message (the record keeps all of it).
MESSAGE_BODY_LIMIT = 300


@dataclass
class ProviderOptions:
    """What building a provider may need besides its config (all optional, all injectable)."""

    #: Where API keys are read from; kept out of ``repr`` so a logged options object leaks none.
    env: Mapping[str, str] = field(default_factory=lambda: os.environ, repr=False)
    #: For ``replay``: the recorded dispatches of the revision being replayed.
    replay_records: Sequence[DispatchRecord] | None = None
    #: For ``anthropic``: an ``httpx2.Client`` (the SDK's HTTP library), e.g. with a test transport.
    anthropic_http_client: Any = None
    #: For ``openai_compatible``: an ``httpx.BaseTransport``, e.g. ``httpx.MockTransport``.
    openai_transport: Any = None
    #: For a local provider such as ``heuristic``: the operator catalogs it may cite, and a lazy
    #: accessor of the read-only catalog search (called only if the provider needs it).
    catalogs: Sequence[CatalogConfig] = ()
    catalog_search: Callable[[], CatalogSearch] | None = None


def resolve_api_key(config: LlmConfig, env: Mapping[str, str], *, required: bool) -> str | None:
    """The API key from the environment variable the config names; never from anywhere else."""
    name = config.api_key_env
    value = env.get(name, "") if name else ""
    if value.strip():
        return value.strip()
    if required or name:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{config.source}: api_key_env: the environment variable {name or '<unset>'} is not "
            f"set or empty; provider {config.provider!r} needs an API key",
            key="api_key_env",
        )
    return None


def redact(text: str | None, secrets: Iterable[str]) -> str | None:
    """``text`` with every occurrence of each secret replaced by ``[REDACTED]``."""
    if text is None:
        return None
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms``, else ``retry-after`` (secs or date)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    milliseconds = lowered.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def status_fault(
    provider: str,
    status_code: int,
    *,
    body: str | None,
    headers: Mapping[str, str],
    request_id: str | None,
    secrets: Iterable[str],
) -> ProviderFault:
    """Classify an HTTP error: 401/403 auth (final), 408/409/429/5xx retryable, others final."""
    secrets = tuple(secrets)
    clean_body = redact(body, secrets)
    excerpt = (clean_body or "").strip().replace("\n", " ")[:MESSAGE_BODY_LIMIT]
    retryable = status_code in RETRYABLE_STATUS or status_code >= 500
    code = ErrorCode.LLM_AUTH if status_code in AUTH_STATUS else ErrorCode.LLM_PROVIDER_ERROR
    hint = (
        " (check the key in the environment variable named by api_key_env)"
        if code is ErrorCode.LLM_AUTH
        else ""
    )
    return ProviderFault(
        code,
        f"{provider} answered HTTP {status_code}{hint}: {excerpt}",
        retryable=retryable,
        kind="http",
        status_code=status_code,
        retry_after_s=parse_retry_after(headers) if retryable else None,
        response_body=clean_body,
        request_id=redact(request_id, secrets),
    )


def transport_fault(provider: str, *, timed_out: bool, reason: str) -> ProviderFault:
    """A request that got no HTTP response: a timeout or a connection failure (retryable)."""
    kind = "timeout" if timed_out else "connection"
    what = "timed out" if timed_out else "could not connect"
    return ProviderFault(
        ErrorCode.LLM_PROVIDER_ERROR,
        f"{provider} request {what}: {reason}",
        retryable=True,
        kind=kind,
    )


def body_fault(provider: str, status_code: int, body: str | None, reason: str) -> ProviderFault:
    """A 2xx response whose body is not the API's JSON (a broken proxy): final, body recorded."""
    return ProviderFault(
        ErrorCode.LLM_PROVIDER_ERROR,
        f"{provider} answered HTTP {status_code} with an unusable body: {reason}",
        retryable=False,
        kind="body",
        status_code=status_code,
        response_body=body,
    )


#: Builds a provider from its config; registered per provider name in ``resources.llm``.
ProviderFactory = Callable[[LlmConfig, ProviderOptions], Provider]
