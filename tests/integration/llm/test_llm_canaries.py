"""No API key in any record, log line, error or correction request, whatever a reply carries.

Each leak path the integrity review found, for both HTTP providers, through the real client
(the anthropic SDK, httpx) against a local server: the key in the request-id header of a
*successful* reply, and the key ``\\u``-escaped (once, or twice inside a JSON string) in the reply's
id, its stop/finish reason and its structured output, which reach ``response_id``,
``stop_reason``, the rejected record, the issue messages and the next correction request; and the
same in an error reply. "Occurs" means after decoding every ``\\uXXXX`` escape, however deeply
nested, so an escaped key counts as a leak.
"""

import json
import os
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.http_server import Scripted, ScriptedHTTPServer
from tests.fakes.model_apis import anthropic_message, openai_completion
from tests.fakes.toy_stage import GOOD_PLAN, TOOL, FakeClock, plan_request, validate_plan
from tests.integration.llm.conftest import (
    ANTHROPIC_CANARY,
    CANARY_KEYS,
    OPENAI_CANARY,
    anthropic_provider,
    openai_provider,
)
from tests.providers import API_KEY_VARS, KEYED_PROVIDERS, key_vars
from vba_assets.domain.llm.call import run_stage
from vba_assets.domain.llm.policy import (
    DispatchBudget,
    InMemoryRecorder,
    RetryPolicy,
    StagePolicy,
)
from vba_assets.errors import VbaError

pytestmark = pytest.mark.usefixtures("canary_keys")

PLACEHOLDER = "CANARY-PLACEHOLDER"
_ESCAPE = re.compile(r"\\+u([0-9a-fA-F]{4})")


def decoded(text: str) -> str:
    """``text`` with every ``\\uXXXX`` escape decoded, at any nesting depth."""
    while True:
        unescaped = _ESCAPE.sub(lambda m: chr(int(m[1], 16)), text)
        if unescaped == text:
            return text
        text = unescaped


def exposes(text: str, key: str) -> bool:
    return key in decoded(text)


def escaped(key: str, depth: int = 1) -> str:
    """The key as JSON ``\\u`` escapes; ``depth`` 2 as they appear inside a JSON string in JSON."""
    return "".join("\\" * depth + f"u{ord(char):04x}" for char in key)


def body_text(body: dict[str, Any], key: str, depth: int = 1) -> str:
    """A JSON body with the placeholder replaced by the escaped key."""
    return json.dumps(body).replace(PLACEHOLDER, escaped(key, depth))


# --- the replies of each leak path, per provider --------------------------------------------------


def anthropic_replies(path: str, key: str) -> list[Scripted]:
    good = anthropic_message(tool_name=TOOL, tool_input=GOOD_PLAN)
    ok = Scripted(200, json.dumps(good), headers={"request-id": "req_ok"})
    if path == "request_id_header":
        return [Scripted(200, json.dumps(good), headers={"request-id": key})]
    if path == "response_id_escaped":
        return [Scripted(200, body_text({**good, "id": PLACEHOLDER}, key))]
    if path == "stop_reason_escaped":
        return [Scripted(200, body_text({**good, "stop_reason": PLACEHOLDER}, key)), ok]
    if path == "output_escaped":
        bad = {"searches": [{"term": PLACEHOLDER, "catalog": "creature_name"}]}
        return [
            Scripted(200, body_text(anthropic_message(tool_name=TOOL, tool_input=bad), key)),
            ok,
        ]
    if path == "text_escaped":
        message = anthropic_message(text=f"my key is {PLACEHOLDER}", stop_reason="end_turn")
        return [Scripted(200, body_text(message, key)), ok]
    if path == "error_escaped":
        error = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": PLACEHOLDER},
        }
        return [Scripted(400, body_text(error, key), headers={"request-id": key})]
    raise AssertionError(path)


