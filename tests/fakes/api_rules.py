"""What the real APIs refuse, so a request that would fail against the service fails in CI first.

The local servers (:class:`~tests.fakes.http_server.ScriptedHTTPServer` with
:func:`refuse_invalid`) answer a request these rules reject with the API's own error envelope and
status 400, instead of the scripted reply. The rules are written here from the providers' public
references, independently of the code that builds our schemas (``domain/llm/schemas.py``), so a
test cannot pass because the generator and the checker share a mistake:

Anthropic Messages API (structured outputs, strict tool use; anthropic 2.10 SDK
``lib/_parse/_transform.py`` and ``types/tool_param.py``, the structured-outputs docs' "JSON
Schema limitations"):

* tool names are unique; a forced ``tool_choice`` names a defined tool; at most 4
  ``cache_control`` breakpoints in a request;
* a ``strict`` tool's ``input_schema`` and an ``output_config.format`` schema (``type``
  ``json_schema``) use only: ``type``, ``properties``, ``required``, ``additionalProperties``
  (``false`` on every object), ``items``, primitive ``enum``/``const``, ``anyOf``, ``allOf``,
  ``description``, ``title``, ``$ref``/``$defs`` (local), a supported string ``format`` and
  ``minItems`` 0 or 1; numeric bounds, string lengths, ``pattern``, ``maxItems`` are refused.

OpenAI-style chat completions, ``response_format`` (OpenAI structured outputs; the error texts
are OpenAI's, e.g. vercel/ai#6484, moeru-ai/xsai#202, instructor#1074):

* ``type`` is ``text``, ``json_object`` or ``json_schema``; ``json_schema.name`` matches
  ``^[a-zA-Z0-9_-]{1,64}$``;
* with ``strict: true``: the root is an object (not ``anyOf``); every object has
  ``additionalProperties: false`` and lists every property in ``required``; a ``$ref`` has no
  sibling keywords; only ``type``, ``properties``, ``required``, ``additionalProperties``,
  ``items``, ``enum``, ``const``, ``anyOf``, ``description``, ``title``, ``pattern``,
  ``format``, numeric bounds, ``minItems``/``maxItems``, ``$ref``/``$defs`` are permitted
  (``default``, ``minLength``/``maxLength``, ``oneOf``, ``allOf``, ``not``,
  ``uniqueItems``, ... are "not permitted").
"""

import re
from collections.abc import Callable, Iterator
from typing import Any

from tests.fakes.http_server import ReceivedRequest, Scripted

