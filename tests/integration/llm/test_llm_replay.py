"""Replay: recorded dispatches answer rebuilt requests byte for byte, with no network at all.

A revision is first run against the local Anthropic server (with a correction round) at protocol
v1 and at v2. Then every socket connection is forbidden and the same stages are replayed from the
records (in memory and from dispatch files): the rebuilt requests hash identically, the validators
re-run, the same values are accepted, and nothing tries to connect.
"""

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from resources.llm import ProviderOptions, build_provider
from resources.llm.anthropic_provider import AnthropicProvider
from resources.llm.replay import ReplayProvider
from tests.fakes.http_server import ScriptedHTTPServer
from tests.fakes.model_apis import anthropic_reply
from tests.fakes.toy_stage import (
    GOOD_PLAN,
    MISSING_CATALOG,
    TOOL,
    FakeClock,
    Plan,
    plan_request,
    validate_plan,
)
from tests.integration.llm.conftest import anthropic_provider
from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.llm.call import conversation, run_stage
from vba_assets.domain.llm.contract import SCHEMA_HEADING, DispatchRecord
from vba_assets.domain.llm.policy import DispatchBudget, InMemoryRecorder, RetryPolicy, StagePolicy
from vba_assets.domain.protocol import ProtocolVersion
from vba_assets.errors import ConfigError, ErrorCode, ModelError
from vba_assets.llm_config import load_llm_config

REPO = Path(__file__).resolve().parents[3]
POLICY = StagePolicy(max_invalid_responses=3)


class NetworkGuard:
    """Once ``on()``, every socket connection is refused and noted in ``attempts``."""

    def __init__(self) -> None:
        self.attempts: list[object] = []
        self._patch = pytest.MonkeyPatch()

    def on(self) -> None:
        def refuse(*args: object, **kwargs: object) -> None:
            self.attempts.append(args)
            raise OSError("replay must not open a connection")

        self._patch.setattr(socket.socket, "connect", refuse)
        self._patch.setattr(socket.socket, "connect_ex", refuse)
        self._patch.setattr(socket, "create_connection", refuse)

    def off(self) -> None:
        self._patch.undo()


@pytest.fixture
def network_guard() -> Iterator[NetworkGuard]:
    guard = NetworkGuard()
    yield guard
    guard.off()


