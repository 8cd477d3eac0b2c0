"""The openai_compatible provider (``json_object`` mode) against a local chat-completions server."""

import json

import pytest

from tests.fakes.http_server import Scripted, ScriptedHTTPServer
from tests.fakes.model_apis import openai_completion, openai_error, openai_reply
from tests.fakes.toy_stage import GOOD_PLAN, MISSING_CATALOG, FakeClock, Plan, plan_request
from tests.fakes.toy_stage import validate_plan as validate
from tests.integration.llm.conftest import OPENAI_CANARY, assert_no_secret, openai_provider
from vba_assets.domain.llm.call import run_stage
from vba_assets.domain.llm.contract import SCHEMA_HEADING, ModelRequest, schema_text
from vba_assets.domain.llm.policy import (
    DispatchBudget,
    InMemoryRecorder,
    RetryPolicy,
    StageExhausted,
    StageOutcome,
    StagePolicy,
)
from vba_assets.errors import ErrorCode, ModelError

pytestmark = pytest.mark.usefixtures("canary_keys")
GOOD = json.dumps(GOOD_PLAN)


def run(
    server: ScriptedHTTPServer,
    clock: FakeClock,
    recorder: InMemoryRecorder,
    *,
    request: ModelRequest | None = None,
    max_invalid: int = 3,
    retry: RetryPolicy | None = None,
    **provider_overrides: object,
) -> StageOutcome[Plan]:
    return run_stage(
        request or plan_request(2),
        openai_provider(server.url, **provider_overrides),
        validate,
        recorder,
        StagePolicy(max_invalid_responses=max_invalid, retry=retry or RetryPolicy()),
        DispatchBudget(max_dispatches=10),
        clock=clock,
        sleep=clock.sleep,
    )


def test_json_object_mode_sees_the_schema_only_in_the_v2_user_message(
    server: ScriptedHTTPServer, clock: FakeClock, debug_logs: pytest.LogCaptureFixture
) -> None:
    server.push(openai_reply(GOOD))
    recorder = InMemoryRecorder()

    outcome = run(server, clock, recorder)

    assert outcome.value == Plan.model_validate(GOOD_PLAN)
    [received] = server.requests
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == f"Bearer {OPENAI_CANARY}"
    body = received.json()
    assert body == recorder.records[0].request
    assert body["response_format"] == {"type": "json_object"}
    assert "tools" not in body and "json_schema" not in json.dumps(body["response_format"])
    system, user = body["messages"]
    assert system == {"role": "system", "content": plan_request().system}
    schema = schema_text(plan_request().output_schema)
    assert user["content"].endswith(f"\n\n{SCHEMA_HEADING}\n\n{schema}")
    record = recorder.records[0]
    assert (record.provider, record.stop_reason, record.finish) == (
        "openai_compatible",
        "stop",
        "complete",
    )
    assert record.usage is not None and (record.usage.input, record.usage.cache_read) == (90, 64)
    assert record.request_id is not None and record.request_id.startswith("oai-")
    assert_no_secret(recorder.records, debug_logs)


def test_protocol_v1_sends_no_schema_at_all(server: ScriptedHTTPServer, clock: FakeClock) -> None:
    server.push(openai_reply(GOOD))
    run(server, clock, InMemoryRecorder(), request=plan_request(1))
    body = server.requests[0].json()
    assert SCHEMA_HEADING not in json.dumps(body)
    assert "Searches" not in json.dumps(body)  # the schema's titles never reach the server


def test_invalid_json_is_corrected(server: ScriptedHTTPServer, clock: FakeClock) -> None:
    server.push(openai_reply("Sure! The plan is: Wild Wolpertinger"), openai_reply(GOOD))
    recorder = InMemoryRecorder()

    outcome = run(server, clock, recorder)

    assert outcome.accepted.attempt == 2
    assert [i.code for i in recorder.records[0].issues] == [ErrorCode.LLM_INVALID_JSON]
    messages = server.requests[1].json()["messages"]
    assert messages[2] == {"role": "assistant", "content": "Sure! The plan is: Wild Wolpertinger"}
    assert "LLM_INVALID_JSON" in messages[3]["content"]


@pytest.mark.parametrize(
    ("finish_reason", "refusal", "code"),
    [
        ("length", None, ErrorCode.LLM_INCOMPLETE_OUTPUT),
        ("content_filter", None, ErrorCode.LLM_REFUSAL),
        ("stop", "I can't help with that.", ErrorCode.LLM_REFUSAL),
    ],
)
def test_truncated_and_refused_completions_are_never_accepted(
    server: ScriptedHTTPServer,
    clock: FakeClock,
    finish_reason: str,
    refusal: str | None,
    code: ErrorCode,
) -> None:
    # Each carries a schema-valid object: the finish reason alone must reject it.
    reply = openai_reply(GOOD, finish_reason=finish_reason, refusal=refusal)
    server.push(reply, reply)
    recorder = InMemoryRecorder()

    with pytest.raises(StageExhausted) as raised:
        run(server, clock, recorder, max_invalid=2)

    assert raised.value.code is ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES
    assert [r.outcome for r in recorder.records] == ["rejected", "rejected"]
    assert all(r.stop_reason == finish_reason for r in recorder.records)
    assert all([i.code for i in r.issues] == [code] for r in recorder.records)
    assert all(r.response_body == json.dumps(reply.body) for r in recorder.records)
    assert len(server.requests) == 2


def test_rate_limit_and_unavailable_are_retried(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    server.push(
        openai_error(429, "rate limited", {"retry-after-ms": "1500"}),
        openai_error(503, "unavailable"),
        openai_reply(GOOD),
    )
    recorder = InMemoryRecorder()

    outcome = run(server, clock, recorder, retry=RetryPolicy(backoff_base_s=0.25))

    assert outcome.accepted.attempt == 3
    assert [r.status_code for r in recorder.records] == [429, 503, 200]
    assert clock.sleeps == [1.5, 0.5]  # the server's wait, then backoff for the second fault


def test_stalled_server_times_out_until_retries_are_spent(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    stalled = Scripted(200, openai_completion(GOOD), stall_s=30)
    server.push(stalled, stalled)
    recorder = InMemoryRecorder()

    with pytest.raises(ModelError) as raised:
        run(server, clock, recorder, timeout_s=0.1, retry=RetryPolicy(max_retries=1))

    assert raised.value.code is ErrorCode.LLM_PROVIDER_ERROR
    assert [r.error["detail"]["kind"] for r in recorder.records if r.error] == [
        "timeout",
        "timeout",
    ]
    assert len(server.requests) == 2


def test_bad_request_is_final_and_redacted(
    server: ScriptedHTTPServer, clock: FakeClock, debug_logs: pytest.LogCaptureFixture
) -> None:
    server.push(openai_error(400, f"invalid request (key {OPENAI_CANARY})"))
    recorder = InMemoryRecorder()

    with pytest.raises(ModelError) as raised:
        run(server, clock, recorder)

    assert raised.value.code is ErrorCode.LLM_PROVIDER_ERROR
    assert raised.value.detail["retryable"] is False
    assert len(server.requests) == 1
    assert "[REDACTED]" in str(raised.value)
    assert_no_secret(recorder.records, debug_logs, raised.value)


def test_without_api_key_env_no_authorization_is_sent(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    server.push(openai_reply(json.dumps(MISSING_CATALOG)), openai_reply(GOOD))
    run(server, clock, InMemoryRecorder(), api_key_env=None)
    assert all("authorization" not in r.headers for r in server.requests)
