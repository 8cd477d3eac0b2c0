"""The evaluation dataset loader: format, defaults and errors that name the line and field."""

import json
from pathlib import Path
from typing import Any

import pytest

from vba_assets.errors import ErrorCode, InputError
from vba_assets.evaluation.dataset import (
    DEFAULT_REPORTED_AT,
    load_dataset,
    parse_dataset,
)

DEVSET = Path(__file__).resolve().parents[2] / "eval" / "devset.jsonl"


def _line(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": "EV-1",
        "title": "Hogger respawns too fast",
        "body": "Marshal Dughan sent me to kill Hogger.",
        "mentions": [
            {"surface": "Hogger", "role": "affected_subject", "gold_entry": 448},
            {"surface": "Marshal Dughan", "role": "quest_giver", "gold_entry": 240},
        ],
    }
    doc.update(overrides)
    return doc


def _jsonl(*docs: dict[str, Any]) -> bytes:
    return "\n".join(json.dumps(d, ensure_ascii=False) for d in docs).encode("utf-8")


def _error(data: bytes) -> InputError:
    with pytest.raises(InputError) as info:
        parse_dataset(data, "set.jsonl")
    assert info.value.code == ErrorCode.EVAL_DATASET_INVALID
    return info.value


def test_valid_lines_with_defaults_and_ignored_keys() -> None:
    extra = _line(id="EV-2", note="ignored", reported_at="2026-03-01T10:00:00+02:00")
    extra["mentions"][0]["note"] = "also ignored"
    dataset = parse_dataset(_jsonl(_line(), extra), "set.jsonl")
    assert [case.id for case in dataset.cases] == ["EV-1", "EV-2"]
    first, second = dataset.cases
    assert first.reported_at == DEFAULT_REPORTED_AT
    assert second.reported_at == "2026-03-01T10:00:00+02:00"
    assert first.mentions[0].gold_entry == 448
    assert first.report_document() == {
        "case_id": "EV-1",
        "title": "Hogger respawns too fast",
        "body": "Marshal Dughan sent me to kill Hogger.",
        "reported_at": DEFAULT_REPORTED_AT,
    }
    assert len(dataset.sha256) == 64


def test_blank_lines_are_skipped_and_line_numbers_count_them() -> None:
    data = _jsonl(_line()) + b"\n\n" + _jsonl(_line(id="EV-2", mentions=[{"surface": "x"}]))
    error = _error(data)
    assert "set.jsonl line 3: mentions[0].role" in error.message
    assert error.detail["line"] == 3


def test_null_gold_and_no_mentions_are_valid() -> None:
    doc = _line(mentions=[{"surface": "Hogger", "role": "other_context", "gold_entry": None}])
    empty = _line(id="EV-2", title="UI bug", body="The chat resets.", mentions=[])
    dataset = parse_dataset(_jsonl(doc, empty), "s")
    assert dataset.cases[0].mentions[0].gold_entry is None
    assert dataset.cases[1].mentions == ()


@pytest.mark.parametrize(
    ("doc", "field", "reason"),
    [
        (_line(id="bad|id"), "id", "not a case id"),
        (_line(id=7), "id", "string"),
        (_line(title="", body=" "), "title", "both empty"),
        (_line(reported_at="2026-01-01T10:00:00"), "reported_at", "offset"),
        (_line(reported_at="yesterday"), "reported_at", "ISO 8601"),
        (
            _line(mentions=[{"surface": "Hoger", "role": "affected_subject", "gold_entry": 1}]),
            "mentions[0].surface",
            "does not occur",
        ),
        (
            _line(mentions=[{"surface": "Hogger", "role": "villain", "gold_entry": 1}]),
            "mentions[0].role",
            "affected_subject",
        ),
        (
            _line(mentions=[{"surface": "Hogger", "role": "quest_giver", "gold_entry": "448"}]),
            "mentions[0].gold_entry",
            "integer",
        ),
        (
            _line(mentions=[{"surface": "Hogger", "role": "quest_giver", "gold_entry": True}]),
            "mentions[0].gold_entry",
            "integer",
        ),
        (
            _line(mentions=[{"surface": "Hogger", "role": "quest_giver"}]),
            "mentions[0].gold_entry",
            "required",
        ),
        (
            _line(
                mentions=[
                    {
                        "surface": "Hogger",
                        "role": "quest_giver",
                        "gold_entry": None,
                        "gold_name": "X",
                    }
                ]
            ),
            "mentions[0].gold_name",
            "without a gold_entry",
        ),
        ({k: v for k, v in _line().items() if k != "mentions"}, "mentions", "required"),
    ],
)
def test_errors_name_line_and_field(doc: dict[str, Any], field: str, reason: str) -> None:
    error = _error(_jsonl(_line(id="OK-1"), doc))
    assert error.message.startswith(f"set.jsonl line 2: {field}: "), error.message
    assert reason in error.message
    assert error.detail["field"] == field


def test_surface_must_not_span_title_and_body() -> None:
    doc = _line(title="Kill Hogger", body="now", mentions=[])
    doc["mentions"] = [{"surface": "Hogger\nnow", "role": "other_context", "gold_entry": None}]
    assert "does not occur" in _error(_jsonl(doc)).message


def test_duplicate_ids_bad_json_and_empty_files() -> None:
    assert "repeats line 1" in _error(_jsonl(_line(), _line())).message
    assert "line 2: not valid JSON" in _error(_jsonl(_line()) + b"\n{nope").message
    assert "line 1: must be a JSON object" in _error(b"[1, 2]").message
    assert "holds no case" in _error(b"\n\n").message
    assert "not valid UTF-8" in _error(_jsonl(_line()) + b"\n\xff").message


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_dataset(tmp_path / "absent.jsonl")
    assert info.value.code == ErrorCode.EVAL_DATASET_INVALID
    assert "absent.jsonl" in info.value.message


def test_the_development_set_is_valid_and_has_the_documented_composition() -> None:
    dataset = load_dataset(DEVSET)
    cases = dataset.cases
    assert len(cases) >= 40
    languages = {case.language for case in cases}
    assert {"en", "de", "fr", "ru", "es"} <= languages
    tags = {tag for case in cases for tag in case.tags}
    required = {"multi", "quest_giver", "localized", "misspelling", "plural", "shared_name"}
    assert required | {"substring", "no_creature", "hostile"} <= tags
    assert any(not case.mentions for case in cases)
    assert any(m.gold_entry is None for case in cases for m in case.mentions)
    for case in cases:
        for mention in case.mentions:
            assert (mention.gold_entry is None) == (mention.gold_name is None), (case.id, mention)
