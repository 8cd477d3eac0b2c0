"""Protocol 4: strict schema dialects, the schema sent once, static items first, corrections
that show the offending value, and the config that selects all of it."""

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from tests.fakes.api_rules import anthropic_strict_schema_problems, openai_strict_schema_problems
from tests.fakes.toy_stage import Plan, plan_request
from tests.unit.test_stage_requests import all_requests
from vba_assets.domain.findings import Finding
from vba_assets.domain.interpretation.models import InterpretationOutput
from vba_assets.domain.llm.call import VALUE_LIMIT, conversation, correction_message
from vba_assets.domain.llm.contract import (
    SCHEMA_HEADING,
    DispatchRecord,
    ModelRequest,
    schema_text,
)
from vba_assets.domain.llm.schemas import NATIVE_DIALECTS, STRICT_DIALECTS, provider_schema
from vba_assets.domain.prompting.prompts import load_prompt_set
from vba_assets.domain.prompting.render import DATA_NOTICE, DATA_NOTICE_SYSTEM, OFFSETS_NOTE
from vba_assets.domain.prompting.requests import RequestParams, request_items_for
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.models import ResolutionAssessmentOutput, ResolutionPlanOutput
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.llm_config import parse_llm_config, schema_dialect

OUTPUTS = (ResolutionPlanOutput, ResolutionAssessmentOutput, InterpretationOutput, Plan)
DIALECTS = ("json_schema", "anthropic", "anthropic_strict", "openai_strict")


# --- strict dialects ------------------------------------------------------------------------------


@pytest.mark.parametrize("output", OUTPUTS, ids=lambda m: m.__name__)
def test_strict_schemas_carry_no_feature_their_mode_rejects(output: type[BaseModel]) -> None:
    anthropic = provider_schema(output, dialect="anthropic_strict")
    openai = provider_schema(output, dialect="openai_strict")
    assert anthropic_strict_schema_problems(anthropic) == []
    assert openai_strict_schema_problems(openai) == []
    # the pydantic schema itself would be refused: the dialects are what make it acceptable
    assert anthropic_strict_schema_problems(output.model_json_schema())
    assert openai_strict_schema_problems(output.model_json_schema())


def test_a_dropped_constraint_is_described_and_still_enforced() -> None:
    schema = provider_schema(ResolutionPlanOutput, dialect="anthropic_strict")
    term = schema["properties"]["searches"]["items"]["properties"]["term"]
    assert "maxLength" not in term and "{maxLength: 100, minLength: 1}" in term["description"]
    too_long = {"searches": [{"term": "x" * 101, "catalog": "c", "role": "affected_subject"}]}
    with pytest.raises(ValueError, match="at most 100 characters"):
        ResolutionPlanOutput.model_validate(too_long)  # enforced locally, whatever was sent


def test_openai_strict_requires_every_property() -> None:
    schema = provider_schema(ResolutionAssessmentOutput, dialect="openai_strict")
    item = schema["properties"]["assessments"]["items"]
    assert item["required"] == list(item["properties"])
    assert "default" not in json.dumps(schema) and "$ref" not in json.dumps(schema)


class OpenBag(BaseModel):
    model_config = ConfigDict(extra="forbid")
    data: dict[str, Any] = Field(default_factory=dict)


@pytest.mark.parametrize("dialect", sorted(STRICT_DIALECTS))
def test_a_schema_a_strict_mode_cannot_express_fails_when_the_request_is_built(
    dialect: Any,
) -> None:
    with pytest.raises(ValueError, match="open object"):
        provider_schema(OpenBag, dialect=dialect)


# --- the schema is sent once; static first ----------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
def test_protocol_4_sends_the_schema_exactly_once(dialect: Any) -> None:
    params = RequestParams(model="m", max_tokens=100, dialect=dialect)
    for request in all_requests(4, params):
        block = f"{SCHEMA_HEADING}\n\n{schema_text(request.output_schema)}"
        in_text = request.system.count(block) + request.messages[0].content.count(SCHEMA_HEADING)
        assert in_text == (0 if dialect in NATIVE_DIALECTS else 1)
        assert request.schema_dialect == dialect
        assert request.schema_in_prompt is (dialect not in NATIVE_DIALECTS)
        if in_text:
            assert request.system.endswith(block + "\n")


def test_protocol_4_puts_every_static_item_before_the_first_per_case_item() -> None:
    prompts = load_prompt_set("v2")
    for dialect in DIALECTS:
        params = RequestParams(model="m", max_tokens=100, dialect=dialect)
        for request in all_requests(4, params):
            user = request.messages[0].content
            assert DATA_NOTICE not in user and OFFSETS_NOTE not in user
            assert DATA_NOTICE_SYSTEM in request.system and OFFSETS_NOTE in request.system
            items = [i for i in request_items_for(request, prompts) if i.slot == "message:0"]
            assert items and all(i.lifecycle not in ("static", "provider_injected") for i in items)
            # the examples show requests the way protocol 4 lays them out
            assert request.system.count(DATA_NOTICE_SYSTEM) == 1
            assert DATA_NOTICE not in request.system


