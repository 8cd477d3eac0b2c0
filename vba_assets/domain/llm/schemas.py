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
"""

import copy
import functools
from typing import Any, Literal

from pydantic import BaseModel

SchemaDialect = Literal["json_schema", "anthropic", "inline", "gemini"]

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
