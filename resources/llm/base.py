"""Shared plumbing of the HTTP providers: fault classification, ``retry-after``, keys, redaction.

Providers map one provider-neutral :class:`~vba_assets.domain.llm.contract.ModelRequest` to one
HTTP request and the response back to a
:class:`~vba_assets.domain.llm.contract.ProviderReply`. Everything a provider hands back
(bodies, messages, error text) has its API key redacted first, so no record, log line or exception
can carry it.

:class:`HttpProvider` is the connection side every HTTP provider shares: one request per
:meth:`~HttpProvider.send`, fault classification, redaction, JSON parsing and reply assembly. A
provider subclass keeps only its client and its message mapping: the wire body
(``wire_request``), one round trip (``_exchange``) and reading its API's reply (``_body_problem``,
``_read_reply``).
"""

import email.utils
import functools
import json
import logging
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.world import CatalogSearch
from vba_assets.domain.llm.contract import (
    ChatMessage,
    DispatchRecord,
    Finish,
    ModelRequest,
    Provider,
    ProviderFault,
    ProviderReply,
    TokenUsage,
)
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.llm_config import LlmConfig

if TYPE_CHECKING:  # the SDKs' HTTP libraries are imported only by the provider that uses them
    import httpx
    import httpx2

REDACTED = "[REDACTED]"
_HTTPCORE_PARTS = ("connection", "connection_pool", "http11", "http2", "proxy", "socks")
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
    anthropic_http_client: "httpx2.Client | None" = None
    #: For ``openai_compatible``: an ``httpx.BaseTransport``, e.g. ``httpx.MockTransport``.
    openai_transport: "httpx.BaseTransport | None" = None
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


def require_api_key(config: LlmConfig, env: Mapping[str, str]) -> str:
    """The API key a provider cannot work without (:func:`resolve_api_key` with ``required``)."""
    api_key = resolve_api_key(config, env, required=True)
    assert api_key is not None  # resolve_api_key raises instead of returning None when required
    return api_key


def redact(text: str | None, secrets: Iterable[str]) -> str | None:
    """``text`` with every occurrence of each secret replaced by ``[REDACTED]``: written out, or
    with any of its characters as a JSON ``\\uXXXX`` escape at any nesting depth (``\\u0073``
    in a body, ``\\\\u0073`` in JSON text inside a JSON string), so nothing decoded from the
    redacted text can hold the secret either."""
    if text is None:
        return None
    pattern = _secret_pattern(tuple(secret for secret in secrets if secret))
    return text if pattern is None else pattern.sub(REDACTED, text)


#: The loggers of the HTTP clients and SDKs that log response headers at DEBUG (measured with
#: anthropic 2.x over httpx2/httpcore2 and httpx/httpcore): a filter redacts their records.
CLIENT_LOGGERS = (
    "anthropic._base_client",
    "anthropic._response",
    "openai._base_client",
    "httpx",
    "httpx2",
    *(f"{core}.{part}" for core in ("httpcore", "httpcore2") for part in _HTTPCORE_PARTS),
)
_scrubbed_secrets: set[str] = set()


class _SecretScrubber(logging.Filter):
    """Redacts every registered API key from a log record's message (any spelling)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _scrubbed_secrets:
            message = record.getMessage()
            clean = redact(message, _scrubbed_secrets)
            if clean != message:
                record.msg, record.args = clean, None
        return True


_SCRUBBER = _SecretScrubber()


def scrub_client_logs(secrets: Iterable[str]) -> None:
    """Register ``secrets`` and make sure the client loggers redact them: an HTTP library at
    DEBUG logs response headers, which a server may fill with anything (the key included)."""
    _scrubbed_secrets.update(secret for secret in secrets if secret)
    for name in CLIENT_LOGGERS:
        logger = logging.getLogger(name)
        if _SCRUBBER not in logger.filters:
            logger.addFilter(_SCRUBBER)


@functools.lru_cache(maxsize=16)
def _secret_pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regular expression matching every secret in every spelling :func:`redact` removes."""
    if not secrets:
        return None
    spellings = []
    for secret in sorted(set(secrets), key=len, reverse=True):
        parts = []
        for char in secret:
            if ord(char) > 0xFFFF:
                parts.append(re.escape(char))
                continue
            digits = "".join(
                f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in f"{ord(char):04x}"
            )
            parts.append(f"(?:{re.escape(char)}|\\\\+u{digits})")
        spellings.append("".join(parts))
    return re.compile("|".join(spellings))


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


def timeout_fault(provider: str) -> ProviderFault:
    """A request that got no response within the configured ``timeout_s`` (retryable)."""
    return transport_fault(provider, timed_out=True, reason="no response within timeout_s")


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


