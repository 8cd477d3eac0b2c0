"""The remembered schema texts and request hashes equal what serializing every time gives (the
oracle: :func:`schema_text` of a fresh :func:`provider_schema`, :func:`content_hash` of the
request's document)."""

from typing import Any, get_args

import pytest
from pydantic import BaseModel

from tests.fakes.toy_stage import Plan, plan_request
from tests.unit.test_stage_requests import all_requests
from vba_assets.domain.canonical import content_hash
from vba_assets.domain.interpretation.models import InterpretationOutput, InterpretationOutputV4
from vba_assets.domain.llm.contract import ChatMessage, ModelRequest, schema_text
from vba_assets.domain.llm.schemas import SchemaDialect, provider_schema, provider_schema_text
from vba_assets.domain.prompting.prompts import load_prompt_set
from vba_assets.domain.prompting.requests import RequestParams, request_items_for
from vba_assets.domain.resolution.models import ResolutionAssessmentOutput, ResolutionPlanOutput

OUTPUTS = (
    ResolutionPlanOutput,
    ResolutionAssessmentOutput,
    InterpretationOutput,
    InterpretationOutputV4,
    Plan,
)
DIALECTS: tuple[SchemaDialect, ...] = get_args(SchemaDialect)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("output", OUTPUTS, ids=lambda m: m.__name__)
def test_a_schema_text_is_the_canonical_json_of_the_schema(
    output: type[BaseModel], dialect: SchemaDialect
) -> None:
    expected = schema_text(provider_schema(output, dialect=dialect))
    assert provider_schema_text(output, dialect=dialect) == expected
    assert provider_schema_text(output, dialect=dialect) == expected  # remembered


@pytest.mark.parametrize("protocol", [2, 4])
@pytest.mark.parametrize("dialect", ["json_schema", "anthropic_strict", "gemini"])
def test_a_built_request_knows_the_text_of_its_own_schema(protocol: int, dialect: Any) -> None:
    params = RequestParams(model="m", max_tokens=100, dialect=dialect)
    for request in all_requests(protocol, params):
        expected = schema_text(request.output_schema)
        assert request.output_schema_text() == expected
        rebuilt = ModelRequest.model_validate(request.model_dump())  # nothing remembered
        assert rebuilt.output_schema_text() == expected
        assert rebuilt.sha256() == request.sha256() == content_hash(request.document())


def test_a_copy_with_another_schema_forgets_the_text() -> None:
    prompts = load_prompt_set("v2")
    params = RequestParams(model="m", max_tokens=100, dialect="anthropic")  # schema not in text
    request = all_requests(4, params)[0]
    other = {"type": "object", "properties": {"x": {"type": "integer"}}}
    copied = request.model_copy(update={"output_schema": other})
    assert request.output_schema_text() != schema_text(other)
    assert copied.output_schema_text() == schema_text(other)
    items = {item.name: item.text for item in request_items_for(copied, prompts)}
    assert items["provider:output_schema"] == schema_text(other)


def test_the_requests_own_messages_share_the_hash_of_none() -> None:
    request = plan_request(2)
    same = [ChatMessage(role=m.role, content=m.content) for m in request.messages]
    corrected = [*request.messages, ChatMessage(role="assistant", content="{}")]
    expected = content_hash(request.document())
    assert request.sha256(same) == request.sha256() == expected
    assert request.sha256(request.messages) == expected
    assert request.sha256(corrected) == content_hash(request.document(corrected)) != expected
    assert list(request._hashes) == [None, tuple(corrected)]
