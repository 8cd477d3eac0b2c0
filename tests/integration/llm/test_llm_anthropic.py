"""The anthropic provider and the correction loop against a local server that plays the API.

The real SDK (``max_retries=0``) talks HTTP to 127.0.0.1; each test scripts the server's answers
and asserts the dispatch records, what the server received and how often, and that nothing
truncated, refused or invalid is ever accepted.
"""

import json
from datetime import timedelta

import pytest

from tests.fakes.http_server import Scripted, ScriptedHTTPServer
from tests.fakes.model_apis import anthropic_error, anthropic_message, anthropic_reply
from tests.fakes.toy_stage import (
    GOOD_PLAN,
    INVENTED_TERM,
    MISSING_CATALOG,
    TOOL,
    FakeClock,
    Plan,
    plan_request,
    validate_plan,
)
from tests.integration.llm.conftest import ANTHROPIC_CANARY, anthropic_provider, assert_no_secret
from vba_assets.domain.llm.call import CORRECTION_HEADING, run_stage
from vba_assets.domain.llm.contract import ModelRequest
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


def run(
    server: ScriptedHTTPServer,
    clock: FakeClock,
    recorder: InMemoryRecorder,
    *,
    max_invalid: int = 3,
    retry: RetryPolicy | None = None,
    budget: DispatchBudget | None = None,
    timeout_s: float = 5,
) -> StageOutcome[Plan]:
    policy = StagePolicy(max_invalid_responses=max_invalid, retry=retry or RetryPolicy())
    return run_stage(
        plan_request(),
        anthropic_provider(server.url, timeout_s=timeout_s),
        validate_plan,
        recorder,
        policy,
        budget or DispatchBudget(max_dispatches=10),
        clock=clock,
        sleep=clock.sleep,
    )


