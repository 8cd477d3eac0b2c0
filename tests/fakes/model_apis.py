"""Response bodies of the Anthropic Messages API and of OpenAI-style chat completions.

Shapes follow the public API references: what a real server sends for success, each stop/finish
reason, and the error envelope with its headers (``request-id``, ``retry-after``).
"""

import itertools
from typing import Any

from tests.fakes.http_server import Scripted

_ids = itertools.count(1)


def anthropic_message(
    *,
    tool_name: str | None = None,
    tool_input: Any = None,
    text: str | None = None,
    stop_reason: str = "tool_use",
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A ``/v1/messages`` response; a ``tool_use`` block when ``tool_name`` is given."""
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_name is not None:
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{next(_ids):04d}",
                "name": tool_name,
                "input": tool_input,
            }
        )
    return {
        "id": f"msg_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-model",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage
        or {
            "input_tokens": 120,
            "output_tokens": 40,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 0,
        },
    }


def anthropic_reply(**kwargs: Any) -> Scripted:
    request_id = f"req_{next(_ids):04d}"
    return Scripted(200, anthropic_message(**kwargs), headers={"request-id": request_id})


def anthropic_error(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> Scripted:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return Scripted(
        status, body, headers={"request-id": f"req_{next(_ids):04d}", **(headers or {})}
    )


def openai_completion(
    content: str | None,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{next(_ids):04d}",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": 90,
            "completion_tokens": 30,
            "total_tokens": 120,
            "prompt_tokens_details": {"cached_tokens": 64},
        },
    }


def openai_reply(content: str | None, **kwargs: Any) -> Scripted:
    headers = {"x-request-id": f"oai-{next(_ids):04d}"}
    return Scripted(200, openai_completion(content, **kwargs), headers=headers)


def openai_error(status: int, message: str, headers: dict[str, str] | None = None) -> Scripted:
    body = {"error": {"message": message, "type": "server_error", "code": None}}
    return Scripted(status, body, headers=headers or {})
