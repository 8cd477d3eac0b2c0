"""The ``openai_compatible`` provider: chat completions over HTTP, strict ``json_schema`` mode.

Any server that speaks ``POST {base_url}/chat/completions`` (OpenAI, vLLM, llama.cpp, Ollama, ...).
Response formats (``response_format`` in the LLM config):

* ``json_schema`` (the default, protocol 4 on): ``{"type": "json_schema", "json_schema":
  {"name", "strict": true, "schema"}}`` with the schema in the ``openai_strict`` dialect: the
  server constrains decoding to the schema, and the prompt does not repeat it. A server that
  refuses it (HTTP 400/404/415/422/501 naming ``response_format`` or ``json_schema``) is an error,
  or, only with ``json_schema_fallback = "json_object"``, a recorded, immediately retried fault
  after which this provider sends ``json_object`` with the schema appended to the system text.
* ``json_object``: the server only promises JSON and receives no schema in the request format,
  which is why protocol v2/v3 put the schema in the user message and protocol 4 at the end of the
  system text.
* ``text``: no ``response_format`` (servers without JSON mode); the schema as for ``json_object``.

Requests made before protocol 4 keep their exact bodies: ``json_object`` (also when ``json_schema``
is configured) or nothing for ``text``. One :meth:`OpenAICompatibleProvider.send` is exactly one
HTTP request (``httpx``, injectable transport); the correction loop owns retries.

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
    ProviderReply,
    TokenUsage,
    append_block,
    schema_block,
)
from vba_assets.errors import ErrorCode
from vba_assets.llm_config import LlmConfig

#: ``response_format`` values this provider sends (``json_schema`` strict, ``json_object``, none).
OpenAIMode = Literal["json_schema", "json_object", "text"]
#: Status codes with which servers refuse a response format they do not support (OpenAI 400,
#: vLLM/llama.cpp 400 or 422, proxies 404/415/501); the body must also name the format.
JSON_SCHEMA_REFUSAL_STATUS = frozenset({400, 404, 415, 422, 501})

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
        response_format: OpenAIMode = "json_object",
        transport: httpx.BaseTransport | None = None,
        json_schema_fallback: Literal["json_object"] | None = None,
    ) -> None:
        super().__init__(api_key=api_key)
        self._response_format: OpenAIMode = response_format
        self._fallback = json_schema_fallback
        #: Set once the server refused ``json_schema`` and the configured fallback took over.
        self.fallen_back = False
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
        response_format: OpenAIMode = (
            "text"
            if config.response_format == "text"
            else "json_schema"
            if config.response_format == "json_schema"
            else "json_object"
        )
        return cls(
            base_url=config.base_url,
            api_key=resolve_api_key(config, options.env, required=False),
            timeout_s=config.timeout_s,
            response_format=response_format,
            transport=options.openai_transport,
            json_schema_fallback=config.json_schema_fallback,
        )

    def close(self) -> None:
        self._client.close()

    def mode(self, request: ModelRequest) -> OpenAIMode:
        """How ``request``'s output is asked for: ``json_schema`` only for a strict-dialect schema
        (protocol 4 on) before any fallback; requests made before protocol 4 as they always were."""
        if self._response_format == "text":
            return "text"
        strict = request.schema_dialect == "openai_strict"
        if self._response_format == "json_schema" and strict and not self.fallen_back:
            return "json_schema"
        return "json_object"

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        """The exact ``/chat/completions`` body: system first, then the conversation.

        A protocol 4 request whose schema is not in the prompt (a strict dialect) but goes out
        without ``json_schema`` (fallback, or ``json_object``/``text`` configured) gets the schema
        block appended to its system text, so the model always sees it exactly once.
        """
        mode = self.mode(request)
        system = request.system
        legacy = request.schema_dialect is None  # protocol 1-3: bodies as they always were
        if not legacy and mode != "json_schema" and not request.schema_in_prompt:
            system = append_block(system, schema_block(request.output_schema))
        wire_messages = [{"role": "system", "content": system}] if system else []
        wire_messages += [{"role": m.role, "content": m.content} for m in messages]
        body: dict[str, Any] = {
            "model": request.model,
            "messages": wire_messages,
            "max_tokens": request.max_tokens,
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        elif mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.output_name,
                    "strict": True,
                    "schema": request.output_schema,
                },
            }
        return body

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        """One request; a refused ``json_schema`` engages the configured fallback (see module)."""
        try:
            return super().send(request, messages)
        except ProviderFault as fault:
            if not self._refuses_json_schema(request, fault):
                raise
            self.fallen_back = True
            refused = ProviderFault(
                ErrorCode.LLM_PROVIDER_ERROR,
                f"{self.name} refused response_format json_schema (HTTP {fault.status_code}); "
                "json_schema_fallback: retrying at once with json_object and the schema in the "
                "system text",
                retryable=True,
                kind="fallback",
                status_code=fault.status_code,
                retry_after_s=0.0,
                response_body=fault.response_body,
                request_id=fault.request_id,
            )
        raise refused

    def _refuses_json_schema(self, request: ModelRequest, fault: ProviderFault) -> bool:
        if self._fallback is None or self.mode(request) != "json_schema":
            return False
        if fault.status_code not in JSON_SCHEMA_REFUSAL_STATUS:
            return False
        body = (fault.response_body or "").lower()
        return "response_format" in body or "json_schema" in body

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
