"""Provider-compatible JSON schemas derived from a stage's pydantic output model (ARCHITECTURE 8).

One pydantic model is the single source of truth for a stage's output. What a provider is *sent*
may have to be a reduced form of its JSON schema (an API that rejects ``$ref``, or
``additionalProperties``, or length bounds). Whatever is dropped from the sent schema is still
enforced locally: every reply is validated against the full pydantic model before it is accepted.

Dialects:

* ``json_schema``: pydantic's draft 2020-12 schema, unchanged (``$defs`` and ``$ref`` kept).
* ``anthropic``: the tool ``input_schema`` of the Messages API; as ``json_schema``, checked to be an
  object schema at the top level (tool input is always an object).
* ``inline``: ``json_schema`` with every ``$ref`` replaced by its definition, for schemas shown to a
  model in a prompt and for APIs without ``$ref`` support.
* ``gemini``: a Gemini-style OpenAPI subset: ``inline``, ``anyOf [X, null]`` becomes ``X`` with
  ``nullable``, ``const`` becomes a one-value ``enum``, and keywords the API rejects or does not
  enforce (``additionalProperties``, ``title``, ``default``, string length and pattern bounds,
  exclusive bounds) are left out of the sent schema.
* ``anthropic_strict``: the subset Anthropic's structured outputs compile into a grammar (strict
  tool use, ``tools[].strict``, and JSON outputs, ``output_config.format``). The keywords kept are
  those the official SDK's ``transform_schema`` keeps (anthropic 2.10,
  ``anthropic/lib/_parse/_transform.py``): ``type``, ``properties``, ``required``,
  ``additionalProperties`` (always ``false``), ``items``, primitive ``enum``/``const``, ``anyOf``
  (``oneOf`` becomes ``anyOf``), ``allOf``, ``description``, a listed string ``format`` and
  ``minItems`` 0 or 1. Every other constraint (string lengths, ``pattern``, numeric bounds,
  ``maxItems``, ...) is written into the field's ``description`` as the SDK does, so the model
  still reads it, and is enforced locally.
* ``openai_strict``: the subset of OpenAI-style ``response_format: {"type": "json_schema",
  "strict": true}`` (OpenAI; vLLM and llama.cpp accept it too): every object has
  ``additionalProperties: false`` and lists every property in ``required`` (the API answers 400
  otherwise: "'required' is required to be supplied and to be an array including every key in
  properties"); ``const`` becomes a one-value ``enum``; kept are ``type``, ``properties``,
  ``required``, ``additionalProperties``, ``items``, ``enum``, ``anyOf``, ``description``,
  ``pattern``, a listed ``format``, numeric bounds and ``minItems``/``maxItems`` (what the OpenAI
  SDK's ``to_strict_json_schema`` produces from a pydantic model). String lengths, ``default``,
  ``oneOf``/``allOf`` and object/array keywords strict mode rejects go into the description.

Both strict dialects inline every ``$ref`` (no reference with siblings, which OpenAI rejects and
Anthropic's SDK drops) and leave out ``title`` and ``default``. A schema a strict dialect cannot
express (an open object, a non-primitive ``enum``, a recursive model) raises ``ValueError`` when
the request is built, never at the provider. Whatever a dialect leaves out is still enforced: the
reply is validated against the full pydantic model before it is accepted.

:data:`NATIVE_DIALECTS` are the dialects whose schema a provider sends in its own structured-output
field; from protocol 4 on the schema is then not repeated in the prompt text.
"""

import copy
import functools
import json
from typing import Any, Literal

from pydantic import BaseModel

from vba_assets.domain.canonical import canonical_bytes

SchemaDialect = Literal[
    "json_schema", "anthropic", "inline", "gemini", "anthropic_strict", "openai_strict"
]
#: Dialects whose schema a provider sends in its own structured-output field (a tool's
#: ``input_schema``, ``output_config.format``, a ``json_schema`` response format): from protocol 4
#: on the schema reaches the model there only. The others (``json_schema``, ``inline``) are for
#: providers that receive no schema otherwise, so protocol 4 shows it once in the system text.
NATIVE_DIALECTS: frozenset[str] = frozenset(
    {"anthropic", "gemini", "anthropic_strict", "openai_strict"}
)
#: Dialects a provider enforces by constrained decoding (strict tool use, JSON outputs, strict
#: ``json_schema``): a reply can still break a rule, never the schema's shape.
STRICT_DIALECTS: frozenset[str] = frozenset({"anthropic_strict", "openai_strict"})

