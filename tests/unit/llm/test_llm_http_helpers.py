"""Fault classification, retry-after parsing, redaction, and injectable transports."""

import json
from datetime import UTC, datetime

import httpx
import httpx2
import pytest

from resources.llm.anthropic_provider import AnthropicProvider
from resources.llm.base import REDACTED, ProviderOptions, parse_retry_after, redact, status_fault
from resources.llm.openai_compatible import OpenAICompatibleProvider
from tests.fakes.model_apis import anthropic_message, openai_completion
from tests.fakes.toy_stage import GOOD_PLAN, TOOL, plan_request
from vba_assets.errors import ErrorCode

NOW = datetime(2026, 10, 15, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (401, ErrorCode.LLM_AUTH, False),
        (403, ErrorCode.LLM_AUTH, False),
        (400, ErrorCode.LLM_PROVIDER_ERROR, False),
        (404, ErrorCode.LLM_PROVIDER_ERROR, False),
        (408, ErrorCode.LLM_PROVIDER_ERROR, True),
        (409, ErrorCode.LLM_PROVIDER_ERROR, True),
        (429, ErrorCode.LLM_PROVIDER_ERROR, True),
        (500, ErrorCode.LLM_PROVIDER_ERROR, True),
        (503, ErrorCode.LLM_PROVIDER_ERROR, True),
        (529, ErrorCode.LLM_PROVIDER_ERROR, True),
    ],
)
def test_status_classification(status: int, code: ErrorCode, retryable: bool) -> None:
    fault = status_fault(
        "p", status, body="x", headers={"retry-after": "7"}, request_id="r", secrets=()
    )
    assert (fault.code, fault.retryable, fault.status_code) == (code, retryable, status)
    assert fault.retry_after_s == (7.0 if retryable else None)


def test_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "30"}) == 30.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "30"}) == 0.25
    assert parse_retry_after({"retry-after": "Thu, 15 Oct 2026 12:01:00 GMT"}, NOW) == 60.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_redaction_and_message_excerpt() -> None:
    assert redact("key=abc; again abc", ["abc"]) == f"key={REDACTED}; again {REDACTED}"
    fault = status_fault(
        "p", 400, body="bad abc " + "x" * 1000, headers={}, request_id=None, secrets=["abc"]
    )
    assert "abc" not in fault.message and len(fault.message) < 400
    assert fault.response_body is not None and fault.response_body.endswith("x" * 1000)


def test_openai_provider_uses_an_injected_transport() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=openai_completion(json.dumps(GOOD_PLAN)))

    provider = OpenAICompatibleProvider(
        base_url="http://api.invalid/v1", api_key="k", transport=httpx.MockTransport(handle)
    )
    reply = provider.send(plan_request(), plan_request().messages)
    assert json.loads(reply.output_text or "") == GOOD_PLAN
    assert str(seen[0].url) == "http://api.invalid/v1/chat/completions"


def test_anthropic_provider_uses_an_injected_http_client() -> None:
    seen: list[httpx2.Request] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=anthropic_message(tool_name=TOOL, tool_input=GOOD_PLAN))

    client = httpx2.Client(transport=httpx2.MockTransport(handle))
    provider = AnthropicProvider(api_key="k", base_url="http://api.invalid", http_client=client)
    reply = provider.send(plan_request(), plan_request().messages)
    assert (reply.finish, json.loads(reply.output_text or "")) == ("complete", GOOD_PLAN)
    assert seen[0].url.path == "/v1/messages"


def test_provider_options_never_show_the_environment() -> None:
    options = ProviderOptions(env={"ANTHROPIC_API_KEY": "sk-ant-canary"})
    assert "sk-ant-canary" not in repr(options)
