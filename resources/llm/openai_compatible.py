"""The ``openai_compatible`` provider: chat completions over HTTP, ``json_object`` mode.

Any server that speaks ``POST {base_url}/chat/completions`` (OpenAI, vLLM, llama.cpp, Ollama, ...).
With ``response_format = {"type": "json_object"}`` the server only promises JSON: it receives no
schema, which is why protocol v2 puts the output schema in the user message. One
:meth:`OpenAICompatibleProvider.send` is exactly one HTTP request (``httpx``, injectable
transport); the correction loop owns retries.

``finish_reason``: ``stop`` (and ``tool_calls``) finish normally, ``length`` is incomplete,
``content_filter`` (or a ``message.refusal``) a refusal; anything else is not accepted.
"""

from collections.abc import Sequence
from typing import Any, Literal

import httpx

from resources.llm.base import (
    HttpExchange,
    HttpProvider,
    ProviderOptions,
    ReplyContent,
    as_int,
    as_object,
    resolve_api_key,
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
from vba_assets.llm_config import LlmConfig

FINISH_REASON_FINISH: dict[str, Finish] = {
    "stop": "complete",
    "tool_calls": "complete",
    "function_call": "complete",
    "length": "incomplete",
    "content_filter": "refusal",
}


class OpenAICompatibleProvider(HttpProvider):
    """Chat completions. The key (optional) lives only in the client's Authorization header."""

    name = "openai_compatible"

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        response_format: Literal["json_object", "text"] = "json_object",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(api_key=api_key)
        self._response_format = response_format
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/",
            headers=headers,
            timeout=timeout_s,
            transport=transport,
            follow_redirects=False,
        )

    @classmethod
    def from_config(cls, config: LlmConfig, options: ProviderOptions) -> "OpenAICompatibleProvider":
        assert config.base_url is not None  # enforced by LlmConfig
        response_format: Literal["json_object", "text"] = (
            "text" if config.response_format == "text" else "json_object"
        )
        return cls(
            base_url=config.base_url,
            api_key=resolve_api_key(config, options.env, required=False),
            timeout_s=config.timeout_s,
            response_format=response_format,
            transport=options.openai_transport,
        )

    def close(self) -> None:
        self._client.close()

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        """The exact ``/chat/completions`` body: system first, then the conversation."""
        wire_messages = [{"role": "system", "content": request.system}] if request.system else []
        wire_messages += [{"role": m.role, "content": m.content} for m in messages]
        body: dict[str, Any] = {
            "model": request.model,
            "messages": wire_messages,
            "max_tokens": request.max_tokens,
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if self._response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def _exchange(self, body: dict[str, Any]) -> HttpExchange | ProviderFault:
        try:
            response = self._client.post("chat/completions", json=body)
        except httpx.TimeoutException:
            return timeout_fault(self.name)
        except httpx.TransportError as exc:
            return transport_fault(self.name, timed_out=False, reason=type(exc).__name__)
        return HttpExchange(
            response.status_code,
            response.text,
            failed=response.status_code >= 400,
            headers=response.headers,
            request_id=response.headers.get("x-request-id"),
        )

    def _body_problem(self, data: Any) -> str | None:
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return "no choices[0] in the completion"
        return None

    def _read_reply(self, request: ModelRequest, data: dict[str, Any]) -> ReplyContent:
        choice = data["choices"][0]
        message = as_object(choice.get("message"))
        finish_reason = choice.get("finish_reason")
        finish: Finish = (
            FINISH_REASON_FINISH.get(finish_reason, "unknown")
            if isinstance(finish_reason, str)
            else "unknown"
        )
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal:
            finish = "refusal"
        usage = as_object(data.get("usage"))
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        return ReplyContent(
            output_text=_content_text(message.get("content")),
            text=refusal if isinstance(refusal, str) and refusal else None,
            stop_reason=finish_reason if isinstance(finish_reason, str) else None,
            finish=finish,
            usage=TokenUsage(
                input=as_int(usage.get("prompt_tokens")),
                output=as_int(usage.get("completion_tokens")),
                cache_read=as_int(cached),
            ),
        )


def _content_text(content: Any) -> str | None:
    """``message.content`` as text: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        texts = [p for p in parts if isinstance(p, str)]
        return "".join(texts) if texts else None
    return None