#: Keywords whose value maps property names (or definition names) to subschemas.
_NAMED_SCHEMA_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions")
#: Keywords whose value is one subschema.
_SINGLE_SCHEMA_KEYWORDS = ("items", "additionalProperties", "not", "contains", "propertyNames")
#: Keywords whose value is a list of subschemas.
_LIST_SCHEMA_KEYWORDS = ("anyOf", "allOf", "oneOf", "prefixItems")

#: Left out of the schema sent in the Gemini-style dialect; pydantic still enforces all of them.
GEMINI_DROPPED_KEYWORDS = frozenset(
    {
        "additionalProperties",
        "title",
        "default",
        "examples",
        "$schema",
        "pattern",
        "minLength",
        "maxLength",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
    }
)


def provider_schema(
    model_cls: type[BaseModel], *, dialect: SchemaDialect = "json_schema"
) -> dict[str, Any]:
    """A fresh copy of :func:`_provider_schema` (generated once per model and dialect)."""
    return copy.deepcopy(_provider_schema(model_cls, dialect))


def provider_schema_text(
    model_cls: type[BaseModel], *, dialect: SchemaDialect = "json_schema"
) -> str:
    """The canonical JSON text of :func:`provider_schema`, serialized once per model and dialect.

    Every :func:`provider_schema` of a model and dialect is a copy of the one schema generated for
    them, so its text cannot differ between calls.
    """
    return _provider_schema_text(model_cls, dialect)


@functools.lru_cache(maxsize=256)  # the stages' output models times six dialects: a few dozen
def _provider_schema_text(model_cls: type[BaseModel], dialect: SchemaDialect) -> str:
    return canonical_bytes(_provider_schema(model_cls, dialect)).decode("utf-8")  # only reads it


