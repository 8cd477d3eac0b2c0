"""Protocol 4's request shapes against the local servers that play each API (real SDK / httpx).

The servers refuse what the real APIs refuse (``tests.fakes.api_rules``), so these tests show
that every stage's strict request is one the service would accept, that a server without
``json_schema`` falls back to ``json_object`` only when that is configured, and that cache usage
is recorded. The replies are fixtures: they test plumbing, not model quality.
"""

import json
from typing import Any

import pytest

from tests.fakes.api_rules import refuse_invalid
from tests.fakes.http_server import ReceivedRequest, ScriptedHTTPServer
from tests.fakes.model_apis import anthropic_reply, openai_reply
from tests.fakes.toy_stage import GOOD_PLAN, TOOL, FakeClock, Plan, plan_request, validate_plan
from tests.integration.llm.conftest import anthropic_provider, assert_no_secret, openai_provider
from tests.unit.test_stage_requests import all_requests
from vba_assets.domain.llm.call import run_stage
from vba_assets.domain.llm.contract import SCHEMA_HEADING, ModelRequest, ProviderFault, schema_text
from vba_assets.domain.llm.policy import (
    DispatchBudget,
    InMemoryRecorder,
    RetryPolicy,
    StagePolicy,
)
from vba_assets.domain.prompting.requests import RequestParams
from vba_assets.errors import ErrorCode

pytestmark = pytest.mark.usefixtures("canary_keys")


def stage_requests(dialect: Any) -> list[ModelRequest]:
    """BUG-000020's four protocol 4 requests (plan, assessment, resolved, unresolved)."""
    params = RequestParams(model="test-model", max_tokens=4096, temperature=0.0, dialect=dialect)
    return all_requests(4, params)


def run(provider: Any, request: ModelRequest, recorder: InMemoryRecorder) -> Any:
    clock = FakeClock()
    policy = StagePolicy(max_invalid_responses=2, retry=RetryPolicy(max_retries=2))
    return run_stage(
        request,
        provider,
        validate_plan,
        recorder,
        policy,
        DispatchBudget(max_dispatches=6),
        clock=clock,
        sleep=clock.sleep,
    )


# --- Anthropic ----------------------------------------------------------------------------------


@pytest.mark.parametrize("response_format", ["strict_tool", "json_schema", "tool_use"])
def test_every_stage_request_is_one_the_messages_api_accepts(
    server: ScriptedHTTPServer, response_format: str
) -> None:
    provider = anthropic_provider(server.url, response_format=response_format)
    dialect = "anthropic" if response_format == "tool_use" else "anthropic_strict"
    for request in stage_requests(dialect):
        if response_format == "json_schema":
            server.push(anthropic_reply(text="{}", stop_reason="end_turn"))
        else:
            server.push(anthropic_reply(tool_name=request.output_name, tool_input={}))
        reply = provider.send(request, request.messages)
        assert reply.output_text == "{}"
        body = server.requests[-1].json()
        assert SCHEMA_HEADING not in json.dumps(body)  # the schema is sent once, natively
        if response_format == "json_schema":
            assert "tools" not in body
            assert body["output_config"] == {
                "format": {"type": "json_schema", "schema": request.output_schema}
            }
        else:
            [tool] = body["tools"]
            assert tool["input_schema"] == request.output_schema
            assert tool.get("strict", False) is (response_format == "strict_tool")
        [system] = body["system"]  # one breakpoint, after every static item
        assert system["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][0]["content"].startswith("# ")  # per-case data only


def test_a_json_output_reply_is_accepted_from_its_text_block(server: ScriptedHTTPServer) -> None:
    server.push(anthropic_reply(text=json.dumps(GOOD_PLAN), stop_reason="end_turn"))
    recorder = InMemoryRecorder()
    provider = anthropic_provider(server.url, response_format="json_schema")

    outcome = run(provider, plan_request(4, dialect="anthropic_strict"), recorder)

    assert outcome.value == Plan.model_validate(GOOD_PLAN)
    [record] = recorder.records
    assert (record.outcome, record.text, json.loads(record.output_text or "")) == (
        "accepted",
        None,
        GOOD_PLAN,
    )
    assert "output_config" in record.request and "tools" not in record.request


def test_cache_reads_and_writes_are_recorded_per_dispatch(server: ScriptedHTTPServer) -> None:
    usage = {
        "input_tokens": 310,
        "output_tokens": 42,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 2900,
    }
    server.push(anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN, usage=usage))
    recorder = InMemoryRecorder()

    run(anthropic_provider(server.url), plan_request(4, dialect="anthropic_strict"), recorder)

    [record] = recorder.records
    assert record.usage is not None
    assert (record.usage.input, record.usage.cache_read, record.usage.cache_creation) == (
        310,
        2900,
        0,
    )


