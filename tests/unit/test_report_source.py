"""The optional ``source`` block of a report and ``url`` attachments: strict, frozen, not evidence."""

import json
from typing import Any

import pytest

from vba_assets.domain.case.builder import Case, build_case
from vba_assets.domain.case.report import admit_report
from vba_assets.domain.stage_context import interpretation_stage_context, plan_stage_context
from vba_assets.errors import ErrorCode, InputError
from vba_assets.store import canonical_bytes

BASE: dict[str, Any] = {
    "case_id": "BUG-000300",
    "title": "Goldark Snipehunter quest",
    "body": "No Wild Wolpertinger anywhere.",
    "reported_at": "2026-09-24T21:47:12+02:00",
}
URL = "https://github.com/example-org/example-core/issues/17"
SOURCE: dict[str, Any] = {
    "tracker": "github",
    "repository": "example-org/example-core",
    "number": 17,
    "url": URL,
    "author": "reporter-one",
    "created_at": "2026-09-24T19:47:12Z",
    "updated_at": "2026-09-25T08:00:00+02:00",
    "labels": ["bug", "quest"],
    "ids": {"issue_id": 123456789, "node_id": "I_kwDOExample"},
}


def build(report: dict[str, Any]) -> Case:
    return build_case(admit_report(json.dumps(report).encode("utf-8"), {}))


def refused(report: dict[str, Any]) -> InputError:
    with pytest.raises(InputError) as caught:
        build(report)
    return caught.value


def test_the_source_block_is_frozen_into_the_case_with_normalized_times() -> None:
    document = build({**BASE, "source": SOURCE}).to_json()
    assert document["source"] == {
        **SOURCE,
        "updated_at": "2026-09-25T06:00:00Z",  # normalized to UTC like reported_at
    }


def test_a_case_without_a_source_block_has_no_source_key_and_the_same_bytes() -> None:
    plain = build(BASE)
    assert "source" not in plain.to_json()
    null_source = build({**BASE, "source": None}).to_json()
    # the raw report differs (its digest too); everything built from it is the same
    assert null_source.pop("report_sha256") != plain.to_json()["report_sha256"]
    assert canonical_bytes({**null_source, "report_sha256": plain.report_sha256}) == (
        canonical_bytes(plain.to_json())
    )
    # a case.json written before the block existed still validates as a case
    assert Case.model_validate(plain.to_json()) == plain


def test_the_source_block_is_never_a_source_or_model_context() -> None:
    case = build({**BASE, "source": SOURCE})
    assert [source.alias for source in case.sources] == ["S1", "S2"]
    document = case.to_json()
    plan = plan_stage_context(document, [], 4).model_dump_json()
    interpretation = interpretation_stage_context(document, None).model_dump_json()
    for context in (plan, interpretation):
        assert URL not in context and "reporter-one" not in context
        assert "I_kwDOExample" not in context and "example-core" not in context


@pytest.mark.parametrize(
    ("change", "field", "code"),
    [
        ({"extra": 1}, "source.extra", ErrorCode.REPORT_INVALID_FIELD),
        ({"tracker": "gitlab"}, "source.tracker", ErrorCode.REPORT_INVALID_FIELD),
        ({"repository": "no-slash"}, "source.repository", ErrorCode.REPORT_INVALID_FIELD),
        ({"repository": "a/b/c"}, "source.repository", ErrorCode.REPORT_INVALID_FIELD),
        ({"number": True}, "source.number", ErrorCode.REPORT_INVALID_FIELD),
        ({"number": 0}, "source.number", ErrorCode.REPORT_INVALID_FIELD),
        ({"number": "17"}, "source.number", ErrorCode.REPORT_INVALID_FIELD),
        ({"url": "javascript:alert(1)"}, "source.url", ErrorCode.REPORT_INVALID_FIELD),
        ({"url": "https://x/a b"}, "source.url", ErrorCode.REPORT_INVALID_FIELD),
        ({"author": "two\nlines"}, "source.author", ErrorCode.REPORT_CONTROL_CHARACTERS),
        (
            {"created_at": "2026-09-24T19:47:12"},
            "source.created_at",
            ErrorCode.REPORT_INVALID_FIELD,
        ),
        ({"labels": "bug"}, "source.labels", ErrorCode.REPORT_INVALID_FIELD),
        ({"labels": [{"name": "bug"}]}, "source.labels[0]", ErrorCode.REPORT_INVALID_FIELD),
        ({"ids": {"id": 1}}, "source.ids.id", ErrorCode.REPORT_INVALID_FIELD),
        ({"ids": {"issue_id": -1}}, "source.ids.issue_id", ErrorCode.REPORT_INVALID_FIELD),
    ],
)
def test_a_bad_source_block_is_refused_naming_the_field(
    change: dict[str, Any], field: str, code: ErrorCode
) -> None:
    error = refused({**BASE, "source": {**SOURCE, **change}})
    assert error.code is code
    assert error.detail["field"] == field


def test_a_missing_required_source_key_is_named() -> None:
    source = {key: value for key, value in SOURCE.items() if key != "url"}
    error = refused({**BASE, "source": source})
    assert (error.code, error.detail["field"]) == (ErrorCode.REPORT_MISSING_FIELD, "source.url")


def test_a_url_attachment_is_listed_unreadable_and_never_fetched() -> None:
    image = "https://user-images.example.com/shot.png"
    case = build({**BASE, "attachments": [{"name": "image 1", "kind": "screenshot", "url": image}]})
    (shot,) = case.unreadable_sources
    assert (shot.alias, shot.kind, shot.readable, shot.text) == ("S3", "screenshot", False, None)
    assert shot.unreadable_reason == "not_fetched"
    assert shot.sha256 == __import__("hashlib").sha256(image.encode()).hexdigest()


@pytest.mark.parametrize(
    "attachment",
    [
        {"name": "a", "kind": "screenshot", "url": "ftp://x/y.png"},
        {"name": "a", "kind": "other", "url": "https://x/y", "text": "t"},
        {"name": "a", "kind": "other", "url": "https://x/y", "file": "y.txt"},
    ],
)
def test_a_bad_url_attachment_is_refused(attachment: dict[str, Any]) -> None:
    error = refused({**BASE, "attachments": [attachment]})
    assert error.code is ErrorCode.REPORT_INVALID_FIELD
    assert error.detail["field"].startswith("attachments[0]")