@functools.cache
def _provider_schema(model_cls: type[BaseModel], dialect: SchemaDialect) -> dict[str, Any]:
    """The JSON schema of ``model_cls`` in the form a provider of ``dialect`` accepts.

    Args:
        model_cls: The stage's output model (validation mode schema).
        dialect: See the module docstring.

    Returns:
        A new JSON-safe dict; the same model and dialect always give an equal dict.

    Raises:
        ValueError: for an unknown dialect, a non-object top level where the dialect needs one,
            or a recursive model in a dialect that must inline references.
    """
    schema = model_cls.model_json_schema(mode="validation")
    if dialect == "json_schema":
        return schema
    if dialect == "anthropic":
        if schema.get("type") != "object":
            raise ValueError(f"{model_cls.__name__}: a tool input_schema must be an object schema")
        return schema
    if dialect == "inline":
        return inline_refs(schema)
    if dialect == "gemini":
        return to_gemini(inline_refs(schema))
    if dialect in STRICT_DIALECTS:
        return to_strict(inline_refs(schema), dialect)
    raise ValueError(f"unknown schema dialect {dialect!r}")


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace every local ``$ref`` (``#/$defs/Name``) by a copy of its definition.

    Sibling keywords of a ``$ref`` (e.g. a ``description``) are kept next to the inlined
    definition. ``$defs`` is removed from the result.

    Raises:
        ValueError: the schema is recursive (a definition refers to itself) or a reference is
            not a local ``$defs`` entry.
    """
    definitions: dict[str, Any] = dict(schema.get("$defs", {}))
    root = {key: value for key, value in schema.items() if key != "$defs"}
    result = _inline(root, definitions, ())
    assert isinstance(result, dict)
    return result


def _inline(node: Any, definitions: dict[str, Any], stack: tuple[str, ...]) -> Any:
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        ref = node["$ref"]
        prefix = "#/$defs/"
        if (
            not isinstance(ref, str)
            or not ref.startswith(prefix)
            or ref[len(prefix) :] not in definitions
        ):
            raise ValueError(
                f"cannot inline reference {ref!r}: only local #/$defs/ entries are supported"
            )
        name = ref[len(prefix) :]
        if name in stack:
            raise ValueError(
                f"cannot inline recursive definition {name!r} (via {' -> '.join(stack)})"
            )
        target = _inline(copy.deepcopy(definitions[name]), definitions, (*stack, name))
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        return {**target, **_walk_keywords(siblings, lambda sub: _inline(sub, definitions, stack))}
    return _walk_keywords(node, lambda sub: _inline(sub, definitions, stack))


def _walk_keywords(node: dict[str, Any], visit: Any) -> dict[str, Any]:
    """Apply ``visit`` to every direct subschema of ``node``; data keywords are left untouched."""
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key in _NAMED_SCHEMA_KEYWORDS and isinstance(value, dict):
            result[key] = {name: visit(sub) for name, sub in value.items()}
        elif key in _SINGLE_SCHEMA_KEYWORDS and isinstance(value, dict):
            result[key] = visit(value)
        elif key in _LIST_SCHEMA_KEYWORDS and isinstance(value, list):
            result[key] = [visit(sub) for sub in value]
        else:
            result[key] = copy.deepcopy(value)
    return result


def to_gemini(schema: dict[str, Any]) -> dict[str, Any]:
    """Reduce an inlined schema to the Gemini-style subset (see the module docstring)."""
    reduced: dict[str, Any] = _gemini_node(schema)
    return reduced


def _gemini_node(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    node = dict(node)
    any_of = node.get("anyOf")
    if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
        other = next(sub for sub in any_of if sub != {"type": "null"})
        del node["anyOf"]
        node = {**other, **node, "nullable": True}
    if "const" in node:
        node["enum"] = [node.pop("const")]
    kept = {key: value for key, value in node.items() if key not in GEMINI_DROPPED_KEYWORDS}
    return _walk_keywords(kept, _gemini_node)


# --- strict dialects ------------------------------------------------------------------------------

#: Keywords each strict dialect keeps; everything else is described, not sent as a constraint.
STRICT_KEYWORDS: dict[str, frozenset[str]] = {
    "anthropic_strict": frozenset(
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
            "format",
            "minItems",
        }
    ),
    "openai_strict": frozenset(
        {
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "anyOf",
            "description",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        }
    ),
}
#: String formats each strict dialect accepts (others are described).
STRICT_FORMATS: dict[str, frozenset[str]] = {
    "anthropic_strict": frozenset(
        {
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "uri",
            "ipv4",
            "ipv6",
            "uuid",
        }
    ),
    "openai_strict": frozenset(
        {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
    ),
}
#: Left out of a strict schema without a word: annotations, not constraints.
_STRICT_DROPPED = frozenset({"title", "default", "examples", "$schema"})


def to_strict(schema: dict[str, Any], dialect: str) -> dict[str, Any]:
    """An inlined schema in a strict dialect (see the module docstring).

    Raises:
        ValueError: the schema has something the dialect cannot express: an object that admits
            other properties, a non-primitive ``enum``/``const``, a ``$ref`` left uninlined, or
            (``openai_strict``) a root that is not an object.
    """
    if dialect == "openai_strict" and schema.get("type") != "object":
        raise ValueError("openai_strict: the root of a strict json_schema must be an object")
    result: dict[str, Any] = _strict_node(schema, dialect, "")
    return result


def _strict_node(node: Any, dialect: str, where: str) -> Any:
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        raise ValueError(f"{dialect}: {where or '/'}: inline references before a strict dialect")
    node = dict(node)
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")
    if dialect == "openai_strict" and "const" in node:
        node["enum"] = [node.pop("const")]
    for key in ("enum", "const"):
        values = node.get(key) if key == "enum" else [node.get(key)] if key in node else []
        if not all(v is None or isinstance(v, str | int | float | bool) for v in values or []):
            raise ValueError(f"{dialect}: {where or '/'}: {key} values must be primitives")
    keep, formats = STRICT_KEYWORDS[dialect], STRICT_FORMATS[dialect]
    kept: dict[str, Any] = {}
    described: dict[str, Any] = {}
    for key, value in node.items():
        if key in _STRICT_DROPPED or key in _NAMED_SCHEMA_KEYWORDS:
            continue
        if (key == "format" and value not in formats) or (
            key == "minItems" and dialect == "anthropic_strict" and value not in (0, 1)
        ):
            described[key] = value
        elif key == "additionalProperties":
            if value is not False:
                raise ValueError(
                    f"{dialect}: {where or '/'}: an open object (additionalProperties "
                    f"{value!r}) cannot be strict"
                )
        elif key in keep:
            kept[key] = value
        else:
            described[key] = value
    if node.get("type") == "object" or "properties" in node:
        properties = node.get("properties", {})
        kept["properties"] = {
            name: _strict_node(sub, dialect, f"{where}/properties/{name}")
            for name, sub in properties.items()
        }
        kept["additionalProperties"] = False
        if dialect == "openai_strict":
            kept["required"] = list(properties)
    if isinstance(node.get("items"), dict):
        kept["items"] = _strict_node(node["items"], dialect, f"{where}/items")
    for key in ("anyOf", "allOf"):
        if isinstance(kept.get(key), list):
            kept[key] = [
                _strict_node(sub, dialect, f"{where}/{key}/{i}") for i, sub in enumerate(kept[key])
            ]
    if described:
        note = ", ".join(f"{key}: {_described(value)}" for key, value in sorted(described.items()))
        text = kept.get("description")
        kept["description"] = f"{text}\n\n{{{note}}}" if text else f"{{{note}}}"
    return kept


def _described(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
