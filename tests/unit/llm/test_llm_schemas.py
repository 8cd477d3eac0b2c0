"""Provider schema dialects: what is sent may be reduced, what is validated never is."""

from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from vba_assets.domain.llm.contract import model_validator_for
from vba_assets.domain.llm.schemas import provider_schema


class Mention(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(pattern=r"^S[0-9]+$", description="Source alias.")
    quote: str = Field(min_length=1, max_length=20)


class Entity(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Property names that are also schema keywords must survive every transform.
    title: str
    default: str = "x"
    kind: Literal["creature"]
    mention: Mention | None = None
    mentions: list[Mention] = Field(default_factory=list, max_length=3)


class Node(BaseModel):
    name: str
    children: list["Node"] = Field(default_factory=list)


def walk(node: object) -> list[dict[str, object]]:
    if isinstance(node, dict):
        return [node, *(item for value in node.values() for item in walk(value))]
    if isinstance(node, list):
        return [item for value in node for item in walk(value)]
    return []


def test_json_schema_is_pydantics_schema() -> None:
    assert provider_schema(Entity) == Entity.model_json_schema()
    assert provider_schema(Entity, dialect="anthropic") == Entity.model_json_schema()


def test_inline_resolves_every_reference_and_keeps_siblings() -> None:
    schema = provider_schema(Entity, dialect="inline")
    assert "$defs" not in schema
    assert all("$ref" not in node for node in walk(schema))
    items = schema["properties"]["mentions"]["items"]
    assert items["properties"]["quote"]["maxLength"] == 20
    assert items["additionalProperties"] is False
    assert set(schema["properties"]) == {"title", "default", "kind", "mention", "mentions"}


def test_gemini_drops_what_the_api_rejects_but_keeps_property_names() -> None:
    schema = provider_schema(Entity, dialect="gemini")
    nodes = walk(schema)
    for keyword in ("additionalProperties", "$defs", "$ref", "pattern", "maxLength", "const"):
        assert all(keyword not in node for node in nodes), keyword
    assert set(schema["properties"]) == {"title", "default", "kind", "mention", "mentions"}
    assert schema["properties"]["kind"]["enum"] == ["creature"]
    mention = schema["properties"]["mention"]
    assert mention["nullable"] is True and mention["type"] == "object"
    assert schema["properties"]["mentions"]["maxItems"] == 3  # a bound the API does enforce


def test_bounds_left_out_of_the_sent_schema_are_still_enforced_locally() -> None:
    sent = provider_schema(Entity, dialect="gemini")
    quote = sent["properties"]["mentions"]["items"]["properties"]["quote"]
    assert "maxLength" not in quote
    too_long = {"title": "t", "kind": "creature", "mentions": [{"source": "S1", "quote": "q" * 21}]}
    issues = model_validator_for(Entity)(too_long)
    assert isinstance(issues, list)
    assert [issue.path for issue in issues] == ["/mentions/0/quote"]


def test_recursive_models_cannot_be_inlined() -> None:
    assert "$defs" in provider_schema(Node)
    with pytest.raises(ValueError, match="recursive"):
        provider_schema(Node, dialect="inline")


def test_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown schema dialect"):
        provider_schema(Entity, dialect="xml")  # type: ignore[arg-type]
