"""The correction loop with an in-memory provider: resume, reuse, backoff and fault handling."""

import json
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import ValidationError

from tests.fakes.toy_stage import GOOD_PLAN, FakeClock, Plan, plan_request, validate_plan
from vba_assets.domain.llm.call import EMPTY_REPLY_PLACEHOLDER, run_stage
from vba_assets.domain.llm.contract import (
    ChatMessage,
    Finish,
    ModelRequest,
    ProviderFault,
    ProviderReply,
)
from vba_assets.domain.llm.policy import (
    DispatchBudget,
    InMemoryRecorder,
    RetryPolicy,
    StageOutcome,
    StagePolicy,
)
from vba_assets.errors import ErrorCode, ModelError


class ScriptedProvider:
    """Answers each ``send`` with the next scripted reply or fault; remembers every call."""

    name = "scripted"

    def __init__(self, *script: ProviderReply | ProviderFault) -> None:
        self.script = list(script)
        self.calls: list[list[ChatMessage]] = []

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        return request.document(messages)

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        self.calls.append(list(messages))
        step = self.script.pop(0)
        if isinstance(step, ProviderFault):
            raise step
        return step


def reply(
    output: Any = GOOD_PLAN, *, finish: Finish = "complete", text: str | None = None
) -> ProviderReply:
    output_text = output if isinstance(output, str) or output is None else json.dumps(output)
    return ProviderReply(
        response_body="{}",
        output_text=output_text,
        text=text,
        stop_reason="x",
        finish=finish,
    )


def fault(retryable: bool = True, code: ErrorCode = ErrorCode.LLM_PROVIDER_ERROR) -> ProviderFault:
    return ProviderFault(code, "down", retryable=retryable, kind="connection")


def run(
    provider: ScriptedProvider,
    recorder: InMemoryRecorder,
    clock: FakeClock,
    *,
    request: ModelRequest | None = None,
    retry: RetryPolicy | None = None,
    validate: Any = validate_plan,
) -> StageOutcome[Plan]:
    return run_stage(
        request or plan_request(),
        provider,
        validate,
        recorder,
        StagePolicy(max_invalid_responses=3, retry=retry or RetryPolicy()),
        DispatchBudget(20),
        clock=clock,
        sleep=clock.sleep,
    )


def test_an_accepted_stage_is_reused_without_a_request() -> None:
    recorder, clock = InMemoryRecorder(), FakeClock()
    first = run(ScriptedProvider(reply()), recorder, clock)
    idle = ScriptedProvider()

    again = run(idle, recorder, clock)

    assert again.reused and not first.reused
    assert again.value == first.value and again.accepted == first.accepted
    assert idle.calls == [] and len(recorder.records) == 1


def test_a_changed_request_cannot_continue_a_started_stage() -> None:
    recorder, clock = InMemoryRecorder(), FakeClock()
    run(ScriptedProvider(reply({"searches": []}), reply()), recorder, clock)
    idle = ScriptedProvider()

    with pytest.raises(ModelError) as raised:
        run(idle, recorder, clock, request=plan_request(system="a new prompt"))

    assert raised.value.code is ErrorCode.LLM_REQUEST_CHANGED
    assert raised.value.detail["attempts"] == [1, 2]
    assert idle.calls == []


def test_backoff_doubles_up_to_the_cap_then_gives_up() -> None:
    recorder, clock = InMemoryRecorder(), FakeClock()
    provider = ScriptedProvider(*[fault() for _ in range(4)])
    retry = RetryPolicy(max_retries=3, backoff_base_s=1, backoff_cap_s=3, max_wait_s=10)

    with pytest.raises(ModelError) as raised:
        run(provider, recorder, clock, retry=retry)

    assert raised.value.code is ErrorCode.LLM_PROVIDER_ERROR
    assert clock.sleeps == [1.0, 2.0, 3.0]
    assert [(r.attempt, r.outcome, r.retry_in_s) for r in recorder.records] == [
        (1, "provider_error", 1.0),
        (2, "provider_error", 2.0),
        (3, "provider_error", 3.0),
        (4, "provider_error", None),
    ]


def test_a_final_fault_is_raised_as_is_after_one_record() -> None:
    recorder, clock = InMemoryRecorder(), FakeClock()
    auth = fault(retryable=False, code=ErrorCode.LLM_AUTH)

    with pytest.raises(ProviderFault) as raised:
        run(ScriptedProvider(auth, reply()), recorder, clock)

    assert raised.value is auth
    assert [(r.outcome, r.error and r.error["code"]) for r in recorder.records] == [
        ("provider_error", "LLM_AUTH")
    ]
    assert clock.sleeps == []


def test_retry_pending_continues_exactly_at_retry_at() -> None:
    recorder, clock = InMemoryRecorder(), FakeClock()
    slow = ProviderFault(
        ErrorCode.LLM_PROVIDER_ERROR, "429", retryable=True, status_code=429, retry_after_s=120
    )
    with pytest.raises(ModelError):
        run(ScriptedProvider(slow), recorder, clock, retry=RetryPolicy(max_wait_s=60))
    clock.advance(120)

    outcome = run(ScriptedProvider(reply()), recorder, clock)

    assert outcome.accepted.attempt == 2


def test_an_empty_reply_is_corrected_with_a_placeholder() -> None:
    recorder, clock = InMemoryRecorder(), FakeClock()
    provider = ScriptedProvider(reply(None), reply())

    run(provider, recorder, clock)

    assert provider.calls[1][1] == ChatMessage(role="assistant", content=EMPTY_REPLY_PLACEHOLDER)
    assert [i.code for i in recorder.records[0].issues] == [ErrorCode.LLM_INVALID_JSON]


def test_nan_is_not_json() -> None:
    recorder, clock = InMemoryRecorder(), FakeClock()
    run(ScriptedProvider(reply('{"searches": NaN}'), reply()), recorder, clock)
    assert [i.code for i in recorder.records[0].issues] == [ErrorCode.LLM_INVALID_JSON]


def test_a_validator_that_raises_validation_error_rejects_the_reply() -> None:
    def strict(data: Any) -> Plan:
        return Plan.model_validate(data)  # raises instead of returning issues

    recorder, clock = InMemoryRecorder(), FakeClock()
    outcome = run(
        ScriptedProvider(reply({"searches": []}), reply()), recorder, clock, validate=strict
    )

    assert outcome.accepted.attempt == 2
    assert [(i.code, i.path) for i in recorder.records[0].issues] == [
        (ErrorCode.LLM_OUTPUT_SCHEMA, "/searches")
    ]
    with pytest.raises(ValidationError):
        strict({})


def test_the_budget_counts_every_request_including_retries() -> None:
    recorder, clock = InMemoryRecorder(), FakeClock()
    budget = DispatchBudget(max_dispatches=3)
    provider = ScriptedProvider(fault(), reply({"searches": []}), reply())
    run_stage(
        plan_request(),
        provider,
        validate_plan,
        recorder,
        StagePolicy(),
        budget,
        clock=clock,
        sleep=clock.sleep,
    )
    assert budget.used == 3 == len(provider.calls)
    with pytest.raises(ModelError) as raised:
        budget.take("interpretation", 1)
    assert raised.value.code is ErrorCode.LLM_MAX_DISPATCHES
    assert raised.value.detail == {"stage": "interpretation", "attempt": 1, "max_dispatches": 3}