ANTHROPIC_STRICT_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "allOf",
        "description",
        "title",
        "format",
        "minItems",
        "$ref",
        "$defs",
    }
)
ANTHROPIC_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
OPENAI_STRICT_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "description",
        "title",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "$ref",
        "$defs",
    }
)
OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_SUBSCHEMA_MAPS = ("properties", "$defs")
_SUBSCHEMA_LISTS = ("anyOf", "allOf")
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _nodes(schema: Any, context: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every subschema with its context path (the API's ``In context=(...)``)."""
    if not isinstance(schema, dict):
        return
    yield context, schema
    for key in _SUBSCHEMA_MAPS:
        for name, sub in (schema.get(key) or {}).items():
            yield from _nodes(sub, (*context, key, name))
    if isinstance(schema.get("items"), dict):
        yield from _nodes(schema["items"], (*context, "items"))
    for key in _SUBSCHEMA_LISTS:
        for index, sub in enumerate(schema.get(key) or []):
            yield from _nodes(sub, (*context, key, str(index)))


def _primitive(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


# --- Anthropic ----------------------------------------------------------------------------------


def anthropic_strict_schema_problems(schema: Any) -> list[str]:
    """Why Anthropic's structured outputs would refuse ``schema`` (empty: accepted)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return ["the schema must be an object schema"]
    problems = []
    for context, node in _nodes(schema):
        where = "/".join(context) or "<root>"
        for key in node:
            if key not in ANTHROPIC_STRICT_KEYWORDS:
                problems.append(f"{where}: '{key}' is not supported")
        if node.get("type") == "object" and node.get("additionalProperties") is not False:
            problems.append(f"{where}: objects must set additionalProperties to false")
        if "minItems" in node and node["minItems"] not in (0, 1):
            problems.append(f"{where}: minItems other than 0 or 1 is not supported")
        if "format" in node and node["format"] not in ANTHROPIC_FORMATS:
            problems.append(f"{where}: format {node['format']!r} is not supported")
        if not all(_primitive(v) for v in node.get("enum") or []) or not _primitive(
            node.get("const")
        ):
            problems.append(f"{where}: enum and const values must be primitives")
        ref = node.get("$ref")
        if ref is not None and not str(ref).startswith("#/"):
            problems.append(f"{where}: only local $ref is supported")
    return problems


def anthropic_request_problems(body: dict[str, Any]) -> list[str]:
    """Why ``POST /v1/messages`` would answer 400 to ``body`` (empty: accepted)."""
    problems = []
    tools = body.get("tools") or []
    names = [tool.get("name") for tool in tools]
    if len(names) != len(set(names)):
        problems.append("tools: Tool names must be unique.")
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "tool" and choice.get("name") not in names:
        problems.append(f"tool_choice: tool {choice.get('name')!r} is not defined in tools")
    for index, tool in enumerate(tools):
        if tool.get("strict") is True:
            problems += [
                f"tools.{index}.input_schema: {problem}"
                for problem in anthropic_strict_schema_problems(tool.get("input_schema"))
            ]
    output_format = (body.get("output_config") or {}).get("format")
    if output_format is not None:
        if output_format.get("type") != "json_schema":
            problems.append("output_config.format.type: Input should be 'json_schema'")
        problems += [
            f"output_config.format.schema: {problem}"
            for problem in anthropic_strict_schema_problems(output_format.get("schema"))
        ]
    breakpoints = sum(1 for _ in _cache_controls(body))
    if breakpoints > 4:
        problems.append(
            f"A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}."
        )
    return problems


def _cache_controls(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for key, sub in value.items():
            if key == "cache_control":
                yield sub
            else:
                yield from _cache_controls(sub)
    elif isinstance(value, list):
        for sub in value:
            yield from _cache_controls(sub)


def anthropic_refusal(problems: list[str]) -> Scripted:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "; ".join(problems)},
    }
    return Scripted(400, body, headers={"request-id": "req_refused_by_fake"})


# --- OpenAI-style -------------------------------------------------------------------------------


def openai_strict_schema_problems(schema: Any, name: str = "response") -> list[str]:
    """Why OpenAI strict structured outputs would refuse ``schema`` (its own error texts)."""
    prefix = f"Invalid schema for response_format '{name}': In context=%s, "
    if not isinstance(schema, dict) or schema.get("type") != "object" or "anyOf" in schema:
        return [prefix % "()" + "schema must be a JSON Schema of 'type: \"object\"', got 'None'."]
    problems = []
    for context, node in _nodes(schema):
        where = prefix % (tuple(context),)
        for key in node:
            if key not in OPENAI_STRICT_KEYWORDS:
                problems.append(where + f"'{key}' is not permitted.")
        if "$ref" in node and len(node) > 1:
            problems.append(
                where + "'$ref' cannot have keywords {" + ", ".join(sorted(node)) + "}."
            )
        if node.get("type") == "object" or "properties" in node:
            if node.get("additionalProperties") is not False:
                problems.append(
                    where + "'additionalProperties' is required to be supplied and to be false."
                )
            missing = [p for p in node.get("properties") or {} if p not in node.get("required", [])]
            if missing:
                problems.append(
                    where + "'required' is required to be supplied and to be an array including "
                    f"every key in properties. Missing '{missing[0]}'."
                )
        if "format" in node and node["format"] not in OPENAI_FORMATS:
            problems.append(where + f"format '{node['format']}' is not permitted.")
    return problems


def openai_request_problems(body: dict[str, Any], *, json_schema: bool = True) -> list[str]:
    """Why ``POST /v1/chat/completions`` would answer 400 to ``body`` (empty: accepted).

    ``json_schema=False`` plays a server without structured outputs (an older vLLM or llama.cpp,
    a proxy): it refuses that response format the way such servers do.
    """
    response_format = body.get("response_format")
    if response_format is None:
        return []
    kind = response_format.get("type")
    if kind not in ("text", "json_object", "json_schema"):
        return [f"Invalid value for 'response_format.type': {kind!r}"]
    if kind != "json_schema":
        return []
    if not json_schema:
        return ["response_format of type 'json_schema' is not supported by this server"]
    spec = response_format.get("json_schema") or {}
    name = spec.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        return ["Invalid 'response_format.json_schema.name': must match ^[a-zA-Z0-9_-]{1,64}$"]
    if spec.get("strict") is not True:
        return []
    return openai_strict_schema_problems(spec.get("schema"), name)


def openai_refusal(problems: list[str]) -> Scripted:
    body = {
        "error": {
            "message": problems[0],
            "type": "invalid_request_error",
            "param": "response_format",
            "code": None,
        }
    }
    return Scripted(400, body, headers={"x-request-id": "oai-refused-by-fake"})


# --- the hook for ScriptedHTTPServer --------------------------------------------------------------


def refuse_invalid(
    *, openai_json_schema: bool = True
) -> Callable[[ReceivedRequest], Scripted | None]:
    """A request check for :class:`~tests.fakes.http_server.ScriptedHTTPServer`: the API's 400 for
    a request the real service would refuse, None to answer with the next scripted reply."""

    def check(received: ReceivedRequest) -> Scripted | None:
        try:
            body = received.json()
        except ValueError:
            return None
        if not isinstance(body, dict):
            return None
        if received.path.endswith("/messages"):
            problems = anthropic_request_problems(body)
            return anthropic_refusal(problems) if problems else None
        if received.path.endswith("/chat/completions"):
            problems = openai_request_problems(body, json_schema=openai_json_schema)
            return openai_refusal(problems) if problems else None
        return None

    return check