def test_success_records_the_exact_request_and_reply(
    server: ScriptedHTTPServer, clock: FakeClock, debug_logs: pytest.LogCaptureFixture
) -> None:
    scripted = anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN)
    server.push(scripted)
    recorder = InMemoryRecorder()

    outcome = run(server, clock, recorder)

    assert outcome.value == Plan.model_validate(GOOD_PLAN)
    assert [r.outcome for r in recorder.records] == ["accepted"]
    [received] = server.requests
    assert received.path == "/v1/messages"
    assert received.headers["authorization"] == f"Bearer {ANTHROPIC_CANARY}"  # SDK 2.x auth
    assert received.headers["x-stainless-retry-count"] == "0"
    body = received.json()
    record = recorder.records[0]
    assert record.request == body  # the record holds exactly what was sent
    assert body["tool_choice"] == {"type": "tool", "name": TOOL}
    assert body["tools"][0]["input_schema"] == plan_request().output_schema
    assert body["system"] == [
        {"type": "text", "text": plan_request().system, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["temperature"] == 0.0  # not an SDK 2.x parameter: sent as an extra body field
    assert body["messages"] == [{"role": "user", "content": plan_request().messages[0].content}]
    assert record.response_body == json.dumps(scripted.body)
    assert json.loads(record.output_text or "") == GOOD_PLAN
    assert (record.provider, record.model, record.attempt) == ("anthropic", "claude-test-model", 1)
    assert record.parameters == {"max_tokens": 1024, "temperature": 0.0}
    assert (record.stop_reason, record.finish, record.status_code) == ("tool_use", "complete", 200)
    assert record.usage is not None
    assert (record.usage.input, record.usage.output) == (120, 40)
    assert (record.usage.cache_creation, record.usage.cache_read) == (100, 0)
    assert record.request_id == scripted.headers["request-id"]
    assert record.response_id == scripted.body["id"]
    assert record.provider_retries == 0
    assert record.request_sha256 == plan_request().sha256()
    assert record.started_at == clock.now
    assert_no_secret(recorder.records, debug_logs)


def test_schema_then_rules_violation_are_corrected_with_the_errors(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    server.push(
        anthropic_reply(tool_name=TOOL, tool_input=MISSING_CATALOG),
        anthropic_reply(tool_name=TOOL, tool_input=INVENTED_TERM),
        anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN),
    )
    recorder = InMemoryRecorder()

    outcome = run(server, clock, recorder)

    assert outcome.accepted.attempt == 3
    assert [r.outcome for r in recorder.records] == ["rejected", "rejected", "accepted"]
    schema_issue = recorder.records[0].issues[0]
    assert (schema_issue.code, schema_issue.path) == (
        ErrorCode.LLM_OUTPUT_SCHEMA,
        "/searches/0/catalog",
    )
    rules_issue = recorder.records[1].issues[0]
    assert (rules_issue.code, rules_issue.path) == (ErrorCode.LLM_OUTPUT_RULES, "/searches/0/term")
    rejected = recorder.records[0].rejected_record()
    assert rejected is not None and rejected.response_body == recorder.records[0].response_body
    third = server.requests[2].json()["messages"]
    assert [m["role"] for m in third] == ["user", "assistant", "user", "assistant", "user"]
    assert json.loads(third[1]["content"]) == MISSING_CATALOG
    assert third[2]["content"].startswith(CORRECTION_HEADING)
    assert "- LLM_OUTPUT_SCHEMA at /searches/0/catalog: Field required" in third[2]["content"]
    assert json.loads(third[3]["content"]) == INVENTED_TERM
    assert "LLM_OUTPUT_RULES at /searches/0/term" in third[4]["content"]
    assert len(server.requests) == 3


def test_exhaustion_raises_with_every_attempt(server: ScriptedHTTPServer, clock: FakeClock) -> None:
    server.push(
        anthropic_reply(text="Here is the plan: Wild Wolpertinger", stop_reason="end_turn"),
        anthropic_reply(tool_name=TOOL, tool_input='{"searches": [{"term": '),
    )
    recorder = InMemoryRecorder()

    with pytest.raises(StageExhausted) as raised:
        run(server, clock, recorder, max_invalid=2)

    error = raised.value
    assert error.code is ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES
    assert error.records == recorder.records
    assert [a["codes"] for a in error.detail["attempts"]] == [
        ["LLM_INVALID_JSON"],
        ["LLM_INVALID_JSON"],
    ]
    assert recorder.records[0].text == "Here is the plan: Wild Wolpertinger"
    assert recorder.records[0].output_text is None
    assert recorder.records[1].output_text == '{"searches": [{"term": '
    assert len(server.requests) == 2
    # An exhausted stage stays exhausted: a new invocation raises at once, without a request.
    with pytest.raises(StageExhausted):
        run(server, clock, recorder, max_invalid=2)
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("stop_reason", "finish", "code"),
    [
        ("max_tokens", "incomplete", ErrorCode.LLM_INCOMPLETE_OUTPUT),
        ("refusal", "refusal", ErrorCode.LLM_REFUSAL),
        ("pause_turn", "paused", ErrorCode.LLM_PAUSED),
    ],
)
def test_unfinished_replies_are_recorded_and_never_accepted(
    server: ScriptedHTTPServer, clock: FakeClock, stop_reason: str, finish: str, code: ErrorCode
) -> None:
    # The unfinished reply even carries a schema-valid object: it must still be rejected.
    unfinished = anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN, stop_reason=stop_reason)
    server.push(unfinished)
    recorder = InMemoryRecorder()

    with pytest.raises(StageExhausted) as raised:
        run(server, clock, recorder, max_invalid=1)

    [record] = recorder.records
    assert (record.outcome, record.stop_reason, record.finish) == ("rejected", stop_reason, finish)
    assert [issue.code for issue in record.issues] == [code]
    assert record.response_body == json.dumps(unfinished.body)
    assert raised.value.detail["attempts"][0]["codes"] == [code.value]

    # With budget for a correction, the next reply is accepted and the error was sent back.
    server.push(unfinished, anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN))
    second = InMemoryRecorder()
    outcome = run(server, clock, second, max_invalid=2)
    assert [r.outcome for r in second.records] == ["rejected", "accepted"]
    assert outcome.accepted.attempt == 2
    assert code.value in server.requests[-1].json()["messages"][2]["content"]


