"""A scripted model provider for pipeline tests: fixture replies per stage, in order.

It tests the plumbing (validation, correction, recording, reuse, replay), not model quality. Each
queued item is a JSON-able reply (sent as the structured output), a raw string (sent as is, e.g. broken
JSON), a ``("finish", reason, body)`` tuple for unfinished replies, or a :class:`ProviderFault`, or a
callable ``(request) -> item`` that builds a reply from what the request contains (e.g. offsets of a
quote in a case source).
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vba_assets.domain.llm.contract import (
    ChatMessage,
    ModelRequest,
    ProviderFault,
    ProviderReply,
    TokenUsage,
)

Item = Any


@dataclass
class ScriptedProvider:
    """Answers ``request.stage`` from ``script[stage]``; a stage with no reply left fails loudly."""

    script: dict[str, list[Item]]
    name: str = "scripted"
    calls: list[tuple[str, int]] = field(default_factory=list)

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        return request.document(messages)

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        queue = self.script.get(request.stage, [])
        self.calls.append((request.stage, len(messages)))
        if not queue:
            raise AssertionError(f"no scripted reply left for stage {request.stage}")
        item = queue.pop(0)
        if callable(item):
            item = item(request)
        if isinstance(item, ProviderFault):
            raise item
        if isinstance(item, tuple) and item[0] == "finish":
            _, finish, body = item
            return ProviderReply(
                status_code=200,
                response_body=body,
                output_text=body,
                stop_reason=finish,
                finish=finish,
                usage=TokenUsage(input=10, output=5),
            )
        text = item if isinstance(item, str) else json.dumps(item)
        return ProviderReply(
            status_code=200,
            response_body=text,
            output_text=text,
            stop_reason="end_turn",
            finish="complete",
            usage=TokenUsage(input=100, output=50),
            request_id=f"req-{len(self.calls)}",
        )


def mention(
    case_doc: dict[str, Any], alias: str, quote: str, occurrence: int = 0
) -> dict[str, Any]:
    """A grounded mention: the exact offsets of ``quote`` in source ``alias`` of a case.json."""
    text = next(s["text"] for s in case_doc["sources"] if s["alias"] == alias)
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(quote, start + 1)
    return {"source": alias, "quote": quote, "start": start, "end": start + len(quote)}


def from_stage_context(build: Callable[[dict[str, Any]], Item]) -> Callable[[ModelRequest], Item]:
    """A reply computed from the request's structured stage context (with the request's
    ``protocol_version`` when the context does not name it, so a fixture answers in its contract)."""
    return lambda request: build(
        {"protocol_version": request.protocol_version, **request.stage_context}
    )
