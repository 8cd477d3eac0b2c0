"""The correction loop every model call goes through (ARCHITECTURE 8).

:func:`run_stage` sends a stage's :class:`~vba_assets.domain.llm.contract.ModelRequest`,
validates the reply with the caller's ``validate`` (schema plus the stage's own rules), records
**every** attempt as a :class:`~vba_assets.domain.llm.contract.DispatchRecord` and, on an invalid
reply, re-asks with a correction message (the previous reply plus the errors) until
``max_invalid_responses`` is exhausted. Providers make exactly one request per ``send``; provider
faults are retried here within a persisted :class:`RetryPolicy`, so each one is recorded. A wait
longer than ``max_wait_s`` ends the invocation with ``retry_at`` instead of holding a worker.
The policies, the dispatch budget, the recorder protocol and the outcomes live in
:mod:`.model_call_policy` and are re-exported here.

State lives in the recorder's history, so a later invocation resumes exactly where the previous one
stopped: same attempt numbers, same correction messages, same request bytes. Pure: no IO; the clock
and ``sleep`` are injectable.
"""

import json
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError

from vba_assets.domain.canonical import load_json
from vba_assets.domain.clock import utc_now
from vba_assets.domain.findings import Finding
from vba_assets.domain.llm.contract import (
    ChatMessage,
    DispatchRecord,
    DispatchTiming,
    ModelRequest,
    Provider,
    ProviderFault,
    ProviderReply,
    issues_from_validation_error,
)
from vba_assets.domain.llm.policy import (
    DispatchBudget,
    DispatchRecorder,
    RetryPolicy,
    StageExhausted,
    StageOutcome,
    StagePolicy,
    next_attempt_number,
)
from vba_assets.domain.protocol import ProtocolSpec, protocol
from vba_assets.domain.text_budget import check_budget
from vba_assets.errors import ErrorCode, ModelError

log = logging.getLogger(__name__)

CORRECTION_HEADING = (
    "Your previous reply was rejected. Fix every problem below and reply again with the complete "
    "JSON object:"
)
EMPTY_REPLY_PLACEHOLDER = "(no output)"

#: Replies that did not finish normally: never accepted, always recorded with their body.
_UNFINISHED: dict[str, tuple[ErrorCode, str]] = {
    "incomplete": (
        ErrorCode.LLM_INCOMPLETE_OUTPUT,
        "the reply was cut off at the output limit before the JSON was complete; reply with a "
        "complete and more concise object",
    ),
    "refusal": (ErrorCode.LLM_REFUSAL, "the reply was a refusal, not the requested object"),
    "paused": (ErrorCode.LLM_PAUSED, "the reply paused before it finished; reply in full"),
    "context_window_exceeded": (
        ErrorCode.LLM_CONTEXT_WINDOW_EXCEEDED,
        "the request exceeded the model's context window",
    ),
    "unknown": (ErrorCode.LLM_INCOMPLETE_OUTPUT, "the reply ended for an unrecognized reason"),
}


_NO_REPLY = [Finding(code=ErrorCode.LLM_OUTPUT_RULES, message="the record holds no reply")]


# --- the correction loop --------------------------------------------------------------------------


#: Characters of an offending value a correction round shows (longer ones end in ``…``).
VALUE_LIMIT = 160
_NO_VALUE = object()


def correction_message(
    issues: Sequence[Finding], spec: ProtocolSpec, reply: str | None = None
) -> str:
    """The user turn of a correction round: every finding with its code, JSON path and message.

    From protocol 4 (``correction_values``) each finding with a path also shows the offending
    value read from the rejected ``reply`` at that path (compact JSON, cut at
    :data:`VALUE_LIMIT` characters), or ``missing`` when the reply has nothing there.
    """
    data = _parse_reply(reply) if spec.correction_values else _NO_VALUE
    lines = [CORRECTION_HEADING]
    for issue in issues:
        where = f" at {issue.path}" if issue.path else ""
        if issue.path and data is not _NO_VALUE:
            where += f" (value: {_value_at(data, issue.path)})"
        lines.append(f"- {spec.correction_code(issue.code).value}{where}: {issue.message}")
    return "\n".join(lines)