def test_older_protocols_keep_their_layout() -> None:
    for version in (1, 2, 3):
        for request in all_requests(version):
            assert request.schema_dialect is None
            assert "schema_dialect" not in request.document()
            assert DATA_NOTICE in request.messages[0].content
            assert (SCHEMA_HEADING in request.messages[0].content) is (version >= 2)
            assert SCHEMA_HEADING not in request.system


def test_toy_requests_follow_the_same_rule() -> None:
    assert SCHEMA_HEADING in plan_request(4).system  # json_schema: no native channel
    native = plan_request(4, dialect="anthropic_strict")
    assert SCHEMA_HEADING not in native.system + native.messages[0].content


# --- corrections name the offending value -------------------------------------------------------


def _rejected(reply: Any, issues: list[Finding], version: Any = 4) -> DispatchRecord:
    request = plan_request(version)
    return DispatchRecord(
        record_version=2,
        stage=request.stage,
        attempt=1,
        provider="scripted",
        model=request.model,
        parameters={},
        protocol_version=version,
        output_name=request.output_name,
        base_request_sha256=request.sha256(),
        request_sha256=request.sha256(),
        request={},
        outcome="rejected",
        output_text=reply if isinstance(reply, str) else json.dumps(reply),
        issues=tuple(issues),
    )


def test_protocol_4_corrections_show_each_offending_value() -> None:
    reply = {"searches": [{"term": "Wolpertinger King", "quote": "q" * 400}]}
    issues = [
        Finding(code=ErrorCode.PLAN_TERM_NOT_IN_QUOTE, path="/searches/0/term", message="m1"),
        Finding(code=ErrorCode.LLM_OUTPUT_SCHEMA, path="/searches/0/catalog", message="m2"),
        Finding(code=ErrorCode.LLM_OUTPUT_SCHEMA, path="/searches/0/quote", message="m3"),
        Finding(code=ErrorCode.LLM_INCOMPLETE_OUTPUT, message="m4"),
    ]
    text = correction_message(issues, protocol(4), json.dumps(reply))
    lines = text.splitlines()[1:]
    assert lines[0] == (
        '- PLAN_TERM_NOT_IN_QUOTE at /searches/0/term (value: "Wolpertinger King"): m1'
    )
    assert lines[1] == "- LLM_OUTPUT_SCHEMA at /searches/0/catalog (value: missing): m2"
    value = lines[2].split("(value: ", 1)[1].split("): ", 1)[0]
    assert len(value) == VALUE_LIMIT and value.endswith("…")
    assert lines[3] == "- LLM_INCOMPLETE_OUTPUT: m4"
    # the conversation carries the same text
    record = _rejected(reply, issues)
    assert conversation(plan_request(4), [record])[-1].content == text


def test_older_protocols_keep_their_correction_text() -> None:
    issue = Finding(code=ErrorCode.PLAN_TERM_NOT_IN_QUOTE, path="/searches/0/term", message="m")
    reply = json.dumps({"searches": [{"term": "x"}]})
    assert correction_message([issue], protocol(3), reply).endswith(
        "- PLAN_TERM_NOT_IN_QUOTE at /searches/0/term: m"
    )
    assert correction_message([issue], protocol(2), reply).endswith(
        "- LLM_OUTPUT_RULES at /searches/0/term: m"
    )
    assert "(value:" not in correction_message([issue], protocol(4), "not json")


# --- configuration --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "dialect"),
    [
        ({"provider": "anthropic", "model": "m"}, "anthropic_strict"),
        (
            {"provider": "anthropic", "model": "m", "response_format": "json_schema"},
            "anthropic_strict",
        ),
        ({"provider": "anthropic", "model": "m", "response_format": "tool_use"}, "anthropic"),
        (
            {"provider": "openai_compatible", "model": "m", "base_url": "http://h/v1"},
            "openai_strict",
        ),
        (
            {
                "provider": "openai_compatible",
                "model": "m",
                "base_url": "http://h/v1",
                "response_format": "json_object",
            },
            "json_schema",
        ),
        ({"provider": "heuristic"}, "json_schema"),
    ],
)
def test_each_response_format_freezes_its_dialect(document: dict[str, Any], dialect: str) -> None:
    assert schema_dialect(parse_llm_config(document, source="t")) == dialect


@pytest.mark.parametrize(
    "document",
    [
        {"provider": "anthropic", "model": "m", "json_schema_fallback": "json_object"},
        {
            "provider": "openai_compatible",
            "model": "m",
            "base_url": "http://h/v1",
            "response_format": "json_object",
            "json_schema_fallback": "json_object",
        },
        {
            "provider": "openai_compatible",
            "model": "m",
            "base_url": "http://h/v1",
            "json_schema_fallback": "text",
        },
    ],
)
def test_a_fallback_is_only_for_openai_json_schema(document: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_llm_config(document, source="t")
    assert raised.value.detail["key"] == "json_schema_fallback"


def test_requests_name_their_dialect_only_from_protocol_4() -> None:
    request: ModelRequest = plan_request(4, dialect="openai_strict")
    assert request.document()["schema_dialect"] == "openai_strict"
    assert "schema_dialect" not in plan_request(3, dialect="openai_strict").document()