def record_revision(
    monkeypatch: pytest.MonkeyPatch, protocol: ProtocolVersion
) -> list[DispatchRecord]:
    """Run the stage live against the local server: one rejection, then an accepted reply."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-only")
    recorder = InMemoryRecorder()
    clock = FakeClock()
    with ScriptedHTTPServer() as server:
        server.push(
            anthropic_reply(tool_name=TOOL, tool_input=MISSING_CATALOG),
            anthropic_reply(tool_name=TOOL, tool_input=GOOD_PLAN),
        )
        provider = anthropic_provider(server.url)
        run_stage(
            plan_request(protocol),
            provider,
            validate_plan,
            recorder,
            POLICY,
            DispatchBudget(10),
            clock=clock,
            sleep=clock.sleep,
        )
        provider.close()
        assert len(server.requests) == 2
    return recorder.records


@pytest.mark.parametrize("protocol", [1, 2])
def test_replay_rebuilds_requests_byte_for_byte_without_network(
    monkeypatch: pytest.MonkeyPatch, network_guard: NetworkGuard, protocol: ProtocolVersion
) -> None:
    original = record_revision(monkeypatch, protocol)  # live, over loopback
    network_guard.on()
    assert [r.outcome for r in original] == ["rejected", "accepted"]

    rebuilt = plan_request(protocol)  # a fresh build from the same frozen inputs
    assert (SCHEMA_HEADING in rebuilt.messages[0].content) is (protocol == 2)
    assert rebuilt.sha256() == original[0].base_request_sha256
    # The exact wire body of each attempt is rebuilt byte for byte (correction round included).
    sender = AnthropicProvider(api_key="unused", base_url="http://127.0.0.1:9")
    for index, record in enumerate(original):
        messages = conversation(rebuilt, original[:index])
        assert canonical_bytes(sender.wire_request(rebuilt, messages)) == canonical_bytes(
            record.request
        )
        assert rebuilt.sha256(messages) == record.request_sha256

    replay_recorder = InMemoryRecorder()
    outcome = run_stage(
        rebuilt,
        ReplayProvider(original),
        validate_plan,
        replay_recorder,
        POLICY,
        DispatchBudget(10),
    )

    assert outcome.value == Plan.model_validate(GOOD_PLAN)
    assert [(r.attempt, r.outcome, r.request_sha256) for r in replay_recorder.records] == [
        (r.attempt, r.outcome, r.request_sha256) for r in original
    ]
    assert [r.request for r in replay_recorder.records] == [r.request for r in original]
    assert [r.issues for r in replay_recorder.records] == [r.issues for r in original]
    assert network_guard.attempts == []


def test_v1_and_v2_requests_differ_only_by_the_schema_message() -> None:
    v1, v2 = plan_request(1), plan_request(2)
    assert v1.sha256() != v2.sha256()
    assert v2.messages[0].content.startswith(v1.messages[0].content + "\n\n" + SCHEMA_HEADING)
    assert v1.model_dump(exclude={"messages", "protocol_version"}) == v2.model_dump(
        exclude={"messages", "protocol_version"}
    )


def test_replay_from_dispatch_files_via_the_replay_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, network_guard: NetworkGuard
) -> None:
    original = record_revision(monkeypatch, 2)
    network_guard.on()
    for record in original:
        path = tmp_path / f"{record.stage}-{record.attempt}.json"
        path.write_text(record.model_dump_json(), encoding="utf-8")
    loaded = ReplayProvider.from_directories(tmp_path)
    config = load_llm_config(REPO / "config" / "llm.replay.toml")
    assert config.provider == "replay"
    provider = build_provider(config, ProviderOptions(replay_records=original))

    for replayer in (loaded, provider):
        outcome = run_stage(
            plan_request(2),
            replayer,
            validate_plan,
            InMemoryRecorder(),
            POLICY,
            DispatchBudget(10),
        )
        assert outcome.accepted.request_sha256 == original[-1].request_sha256
    assert network_guard.attempts == []


def test_a_replay_miss_is_an_error_never_a_call(
    monkeypatch: pytest.MonkeyPatch, network_guard: NetworkGuard
) -> None:
    original = record_revision(monkeypatch, 2)
    network_guard.on()
    changed = plan_request(2, system="A different prompt version.")
    recorder = InMemoryRecorder()

    with pytest.raises(ModelError) as raised:
        run_stage(
            changed,
            ReplayProvider(original),
            validate_plan,
            recorder,
            POLICY,
            DispatchBudget(10),
        )

    assert raised.value.code is ErrorCode.LLM_REPLAY_MISS
    assert raised.value.detail == {"stage": "resolution_plan", "request_sha256": changed.sha256()}
    assert changed.sha256() in str(raised.value) and "resolution_plan" in str(raised.value)
    assert recorder.records == []
    assert network_guard.attempts == []


def test_replay_without_records_is_a_config_error() -> None:
    config = load_llm_config(REPO / "config" / "llm.replay.toml")
    with pytest.raises(ConfigError) as raised:
        build_provider(config, ProviderOptions())
    assert raised.value.code is ErrorCode.CONFIG_INVALID
    assert raised.value.detail["key"] == "provider"


def test_the_network_guard_catches_a_live_provider(
    monkeypatch: pytest.MonkeyPatch, network_guard: NetworkGuard
) -> None:
    """Proves the guard above would notice a replay that tried to call a model."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-only")
    network_guard.on()
    with pytest.raises(ModelError) as raised:
        run_stage(
            plan_request(2),
            anthropic_provider("http://127.0.0.1:9"),
            validate_plan,
            InMemoryRecorder(),
            StagePolicy(retry=RetryPolicy(max_retries=0)),
            DispatchBudget(10),
        )
    assert raised.value.code is ErrorCode.LLM_PROVIDER_ERROR
    assert network_guard.attempts != []