def _parse_reply(reply: str | None) -> Any:
    if not reply:
        return _NO_VALUE
    try:
        return load_json(reply)
    except ValueError:
        return _NO_VALUE


def _value_at(data: Any, pointer: str) -> str:
    """The value at an RFC 6901 ``pointer`` as compact JSON, or ``missing``."""
    node = data
    for token in pointer.split("/")[1:]:
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return "missing"
    text = json.dumps(node, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"


def conversation(
    request: ModelRequest,
    rejected: Sequence[DispatchRecord],
    spec: ProtocolSpec | None = None,
) -> list[ChatMessage]:
    """The messages of the next attempt: the request, then one correction round per rejection.

    ``spec`` is the request's protocol when the caller has resolved it (else resolved here from
    the request's ``protocol_version``)."""
    messages = list(request.messages)
    spec = _spec_of(request, spec)
    for record in rejected:
        reply = record.output_text or record.text or ""
        content = reply if reply.strip() else EMPTY_REPLY_PLACEHOLDER
        messages.append(ChatMessage(role="assistant", content=content))
        correction = correction_message(record.issues, spec, record.output_text)
        messages.append(ChatMessage(role="user", content=correction))
    return messages


def judge_reply(reply: ProviderReply, validate: Callable[[Any], Any]) -> tuple[Any, list[Finding]]:
    """Accept only a complete reply whose JSON passes ``validate``; else the issues."""
    if reply.finish != "complete":
        code, why = _UNFINISHED[reply.finish]
        message = f"{why} (stop reason {reply.stop_reason!r})"
        return None, [Finding(code=code, message=message)]
    if reply.output_text is None:
        message = "the reply carried no structured output (no JSON object in the output channel)"
        return None, [Finding(code=ErrorCode.LLM_INVALID_JSON, message=message)]
    try:
        data = load_json(reply.output_text)
    except ValueError as exc:
        return None, [Finding(code=ErrorCode.LLM_INVALID_JSON, message=f"not valid JSON: {exc}")]
    check_budget()  # the rules below are the stage's own text work (they check it again inside)
    try:
        result = validate(data)
    except ValidationError as exc:
        return None, issues_from_validation_error(exc)
    if isinstance(result, list) and result and all(isinstance(i, Finding) for i in result):
        return None, list(result)
    return result, []


_REPLY_FIELDS = {
    "status_code",
    "response_body",
    "output_text",
    "text",
    "stop_reason",
    "finish",
    "request_id",
    "response_id",
    "provider_retries",
}


def _spec_of(request: ModelRequest, spec: ProtocolSpec | None) -> ProtocolSpec:
    """``spec`` (checked against the request's version), or the request's own protocol."""
    if spec is None:
        return protocol(request.protocol_version)
    if spec.version != request.protocol_version:
        raise ValueError(
            f"protocol v{spec.version} given for a request of protocol v{request.protocol_version}"
        )
    return spec


def run_stage(
    request: ModelRequest,
    provider: Provider,
    validate: Callable[[Any], Any],
    recorder: DispatchRecorder,
    policy: StagePolicy,
    budget: DispatchBudget,
    *,
    clock: Callable[[], datetime] = utc_now,
    sleep: Callable[[float], None] = time.sleep,
    spec: ProtocolSpec | None = None,
) -> StageOutcome[Any]:
    """Run one model stage to an accepted, validated reply, recording every attempt.

    ``spec`` is the request's protocol as the caller resolved it (a frozen revision's
    ``spec``); without it the protocol is resolved once from ``request.protocol_version``.

    Raises:
        StageExhausted: ``policy.exhaustion_code`` after ``max_invalid_responses`` invalid replies
            (also at once on resume of an exhausted stage), carrying every attempt.
        ModelError: ``LLM_PROVIDER_RETRY_PENDING`` (``retry_at``), ``LLM_PROVIDER_ERROR``,
            ``LLM_AUTH``, ``LLM_MAX_DISPATCHES``, ``LLM_CONTEXT_WINDOW_EXCEEDED``,
            ``LLM_REPLAY_MISS`` or ``LLM_REQUEST_CHANGED``.
    """
    stage = request.stage
    base_sha = request.sha256()
    history = sorted(recorder.history(stage), key=lambda r: r.attempt)
    changed = [r.attempt for r in history if r.base_request_sha256 != base_sha]
    if changed:
        raise ModelError(
            ErrorCode.LLM_REQUEST_CHANGED,
            f"stage {stage}: recorded attempts {changed} were made for a different request; a "
            "started stage keeps its frozen request (use a new revision)",
            stage=stage,
            attempts=changed,
        )
    accepted = next((r for r in history if r.outcome == "accepted"), None)
    if accepted is not None:
        reply = accepted.reply()
        value, issues = (None, _NO_REPLY) if reply is None else judge_reply(reply, validate)
        if issues:
            raise ModelError(
                ErrorCode.LLM_OUTPUT_RULES,
                f"stage {stage}: the accepted reply of attempt {accepted.attempt} no longer "
                "validates",
                stage=stage,
                issues=[i.model_dump(mode="json") for i in issues],
            )
        return StageOutcome(value=value, accepted=accepted, records=(), reused=True)
    rejected = [r for r in history if r.outcome == "rejected"]
    if any(r.finish == "context_window_exceeded" for r in rejected):
        raise _context_exceeded(stage, history)
    if len(rejected) >= policy.max_invalid_responses:
        raise _exhausted(request, policy, history)
    if history and history[-1].retry_at is not None and history[-1].outcome == "retry_pending":
        wait_s = (history[-1].retry_at - clock()).total_seconds()
        if wait_s > 0:
            raise _pending(
                stage, history[-1].attempt, history[-1].retry_at, wait_s, resumed_early=True
            )

    spec = _spec_of(request, spec)
    attempt = next_attempt_number(history)
    faults = 0
    new_records: list[DispatchRecord] = []
    while True:
        messages = conversation(request, rejected, spec)
        budget.take(stage, attempt)
        common: dict[str, Any] = {
            "stage": stage,
            "attempt": attempt,
            "provider": provider.name,
            "model": request.model,
            "parameters": {"max_tokens": request.max_tokens, "temperature": request.temperature},
            "protocol_version": request.protocol_version,
            "output_name": request.output_name,
            "base_request_sha256": base_sha,
            "request_sha256": request.sha256(messages),
            "request": provider.wire_request(request, messages),
        }
        started_at, started = clock(), time.monotonic()
        try:
            reply = provider.send(request, messages)
        except ProviderFault as fault:
            timing = DispatchTiming(
                started_at=started_at, elapsed_ms=(time.monotonic() - started) * 1000
            )
            faults += 1
            common.update(_timing_fields(spec, timing))
            _handle_fault(
                fault, faults, common, timing, policy.retry, recorder, new_records, clock, sleep
            )
            attempt += 1
            continue
        timing = DispatchTiming(
            started_at=started_at, elapsed_ms=(time.monotonic() - started) * 1000
        )
        value, issues = judge_reply(reply, validate)
        record = DispatchRecord(
            **common,
            **_timing_fields(spec, timing),
            outcome="rejected" if issues else "accepted",
            **reply.model_dump(include=_REPLY_FIELDS),
            usage=reply.usage,
            issues=tuple(issues),
        )
        _store(recorder, new_records, record, timing)
        if not issues:
            return StageOutcome(value=value, accepted=record, records=tuple(new_records))
        rejected.append(record)
        if reply.finish == "context_window_exceeded":
            raise _context_exceeded(stage, [*history, *new_records])
        if len(rejected) >= policy.max_invalid_responses:
            raise _exhausted(request, policy, [*history, *new_records])
        attempt += 1
        faults = 0


def _timing_fields(spec: ProtocolSpec, timing: DispatchTiming) -> dict[str, Any]:
    """Protocol v1/v2 kept timing inside the record; later versions keep it beside (events)."""
    if spec.timing_in_content:
        return {"started_at": timing.started_at, "elapsed_ms": timing.elapsed_ms}
    return {"record_version": 2}


def _store(
    recorder: DispatchRecorder,
    new_records: list[DispatchRecord],
    record: DispatchRecord,
    timing: DispatchTiming,
) -> None:
    recorder.record(record, timing)
    new_records.append(record)
    log.info("model stage %s attempt %d: %s", record.stage, record.attempt, record.outcome)


def _handle_fault(
    fault: ProviderFault,
    faults: int,
    common: dict[str, Any],
    timing: DispatchTiming,
    retry: RetryPolicy,
    recorder: DispatchRecorder,
    new_records: list[DispatchRecord],
    clock: Callable[[], datetime],
    sleep: Callable[[float], None],
) -> None:
    """Record a fault, then sleep for a short retry or raise (not retryable, exhausted, pending)."""
    stage, attempt = common["stage"], common["attempt"]
    fields: dict[str, Any] = {
        **common,
        "status_code": fault.status_code,
        "response_body": fault.response_body,
        "request_id": fault.request_id,
        "error": fault.to_json(),
    }
    delay = retry.delay_s(faults, fault.retry_after_s)
    if not fault.retryable or faults > retry.max_retries:
        _store(recorder, new_records, DispatchRecord(**fields, outcome="provider_error"), timing)
        if not fault.retryable:
            raise fault
        raise ModelError(
            ErrorCode.LLM_PROVIDER_ERROR,
            f"stage {stage}: {faults} provider faults in a row (max_retries={retry.max_retries}); "
            f"last: {fault.message}",
            stage=stage,
            attempt=attempt,
            status_code=fault.status_code,
        )
    retry_at = clock() + timedelta(seconds=delay)
    if delay > retry.max_wait_s:
        record = DispatchRecord(
            **fields, outcome="retry_pending", retry_in_s=delay, retry_at=retry_at
        )
        _store(recorder, new_records, record, timing)
        raise _pending(stage, attempt, retry_at, delay, resumed_early=False)
    _store(
        recorder,
        new_records,
        DispatchRecord(**fields, outcome="provider_error", retry_in_s=delay, retry_at=retry_at),
        timing,
    )
    sleep(delay)


def _pending(
    stage: str, attempt: int, retry_at: datetime, wait_s: float, *, resumed_early: bool
) -> ModelError:
    when = retry_at.isoformat()
    message = (
        f"stage {stage}: a provider retry is pending until {when}; wait {wait_s:.0f} s and resume"
        if resumed_early
        else f"stage {stage}: the provider asked to wait {wait_s:.0f} s; resume after {when}"
    )
    return ModelError(
        ErrorCode.LLM_PROVIDER_RETRY_PENDING,
        message,
        stage=stage,
        attempt=attempt,
        retry_at=when,
        wait_s=round(wait_s, 3),
    )


def _context_exceeded(stage: str, records: Sequence[DispatchRecord]) -> StageExhausted:
    return StageExhausted(
        ErrorCode.LLM_CONTEXT_WINDOW_EXCEEDED,
        f"stage {stage}: the request exceeds the model's context window; corrections would only "
        "grow it (shorten the input and start a new revision)",
        records,
        stage=stage,
        attempts=[r.summary() for r in records],
    )


def _exhausted(
    request: ModelRequest, policy: StagePolicy, records: Sequence[DispatchRecord]
) -> StageExhausted:
    invalid = sum(1 for r in records if r.outcome == "rejected")
    return StageExhausted(
        policy.exhaustion_code,
        f"stage {request.stage}: {invalid} invalid replies (max_invalid_responses="
        f"{policy.max_invalid_responses}); review the rejected records and start a new revision",
        records,
        stage=request.stage,
        max_invalid_responses=policy.max_invalid_responses,
        attempts=[r.summary() for r in records],
    )
