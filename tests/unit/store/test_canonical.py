"""Canonical JSON is RFC 8785, not ``json.dumps(sort_keys=True)``."""

import hashlib
import json
import math
from datetime import UTC, datetime
from enum import Enum, StrEnum

import pytest
from pydantic import BaseModel

from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import canonical_bytes, content_hash, parse_canonical, sha256_hex


def naive_dumps(obj: object) -> bytes:
    """What a hand-rolled 'canonical' JSON usually is; every test shows where it differs."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def test_rfc8785_sample_from_section_3_2_2() -> None:
    source = (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    ).encode()
    value = json.loads(source)
    assert canonical_bytes(value) == expected
    assert naive_dumps(value) != expected


@pytest.mark.parametrize(
    ("number", "canonical", "naive"),
    [
        (1.0, b"1", b"1.0"),
        (-0.0, b"0", b"-0.0"),
        (1e20, b"100000000000000000000", b"1e+20"),  # integral below 1e21: all digits
        (1e21, b"1e+21", b"1e+21"),
        (0.000001, b"0.000001", b"1e-06"),
        (1e-7, b"1e-7", b"1e-07"),
    ],
)
def test_numbers_use_the_ecmascript_form(number: float, canonical: bytes, naive: bytes) -> None:
    assert canonical_bytes(number) == canonical
    assert naive_dumps(number) == naive
    assert parse_canonical(canonical, "number") == number


def test_keys_sort_by_utf16_code_units_not_code_points() -> None:
    # The RFC 8785 section 3.2.3 example: a non-BMP key (a surrogate pair, D83D DE00) sorts before
    # U+FB33, although its code point U+1F600 is larger.
    keys = ["\u20ac", "\r", "\ufb33", "1", "\U0001f600", "\u0080", "\u00f6"]
    value = {key: index for index, key in enumerate(keys)}
    ordered = list(json.loads(canonical_bytes(value)))
    assert ordered == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]
    assert list(json.loads(naive_dumps(value)))[-2:] == ["\ufb33", "\U0001f600"]


def test_strings_are_raw_utf8_with_only_the_mandatory_escapes() -> None:
    value = {"text": 'é \U0001f600 \x7f </tag> \x1f \n \t "q" \\'}
    encoded = canonical_bytes(value)
    assert encoded == '{"text":"é \U0001f600 \x7f </tag> \\u001f \\n \\t \\"q\\" \\\\"}'.encode()
    assert b"\\u00e9" in naive_dumps(value)  # json.dumps escapes non-ASCII by default
    assert json.loads(encoded) == value


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_infinity_are_refused_with_the_pointer(bad: float) -> None:
    with pytest.raises(StoreError) as caught:
        canonical_bytes({"scores": [1.5, bad]})
    assert caught.value.code is ErrorCode.ARTIFACT_UNSERIALIZABLE
    assert "/scores/1" in caught.value.message
    assert "NaN or Infinity" in caught.value.message
    assert naive_dumps({"x": bad})  # json.dumps happily writes invalid JSON


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"n": 2**53}, "outside the exact JSON range"),
        ({1: "one"}, "object key 1 is a int"),
        ({"when": datetime(2025, 1, 1, tzinfo=UTC)}, "type datetime has no JSON form"),
        ({"raw": b"bytes"}, "type bytes"),
        ({"tags": {"a"}}, "type set"),
        ({"s": "\ud800"}, "lone surrogate"),
    ],
)
def test_values_without_a_canonical_form_are_refused(value: object, fragment: str) -> None:
    with pytest.raises(StoreError) as caught:
        canonical_bytes(value)
    assert caught.value.code is ErrorCode.ARTIFACT_UNSERIALIZABLE
    assert fragment in caught.value.message


class Color(StrEnum):
    RED = "red"


class Shape(str, Enum):  # noqa: UP042 - the pre-StrEnum idiom, whose str() is "Shape.CIRCLE"
    CIRCLE = "circle"


class Inner(BaseModel):
    score: float
    color: Color


class Outer(BaseModel):
    when: datetime
    items: tuple[Inner, ...]


def test_pydantic_models_are_dumped_in_json_mode_anywhere_in_the_value() -> None:
    when = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    model = Outer(when=when, items=(Inner(score=2.0, color=Color.RED),))
    expected = model.model_dump(mode="json")
    assert json.loads(canonical_bytes(model)) == expected
    assert canonical_bytes({"wrapped": [model]}) == canonical_bytes({"wrapped": [expected]})
    assert b'"score":2}' in canonical_bytes(model)


def test_enum_members_serialize_as_their_values() -> None:
    assert canonical_bytes({Color.RED: Shape.CIRCLE}) == b'{"red":"circle"}'


def test_content_hash_is_sha256_of_the_canonical_bytes() -> None:
    a = {"b": [1.0, "x"], "a": None}
    b = {"a": None, "b": [1, "x"]}
    assert content_hash(a) == content_hash(b)
    assert content_hash(a) == hashlib.sha256(b'{"a":null,"b":[1,"x"]}').hexdigest()
    assert sha256_hex(b"") == hashlib.sha256(b"").hexdigest()
    assert content_hash({"a": 1}) != content_hash({"a": 2})


@pytest.mark.parametrize(
    "stored",
    [
        b'{"b":1,"a":2}',  # key order
        b'{"a": 1}',  # whitespace
        b'{"a":1.0}',  # number form
        b'{"a":1,"a":1}',  # duplicate key
        b'{"a":"\\u00e9"}',  # needless escape
        b'{"a":NaN}',
        b"\xef\xbb\xbf{}",  # BOM
        b'{"a":1}\n',  # trailing newline
        b"\xff",
    ],
)
def test_parse_canonical_refuses_anything_not_byte_identical(stored: bytes) -> None:
    with pytest.raises(StoreError) as caught:
        parse_canonical(stored, "case X: plan.json")
    assert caught.value.code is ErrorCode.ARTIFACT_CORRUPT
    assert "case X: plan.json" in caught.value.message


def test_parse_canonical_round_trips_what_canonical_bytes_writes() -> None:
    value = {"z": [0.1, -5, 1e-7, 123456789.5], "é": {"nested": [True, None, ""]}}
    assert parse_canonical(canonical_bytes(value), "x") == value
