"""Requests are byte-reproducible; records round-trip; v2 shows the schema, v1 does not."""

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from tests.fakes.toy_stage import Plan, plan_request
from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.findings import Finding
from vba_assets.domain.llm.call import CORRECTION_HEADING, correction_message
from vba_assets.domain.llm.contract import (
    SCHEMA_HEADING,
    ChatMessage,
    DispatchRecord,
    TokenUsage,
    build_request,
    schema_text,
)
from vba_assets.domain.protocol import protocol
from vba_assets.errors import ErrorCode, StoreError


def test_v2_appends_the_canonical_schema_under_the_fixed_heading() -> None:
    request = plan_request(2)
    expected = (
        "Report S1:\nI can't find the Wild Wolpertinger for Goldark's quest.\n\n"
        f"{SCHEMA_HEADING}\n\n{canonical_bytes(Plan.model_json_schema()).decode()}"
    )
    assert request.messages == (ChatMessage(role="user", content=expected),)
    assert schema_text(request.output_schema) == canonical_bytes(Plan.model_json_schema()).decode()


def test_v1_keeps_the_user_message_unchanged() -> None:
    request = plan_request(1)
    assert request.messages[0].content == (
        "Report S1:\nI can't find the Wild Wolpertinger for Goldark's quest."
    )
    assert request.output_schema == Plan.model_json_schema()  # still the tool schema


@pytest.mark.parametrize("protocol", [1, 2])
def test_rebuilding_gives_identical_bytes(protocol: int) -> None:
    first, second = plan_request(protocol), plan_request(protocol)  # type: ignore[arg-type]
    assert canonical_bytes(first.document()) == canonical_bytes(second.document())
    assert first.sha256() == second.sha256()


def test_every_part_of_the_request_is_in_its_hash() -> None:
    base = plan_request(2)
    variants = [
        plan_request(1),
        plan_request(2, system="other"),
        plan_request(2, model="other-model"),
        plan_request(2, stage="interpretation"),
        base.model_copy(update={"max_tokens": 2048}),
        base.model_copy(update={"temperature": 0.5}),
        base.model_copy(update={"stage_context": {"sources": {}}}),
    ]
    hashes = {base.sha256(), *(variant.sha256() for variant in variants)}
    assert len(hashes) == len(variants) + 1
    corrected = [*base.messages, ChatMessage(role="assistant", content="{}")]
    assert base.sha256(corrected) != base.sha256()


def test_invalid_stage_and_output_names_are_refused() -> None:
    with pytest.raises(ValidationError):
        build_request("../etc", 2, "s", "u", Plan, model="m", max_tokens=10)
    with pytest.raises(ValidationError):
        build_request("plan", 2, "s", "u", Plan, model="m", max_tokens=10, output_name="a b")
    with pytest.raises(StoreError, match="PROTOCOL_VERSION_UNKNOWN"):
        build_request("plan", 9, "s", "u", Plan, model="m", max_tokens=10)  # type: ignore[arg-type]


ISSUES = [
    Finding(code=ErrorCode.LLM_OUTPUT_SCHEMA, path="/a/0", message="Field required"),
    Finding(code=ErrorCode.LLM_INCOMPLETE_OUTPUT, message="cut off"),
    Finding(code=ErrorCode.PLAN_CATALOG_UNKNOWN, path="/searches/0/catalog", message="unknown"),
]


def test_correction_message_lists_every_issue_with_its_code_and_path() -> None:
    assert correction_message(ISSUES, protocol(3)).splitlines() == [
        CORRECTION_HEADING,
        "- LLM_OUTPUT_SCHEMA at /a/0: Field required",
        "- LLM_INCOMPLETE_OUTPUT: cut off",
        "- PLAN_CATALOG_UNKNOWN at /searches/0/catalog: unknown",
    ]


@pytest.mark.parametrize("version", [1, 2])
def test_protocol_v1_and_v2_corrections_keep_their_generic_rule_code(version: int) -> None:
    """Their correction rounds replay byte for byte: every rule is ``LLM_OUTPUT_RULES`` there."""
    lines = correction_message(ISSUES, protocol(version)).splitlines()
    assert lines[1:3] == [
        "- LLM_OUTPUT_SCHEMA at /a/0: Field required",
        "- LLM_INCOMPLETE_OUTPUT: cut off",
    ]
    assert lines[3] == "- LLM_OUTPUT_RULES at /searches/0/catalog: unknown"


def test_a_dispatch_record_round_trips_through_json_and_yields_its_rejected_record() -> None:
    record = DispatchRecord(
        stage="resolution_plan",
        attempt=2,
        provider="anthropic",
        model="m",
        parameters={"max_tokens": 10, "temperature": None},
        protocol_version=1,
        output_name="submit_resolution_plan",
        base_request_sha256="a" * 64,
        request_sha256="b" * 64,
        request={"model": "m"},
        started_at=datetime(2026, 10, 15, tzinfo=UTC),
        elapsed_ms=12.5,
        outcome="rejected",
        response_body='{"stop_reason": "max_tokens"}',
        stop_reason="max_tokens",
        finish="incomplete",
        usage=TokenUsage(input=1, output=10),
        issues=(Finding(code=ErrorCode.LLM_INCOMPLETE_OUTPUT, message="cut off"),),
    )
    assert DispatchRecord.model_validate_json(record.model_dump_json()) == record
    rejected = record.rejected_record()
    assert rejected is not None
    assert (rejected.response_body, rejected.stop_reason) == (record.response_body, "max_tokens")
    assert [issue.code for issue in rejected.issues] == [ErrorCode.LLM_INCOMPLETE_OUTPUT]
    assert record.model_copy(update={"outcome": "accepted"}).rejected_record() is None