def test_the_fake_refuses_what_the_messages_api_refuses(server: ScriptedHTTPServer) -> None:
    """A strict tool with a keyword strict mode rejects never reaches a scripted reply."""
    request = plan_request(4, dialect="json_schema")  # maxLength etc.: not a strict dialect
    provider = anthropic_provider(server.url, response_format="strict_tool")
    body = provider.wire_request(request, request.messages)
    body["tools"][0]["strict"] = True
    body["tools"].append(dict(body["tools"][0]))
    check = refuse_invalid()
    refused = check(ReceivedRequest("POST", "/v1/messages", {}, json.dumps(body).encode()))
    assert refused is not None and refused.status == 400
    message = refused.body["error"]["message"]
    assert "Tool names must be unique" in message and "'maxLength' is not supported" in message


# --- OpenAI-compatible ------------------------------------------------------------------------


def test_every_stage_request_is_one_a_strict_json_schema_server_accepts(
    server: ScriptedHTTPServer,
) -> None:
    provider = openai_provider(server.url, response_format="json_schema")
    for request in stage_requests("openai_strict"):
        server.push(openai_reply("{}"))
        provider.send(request, request.messages)
        body = server.requests[-1].json()
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {
                "name": request.output_name,
                "strict": True,
                "schema": request.output_schema,
            },
        }
        assert SCHEMA_HEADING not in body["messages"][0]["content"]  # sent once


def test_a_refused_json_schema_is_an_error_without_a_configured_fallback() -> None:
    with ScriptedHTTPServer(check=refuse_invalid(openai_json_schema=False)) as server:
        recorder = InMemoryRecorder()
        provider = openai_provider(server.url, response_format="json_schema")
        with pytest.raises(ProviderFault) as raised:
            run(provider, plan_request(4, dialect="openai_strict"), recorder)
        assert raised.value.code is ErrorCode.LLM_PROVIDER_ERROR and not raised.value.retryable
        assert len(server.requests) == 1
        assert [r.outcome for r in recorder.records] == ["provider_error"]
        assert recorder.records[0].status_code == 400


def test_a_refused_json_schema_falls_back_to_json_object_when_configured(
    debug_logs: pytest.LogCaptureFixture,
) -> None:
    with ScriptedHTTPServer(check=refuse_invalid(openai_json_schema=False)) as server:
        server.push(openai_reply(json.dumps(GOOD_PLAN)), openai_reply(json.dumps(GOOD_PLAN)))
        recorder = InMemoryRecorder()
        provider = openai_provider(
            server.url, response_format="json_schema", json_schema_fallback="json_object"
        )
        request = plan_request(4, dialect="openai_strict")

        outcome = run(provider, request, recorder)

        assert outcome.value == Plan.model_validate(GOOD_PLAN)
        refused, accepted = recorder.records
        assert (refused.outcome, refused.status_code, refused.retry_in_s) == (
            "provider_error",
            400,
            0.0,
        )
        assert refused.request["response_format"]["type"] == "json_schema"
        assert accepted.outcome == "accepted"
        assert accepted.request["response_format"] == {"type": "json_object"}
        system = accepted.request["messages"][0]["content"]
        assert system.endswith(f"{SCHEMA_HEADING}\n\n{schema_text(request.output_schema)}")
        assert refused.request_sha256 == accepted.request_sha256  # the same neutral request
        # the provider stays in json_object mode: the next request is not refused first
        provider.send(request, request.messages)
        assert server.bodies()[-1]["response_format"] == {"type": "json_object"}
        assert len(server.requests) == 3
        assert_no_secret(recorder.records, debug_logs)


def test_json_object_shows_a_strict_schema_once_in_the_system_text(
    server: ScriptedHTTPServer,
) -> None:
    provider = openai_provider(server.url, response_format="json_object")
    request = plan_request(4, dialect="json_schema")  # what json_object freezes
    assert request.system.endswith(f"{SCHEMA_HEADING}\n\n{schema_text(request.output_schema)}")
    server.push(openai_reply(json.dumps(GOOD_PLAN)))
    provider.send(request, request.messages)
    body = server.bodies()[-1]
    assert body["response_format"] == {"type": "json_object"}
    assert json.dumps(body).count(SCHEMA_HEADING.replace('"', '\\"')) == 1
