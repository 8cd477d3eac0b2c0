"""The ``anthropic`` provider: the official SDK, structured output by forced tool use.

One :meth:`AnthropicProvider.send` is exactly one ``POST /v1/messages`` (``max_retries=0``: the
correction loop owns retries, so every attempt is recorded). The output schema is the input schema
of one tool, and ``tool_choice`` forces that tool, so the reply's ``tool_use`` input is the output.
Static content comes first and the system prompt carries ``cache_control`` so prompt caching can
apply (tools, then system, then messages).

Stop reasons: ``end_turn``/``tool_use``/``stop_sequence`` finish normally (accepted only with the
tool's ``tool_use`` block and a valid object); ``max_tokens`` is incomplete, ``refusal`` a refusal,
``pause_turn`` paused, ``model_context_window_exceeded`` a context overflow: recorded with their
body, never accepted. The raw body is parsed here, so what is recorded is exactly what was read.
"""

import json
from collections.abc import Sequence
from typing import Any

import anthropic
import httpx2

from resources.llm.base import (
    ProviderOptions,
    body_fault,
    redact,
    resolve_api_key,
    status_fault,
    transport_fault,
)
from vba_assets.domain.model_contract import (
    ChatMessage,
    Finish,
    ModelRequest,
    ProviderFault,
    ProviderReply,
    TokenUsage,
)
from vba_assets.llm_config import LlmConfig

STOP_REASON_FINISH: dict[str, Finish] = {
    "end_turn": "complete",
    "tool_use": "complete",
    "stop_sequence": "complete",
    "max_tokens": "incomplete",
    "refusal": "refusal",
    "pause_turn": "paused",
    "model_context_window_exceeded": "context_window_exceeded",
}
TOOL_DESCRIPTION = "Submit the result: one JSON object that validates against input_schema."
#: Body fields the SDK takes as keyword arguments; any other field (``temperature``, which the
#: 2.x SDK no longer names) is sent as ``extra_body``, so the wire body is the same either way.
SDK_PARAMETERS = frozenset({"model", "max_tokens", "messages", "system", "tools", "tool_choice"})


class AnthropicProvider:
    """Messages API via the ``anthropic`` SDK. The key is held by the SDK client only."""

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 120.0,
        http_client: httpx2.Client | None = None,
        cache_system: bool = True,
    ) -> None:
        self._secrets = (api_key,)
        self._cache_system = cache_system
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout_s,
            max_retries=0,
            http_client=http_client,
        )

    @classmethod
    def from_config(cls, config: LlmConfig, options: ProviderOptions) -> "AnthropicProvider":
        api_key = resolve_api_key(config, options.env, required=True)
        assert api_key is not None
        return cls(
            api_key=api_key,
            base_url=config.base_url,
            timeout_s=config.timeout_s,
            http_client=options.anthropic_http_client,
        )

    def close(self) -> None:
        self._client.close()

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        """The exact ``/v1/messages`` body (the key travels in a header, never here)."""
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "tools": [
                {
                    "name": request.output_name,
                    "description": TOOL_DESCRIPTION,
                    "input_schema": request.output_schema,
                }
            ],
            "tool_choice": {"type": "tool", "name": request.output_name},
        }
        if request.system:
            block: dict[str, Any] = {"type": "text", "text": request.system}
            if self._cache_system:
                block["cache_control"] = {"type": "ephemeral"}
            body["system"] = [block]
        body["messages"] = [{"role": m.role, "content": m.content} for m in messages]
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        body = self.wire_request(request, messages)
        fault: ProviderFault | None = None
        try:
            raw = self._client.messages.with_raw_response.create(
                **{key: value for key, value in body.items() if key in SDK_PARAMETERS},
                extra_body={k: v for k, v in body.items() if k not in SDK_PARAMETERS} or None,
            )
        except anthropic.APIStatusError as exc:
            fault = status_fault(
                self.name,
                exc.status_code,
                body=_safe_text(exc.response),
                headers=exc.response.headers,
                request_id=exc.request_id,
                secrets=self._secrets,
            )
        except anthropic.APITimeoutError:
            fault = transport_fault(
                self.name, timed_out=True, reason="no response within timeout_s"
            )
        except anthropic.APIConnectionError as exc:
            fault = transport_fault(self.name, timed_out=False, reason=type(exc.__cause__).__name__)
        if fault is not None:
            # Raised outside the except block: the SDK exception (which holds the request and its
            # auth header) is neither the cause nor the context of what callers see.
            raise fault
        text = redact(raw.http_response.text, self._secrets) or ""
        return self._reply(request, text, raw.status_code, raw.request_id, raw.retries_taken)

    def _reply(
        self,
        request: ModelRequest,
        text: str,
        status_code: int,
        request_id: str | None,
        retries: int,
    ) -> ProviderReply:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise body_fault(self.name, status_code, text, f"not JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise body_fault(self.name, status_code, text, "not a Messages API message")
        stop_reason = data.get("stop_reason")
        output_text: str | None = None
        texts: list[str] = []
        for block in data["content"]:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            if (
                output_text is None
                and block.get("type") == "tool_use"
                and block.get("name") == request.output_name
            ):
                tool_input = block.get("input")
                output_text = (
                    tool_input
                    if isinstance(tool_input, str)
                    else json.dumps(tool_input, ensure_ascii=False)
                )
        usage = _dict(data.get("usage"))
        return ProviderReply(
            status_code=status_code,
            response_body=text,
            output_text=redact(output_text, self._secrets),
            text=redact("\n".join(texts), self._secrets) if texts else None,
            stop_reason=stop_reason if isinstance(stop_reason, str) else None,
            finish=STOP_REASON_FINISH.get(stop_reason, "unknown")
            if isinstance(stop_reason, str)
            else "unknown",
            usage=TokenUsage(
                input=_int(usage.get("input_tokens")),
                output=_int(usage.get("output_tokens")),
                cache_creation=_int(usage.get("cache_creation_input_tokens")),
                cache_read=_int(usage.get("cache_read_input_tokens")),
            ),
            request_id=request_id,
            response_id=data.get("id") if isinstance(data.get("id"), str) else None,
            provider_retries=retries,
        )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _safe_text(response: httpx2.Response) -> str | None:
    try:
        return response.text
    except Exception:  # a streamed body that was never read
        return None