def as_object(value: Any) -> dict[str, Any]:
    """A JSON object field, or ``{}`` when the body holds something else there."""
    return value if isinstance(value, dict) else {}


def as_int(value: Any) -> int | None:
    """A JSON integer field (a token count), or None when the body holds something else there."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --- the connection side of an HTTP provider ------------------------------------------------------


@dataclass(frozen=True)
class HttpExchange:
    """One HTTP round trip as a provider's client saw it, before anything is read from it."""

    status_code: int
    #: The response body as the client read it (None when it could not be read).
    text: str | None
    #: The API refused the request, by the client's own rule (HTTP >= 400, an SDK status error).
    failed: bool = False
    headers: Mapping[str, str] = field(default_factory=dict)
    request_id: str | None = None
    #: Retries the client made on its own (0: the correction loop owns retries).
    retries: int = 0


@dataclass(frozen=True)
class ReplyContent:
    """What a provider's message mapping reads from a successful body (redacted afterwards)."""

    output_text: str | None
    text: str | None
    stop_reason: str | None
    finish: Finish
    usage: TokenUsage


class HttpProvider(ABC):
    """One HTTP model API. :meth:`send` is exactly one request; subclasses map the messages.

    Implements :class:`~vba_assets.domain.llm.contract.Provider`. Only the subclass's client
    sends the API key; this class keeps it solely to redact it from everything handed back.
    """

    name: str

    def __init__(self, *, api_key: str | None) -> None:
        self._secrets: tuple[str, ...] = (api_key,) if api_key else ()
        scrub_client_logs(self._secrets)

    @abstractmethod
    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        """The exact body this provider sends for ``messages`` (no credentials)."""

    @abstractmethod
    def close(self) -> None:
        """Release the client's connections."""

    @abstractmethod
    def _exchange(self, body: dict[str, Any]) -> HttpExchange | ProviderFault:
        """Send ``body`` once; a request that got no response is *returned* as its fault.

        Returned, not raised: :meth:`send` raises it outside the client's ``except`` block, so the
        client's exception (which holds the request and its auth header) is neither the cause nor
        the context of what callers see.
        """

    @abstractmethod
    def _body_problem(self, data: Any) -> str | None:
        """Why a parsed success body is not this API's reply (None when it is)."""

    @abstractmethod
    def _read_reply(self, request: ModelRequest, data: dict[str, Any]) -> ReplyContent:
        """The output, free text, stop reason and usage of a body that passed the shape check."""

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        """Send one request; raise :class:`ProviderFault` on a provider failure.

        One redaction pass before anything is read: the body text, every header value and the
        request id of every reply (success or error) lose the API key in any spelling
        (:func:`redact`), so whatever is decoded from them afterwards (ids, stop reasons, output,
        issue messages, the next correction request) cannot hold it.
        """
        outcome = self._redacted(self._exchange(self.wire_request(request, messages)))
        if isinstance(outcome, ProviderFault):
            raise outcome
        if outcome.failed:
            raise status_fault(
                self.name,
                outcome.status_code,
                body=outcome.text,
                headers=outcome.headers,
                request_id=outcome.request_id,
                secrets=self._secrets,
            )
        return self._reply(request, outcome, outcome.text or "")

    def _redacted(self, outcome: HttpExchange | ProviderFault) -> HttpExchange | ProviderFault:
        if isinstance(outcome, ProviderFault):
            return outcome
        return HttpExchange(
            outcome.status_code,
            redact(outcome.text, self._secrets),
            failed=outcome.failed,
            headers={
                key: redact(value, self._secrets) or "" for key, value in outcome.headers.items()
            },
            request_id=redact(outcome.request_id, self._secrets),
            retries=outcome.retries,
        )

    def _reply(self, request: ModelRequest, exchange: HttpExchange, text: str) -> ProviderReply:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise body_fault(self.name, exchange.status_code, text, f"not JSON ({exc})") from None
        problem = self._body_problem(data)
        if problem is not None:
            raise body_fault(self.name, exchange.status_code, text, problem)
        content = self._read_reply(request, data)
        return ProviderReply(
            status_code=exchange.status_code,
            response_body=text,
            # read from redacted text, and redacted again: nothing here can hold the key
            output_text=redact(content.output_text, self._secrets),
            text=redact(content.text, self._secrets),
            stop_reason=redact(content.stop_reason, self._secrets),
            finish=content.finish,
            usage=content.usage,
            request_id=exchange.request_id,
            response_id=redact(data.get("id"), self._secrets)
            if isinstance(data.get("id"), str)
            else None,
            provider_retries=exchange.retries,
        )


#: Builds a provider from its config; registered per provider name in ``resources.llm``.
ProviderFactory = Callable[[LlmConfig, ProviderOptions], Provider]