def openai_replies(path: str, key: str) -> list[Scripted]:
    good = openai_completion(json.dumps(GOOD_PLAN))
    ok = Scripted(200, json.dumps(good), headers={"x-request-id": "oai_ok"})
    if path == "request_id_header":
        return [Scripted(200, json.dumps(good), headers={"x-request-id": key})]
    if path == "response_id_escaped":
        return [Scripted(200, body_text({**good, "id": PLACEHOLDER}, key))]
    if path == "stop_reason_escaped":
        choice = {**good["choices"][0], "finish_reason": PLACEHOLDER}
        return [Scripted(200, body_text({**good, "choices": [choice]}, key)), ok]
    if path == "output_escaped":
        # the key escaped inside the JSON text of message.content: escaped twice in the body
        content = json.dumps({"searches": [{"term": PLACEHOLDER, "catalog": "creature_name"}]})
        return [Scripted(200, body_text(openai_completion(content), key, depth=2)), ok]
    if path == "text_escaped":
        refusal = openai_completion(None, refusal=f"my key is {PLACEHOLDER}")
        return [Scripted(200, body_text(refusal, key)), ok]
    if path == "error_escaped":
        error = {"error": {"message": PLACEHOLDER, "type": "invalid_request_error", "code": None}}
        return [Scripted(400, body_text(error, key), headers={"x-request-id": key})]
    raise AssertionError(path)


PROVIDERS: dict[str, tuple[str, Callable[..., Any], Callable[[str, str], list[Scripted]]]] = {
    "anthropic": (ANTHROPIC_CANARY, anthropic_provider, anthropic_replies),
    "openai_compatible": (OPENAI_CANARY, openai_provider, openai_replies),
}

PATHS = [
    "request_id_header",
    "response_id_escaped",
    "stop_reason_escaped",
    "output_escaped",
    "text_escaped",
    "error_escaped",
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("provider_name", sorted(PROVIDERS))
def test_no_leak_path_lets_the_key_reach_a_record_a_log_an_error_or_a_request(
    provider_name: str,
    path: str,
    server: ScriptedHTTPServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    import logging

    caplog.set_level(logging.DEBUG)
    key, build, replies = PROVIDERS[provider_name]
    server.push(*replies(path, key))
    recorder = InMemoryRecorder()
    error: BaseException | None = None
    try:
        run_stage(
            plan_request(),
            build(server.url),
            validate_plan,
            recorder,
            StagePolicy(max_invalid_responses=3, retry=RetryPolicy(max_retries=0)),
            DispatchBudget(max_dispatches=5),
            clock=clock,
            sleep=clock.sleep,
        )
    except VbaError as exc:
        error = exc
    assert recorder.records, "the stage recorded nothing"
    texts = [record.model_dump_json() for record in recorder.records]
    texts += [
        json.dumps(r.rejected_record().model_dump(mode="json"))
        for r in recorder.records
        if r.rejected_record()
    ]
    texts += [caplog.text]
    if error is not None:
        texts += [str(error), repr(error), json.dumps(getattr(error, "detail", {}), default=str)]
    # every request after the first carries the corrections built from the earlier replies
    texts += [request.body.decode("utf-8") for request in server.requests[1:]]
    leaks = [text[:200] for text in texts if exposes(text, key)]
    assert leaks == []
    # the leak path was really exercised: the redaction marker is where the key was
    assert any("[REDACTED]" in decoded(text) for text in texts), path


# --- the canary follows the provider registry ----------------------------------------------------


def test_every_registered_provider_that_can_carry_a_key_has_a_canary() -> None:
    """A provider added to vba_assets/provider_registry.py fails here until its leak paths are
    scripted above (and its key has a canary in tests/integration/llm/conftest.py)."""
    assert sorted(PROVIDERS) == list(KEYED_PROVIDERS)
    assert sorted(CANARY_KEYS) == list(KEYED_PROVIDERS)
    assert all(PROVIDERS[name][0] == CANARY_KEYS[name] for name in PROVIDERS)
    assert len(set(CANARY_KEYS.values())) == len(CANARY_KEYS)  # a leak names its provider


@pytest.mark.parametrize("provider_name", sorted(PROVIDERS))
def test_the_canary_is_the_key_the_provider_is_built_with(
    provider_name: str, server: ScriptedHTTPServer
) -> None:
    """The canary sits in the variable the provider reads, and the builder builds that provider."""
    key, build, _ = PROVIDERS[provider_name]
    provider = build(server.url)
    assert provider.name == provider_name
    assert os.environ[key_vars(provider_name)[0]] == key
    present = {var: os.environ[var] for var in API_KEY_VARS if var in os.environ}
    assert present == {key_vars(name)[0]: canary for name, canary in CANARY_KEYS.items()}