def test_context_window_exceeded_ends_the_stage_at_once(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    server.push(
        anthropic_reply(tool_name=TOOL, tool_input={}, stop_reason="model_context_window_exceeded")
    )
    recorder = InMemoryRecorder()

    with pytest.raises(ModelError) as raised:
        run(server, clock, recorder, max_invalid=3)

    assert raised.value.code is ErrorCode.LLM_CONTEXT_WINDOW_EXCEEDED
    assert [r.finish for r in recorder.records] == ["context_window_exceeded"]
    assert len(server.requests) == 1
    with pytest.raises(ModelError) as again:  # a later invocation does not grow it further
        run(server, clock, recorder, max_invalid=3)
    assert again.value.code is ErrorCode.LLM_CONTEXT_WINDOW_EXCEEDED
    assert len(server.requests) == 1


def test_short_retry_after_is_waited_recorded_and_retried(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    server.push(
        anthropic_error(429, "rate_limit_error", "slow down", {"retry-after": "2"}),
        anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN),
    )
    recorder = InMemoryRecorder()
    start = clock.now

    outcome = run(server, clock, recorder, retry=RetryPolicy(max_wait_s=30))

    assert outcome.accepted.attempt == 2
    fault, accepted = recorder.records
    assert (fault.outcome, fault.status_code, fault.retry_in_s) == ("provider_error", 429, 2.0)
    assert fault.error is not None and fault.error["code"] == "LLM_PROVIDER_ERROR"
    assert fault.response_body is not None and "rate_limit_error" in fault.response_body
    assert fault.request_id is not None and fault.request_id.startswith("req_")
    assert fault.request == accepted.request  # the retry resends the same request
    assert clock.sleeps == [2.0]
    assert accepted.started_at == start + timedelta(seconds=2)
    assert [r.headers["x-stainless-retry-count"] for r in server.requests] == ["0", "0"]


def test_long_retry_after_ends_the_invocation_until_retry_at(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    server.push(anthropic_error(429, "rate_limit_error", "quota", {"retry-after": "3600"}))
    recorder = InMemoryRecorder()
    retry = RetryPolicy(max_wait_s=60)

    with pytest.raises(ModelError) as pending:
        run(server, clock, recorder, retry=retry)

    assert pending.value.code is ErrorCode.LLM_PROVIDER_RETRY_PENDING
    [record] = recorder.records
    assert record.outcome == "retry_pending"
    assert record.retry_at is not None
    assert (record.retry_at - clock.now).total_seconds() == 3600
    assert pending.value.detail["retry_at"] == record.retry_at.isoformat()
    assert clock.sleeps == []  # the worker is not held

    clock.advance(600)
    with pytest.raises(ModelError) as early:
        run(server, clock, recorder, retry=retry)
    assert early.value.code is ErrorCode.LLM_PROVIDER_RETRY_PENDING
    assert early.value.detail["wait_s"] == 3000
    assert len(server.requests) == 1 and len(recorder.records) == 1

    clock.advance(3000)
    server.push(anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN))
    outcome = run(server, clock, recorder, retry=retry)
    assert [(r.attempt, r.outcome) for r in recorder.records] == [
        (1, "retry_pending"),
        (2, "accepted"),
    ]
    assert outcome.value == Plan.model_validate(GOOD_PLAN)
    assert len(server.requests) == 2


def test_overloaded_and_server_errors_back_off_then_give_up(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    retry = RetryPolicy(max_retries=2, backoff_base_s=0.5, backoff_cap_s=10, max_wait_s=30)
    server.push(
        anthropic_error(529, "overloaded_error", "Overloaded"),
        anthropic_error(500, "api_error", "Internal server error"),
        anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN),
    )
    recorder = InMemoryRecorder()
    assert run(server, clock, recorder, retry=retry).accepted.attempt == 3
    assert [(r.outcome, r.status_code) for r in recorder.records] == [
        ("provider_error", 529),
        ("provider_error", 500),
        ("accepted", 200),
    ]
    assert clock.sleeps == [0.5, 1.0]

    server.push(*[anthropic_error(500, "api_error", "still down")] * 3)
    failing = InMemoryRecorder()
    with pytest.raises(ModelError) as raised:
        run(server, clock, failing, retry=retry)
    assert raised.value.code is ErrorCode.LLM_PROVIDER_ERROR
    assert [r.status_code for r in failing.records] == [500, 500, 500]
    assert len(server.requests) == 6


def test_stalled_response_hits_the_client_timeout_and_is_retried(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    server.push(
        Scripted(200, anthropic_message(tool_name=TOOL, tool_input=GOOD_PLAN), stall_s=30),
        anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN),
    )
    recorder = InMemoryRecorder()

    outcome = run(server, clock, recorder, timeout_s=0.2, retry=RetryPolicy(backoff_base_s=0.1))

    timed_out, accepted = recorder.records
    assert timed_out.outcome == "provider_error"
    assert timed_out.error is not None and timed_out.error["detail"]["kind"] == "timeout"
    assert timed_out.response_body is None and timed_out.status_code is None
    assert outcome.accepted == accepted and accepted.attempt == 2
    assert len(server.requests) == 2


def test_auth_failure_is_not_retried_and_the_key_never_leaks(
    server: ScriptedHTTPServer, clock: FakeClock, debug_logs: pytest.LogCaptureFixture
) -> None:
    # A hostile or buggy server echoes the key back in its error body.
    server.push(
        anthropic_error(401, "authentication_error", f"invalid x-api-key: {ANTHROPIC_CANARY}")
    )
    recorder = InMemoryRecorder()

    with pytest.raises(ModelError) as raised:
        run(server, clock, recorder)

    assert raised.value.code is ErrorCode.LLM_AUTH
    assert len(server.requests) == 1
    [record] = recorder.records
    assert record.outcome == "provider_error" and record.status_code == 401
    assert record.response_body is not None and "[REDACTED]" in record.response_body
    assert_no_secret(recorder.records, debug_logs, raised.value)


def test_max_dispatches_bounds_one_invocation_across_stages(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    provider = anthropic_provider(server.url)
    policy = StagePolicy(max_invalid_responses=3)
    recorder = InMemoryRecorder()
    plan, assessment = plan_request(), plan_request(stage="resolution_assessment")
    budget = DispatchBudget(max_dispatches=2)
    server.push(
        anthropic_reply(tool_name=TOOL, tool_input=MISSING_CATALOG),
        anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN),
    )

    def stage(request: ModelRequest, budget: DispatchBudget) -> StageOutcome[Plan]:
        return run_stage(
            request,
            provider,
            validate_plan,
            recorder,
            policy,
            budget,
            clock=clock,
            sleep=clock.sleep,
        )

    assert stage(plan, budget).accepted.attempt == 2
    with pytest.raises(ModelError) as raised:
        stage(assessment, budget)
    assert raised.value.code is ErrorCode.LLM_MAX_DISPATCHES
    assert len(server.requests) == 2 and budget.used == 2

    # The next invocation reuses the accepted plan (no request) and continues the assessment.
    server.push(anthropic_reply(tool_name="submit_resolution_assessment", tool_input=GOOD_PLAN))
    again = DispatchBudget(max_dispatches=2)
    reused = stage(plan, again)
    assert reused.reused and reused.accepted == recorder.records[1]
    assert stage(assessment, again).accepted.stage == "resolution_assessment"
    assert len(server.requests) == 3 and again.used == 1


def test_budget_stop_mid_stage_resumes_with_the_same_correction(
    server: ScriptedHTTPServer, clock: FakeClock
) -> None:
    server.push(anthropic_reply(tool_name=TOOL, tool_input=MISSING_CATALOG))
    recorder = InMemoryRecorder()
    with pytest.raises(ModelError) as raised:
        run(server, clock, recorder, budget=DispatchBudget(max_dispatches=1))
    assert raised.value.code is ErrorCode.LLM_MAX_DISPATCHES

    server.push(anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN))
    outcome = run(server, clock, recorder, budget=DispatchBudget(max_dispatches=1))

    assert outcome.accepted.attempt == 2
    resumed = server.requests[1].json()["messages"]
    assert json.loads(resumed[1]["content"]) == MISSING_CATALOG
    assert "LLM_OUTPUT_SCHEMA at /searches/0/catalog" in resumed[2]["content"]
