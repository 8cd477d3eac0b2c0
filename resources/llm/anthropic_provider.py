"""The ``anthropic`` provider: the official SDK, structured output by strict tool or JSON output.

One :meth:`AnthropicProvider.send` is exactly one ``POST /v1/messages`` (``max_retries=0``: the
correction loop owns retries, so every attempt is recorded). The output schema is the input schema
of one tool, and ``tool_choice`` forces that tool, so the reply's ``tool_use`` input is the output.
From protocol 4 on, with a schema in the ``anthropic_strict`` dialect, the tool is ``strict``
(``response_format = "strict_tool"``, the default: grammar-constrained tool input) or the schema
is a JSON output format instead of a tool (``"json_schema"``: ``output_config.format``; the reply's
text block is the output). API shapes as in the SDK (anthropic 2.10, ``types/tool_param.py``
``strict``, ``types/output_config_param.py`` ``format``) and Anthropic's structured-outputs docs.
Static content comes first and the system prompt carries ``cache_control`` so prompt caching can
apply (tools, then system, then messages).

Stop reasons: ``end_turn``/``tool_use``/``stop_sequence`` finish normally (accepted only with the
tool's ``tool_use`` block and a valid object); ``max_tokens`` is incomplete, ``refusal`` a refusal,
``pause_turn`` paused, ``model_context_window_exceeded`` a context overflow: recorded with their
body, never accepted. The raw body is read once and parsed by
:class:`~resources.llm.base.HttpProvider`, so what is recorded is exactly what was read.
"""

import json
from collections.abc import Sequence
from typing import Any, Literal

import anthropic
import httpx2

from resources.llm.base import (
    HttpExchange,
    HttpProvider,
    ProviderOptions,
    ReplyContent,
    as_int,
    as_object,
    require_api_key,
    timeout_fault,
    transport_fault,
)
from vba_assets.domain.llm.contract import (
    ChatMessage,
    Finish,
    ModelRequest,
    ProviderFault,
    TokenUsage,
)
from vba_assets.domain.llm.schemas import STRICT_DIALECTS
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
#: How a protocol 4 request's schema is sent (``response_format`` of the LLM config):
#: ``strict_tool`` a forced tool with ``strict: true`` (constrained decoding of the tool input),
#: ``json_schema`` a JSON output (``output_config.format``; the reply is one text block),
#: ``tool_use`` a forced tool without ``strict`` (protocol 1-3 always send this).
AnthropicMode = Literal["strict_tool", "json_schema", "tool_use"]
#: Body fields the SDK takes as keyword arguments; any other field (``temperature``, which the
#: 2.x SDK no longer names) is sent as ``extra_body``, so the wire body is the same either way.
SDK_PARAMETERS = frozenset({"model", "max_tokens", "messages", "system", "tools", "tool_choice"})


class AnthropicProvider(HttpProvider):
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
        response_format: AnthropicMode = "strict_tool",
    ) -> None:
        super().__init__(api_key=api_key)
        self._cache_system = cache_system
        self._format: AnthropicMode = response_format
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout_s,
            max_retries=0,
            http_client=http_client,
        )

    @classmethod
    def from_config(cls, config: LlmConfig, options: ProviderOptions) -> "AnthropicProvider":
        return cls(
            api_key=require_api_key(config, options.env),
            base_url=config.base_url,
            timeout_s=config.timeout_s,
            http_client=options.anthropic_http_client,
            response_format=_mode_of(config),
        )

    def close(self) -> None:
        self._client.close()

    def mode(self, request: ModelRequest) -> AnthropicMode:
        """How ``request``'s schema is sent: the configured mode when the request's schema is in
        a strict dialect (protocol 4 on), else a plain forced tool (every older request)."""
        if request.schema_dialect in STRICT_DIALECTS:
            return self._format
        return "tool_use"

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        """The exact ``/v1/messages`` body (the key travels in a header, never here).

        Order as the API assembles the prompt, static first: the schema (tool or JSON output
        format), the system text with the one cache breakpoint (``cache_control``), then the
        conversation. Protocol 4's system text ends with every static item, so the breakpoint
        caches the whole static prefix; per-case text is never written to the cache.
        """
        mode = self.mode(request)
        body: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens}
        if mode == "json_schema":
            body["output_config"] = {
                "format": {"type": "json_schema", "schema": request.output_schema}
            }
        else:
            tool: dict[str, Any] = {
                "name": request.output_name,
                "description": TOOL_DESCRIPTION,
                "input_schema": request.output_schema,
            }
            if mode == "strict_tool":
                tool["strict"] = True
            body["tools"] = [tool]
            body["tool_choice"] = {"type": "tool", "name": request.output_name}
        if request.system:
            block: dict[str, Any] = {"type": "text", "text": request.system}
            if self._cache_system:
                block["cache_control"] = {"type": "ephemeral"}
            body["system"] = [block]
        body["messages"] = [{"role": m.role, "content": m.content} for m in messages]
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    def _exchange(self, body: dict[str, Any]) -> HttpExchange | ProviderFault:
        try:
            raw = self._client.messages.with_raw_response.create(
                **{key: value for key, value in body.items() if key in SDK_PARAMETERS},
                extra_body={k: v for k, v in body.items() if k not in SDK_PARAMETERS} or None,
            )
        except anthropic.APIStatusError as exc:
            return HttpExchange(
                exc.status_code,
                _safe_text(exc.response),
                failed=True,
                headers=exc.response.headers,
                request_id=exc.request_id,
            )
        except anthropic.APITimeoutError:
            return timeout_fault(self.name)
        except anthropic.APIConnectionError as exc:
            return transport_fault(self.name, timed_out=False, reason=type(exc.__cause__).__name__)
        return HttpExchange(
            raw.status_code,
            raw.http_response.text,
            request_id=raw.request_id,
            retries=raw.retries_taken,
        )

    def _body_problem(self, data: Any) -> str | None:
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            return "not a Messages API message"
        return None

    def _read_reply(self, request: ModelRequest, data: dict[str, Any]) -> ReplyContent:
        stop_reason = data.get("stop_reason")
        output_text: str | None = None
        json_output = self.mode(request) == "json_schema"  # the output is the text blocks
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
        if json_output:
            output_text, texts = ("".join(texts) if texts else None), []
        usage = as_object(data.get("usage"))
        return ReplyContent(
            output_text=output_text,
            text="\n".join(texts) if texts else None,
            stop_reason=stop_reason if isinstance(stop_reason, str) else None,
            finish=STOP_REASON_FINISH.get(stop_reason, "unknown")
            if isinstance(stop_reason, str)
            else "unknown",
            usage=TokenUsage(
                input=as_int(usage.get("input_tokens")),
                output=as_int(usage.get("output_tokens")),
                cache_creation=as_int(usage.get("cache_creation_input_tokens")),
                cache_read=as_int(usage.get("cache_read_input_tokens")),
            ),
        )


def _mode_of(config: LlmConfig) -> AnthropicMode:
    if config.response_format == "json_schema":
        return "json_schema"
    return "tool_use" if config.response_format == "tool_use" else "strict_tool"


def _safe_text(response: httpx2.Response) -> str | None:
    try:
        return response.text
    except Exception:  # a streamed body that was never read
        return None
