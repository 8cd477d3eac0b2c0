"""Plain JSON data goes to the C encoder without a converted copy, with the same bytes and errors.

:func:`vba_assets.domain.canonical._plain_bytes` either returns exactly what ``rfc8785`` writes or
declines (None), and it declines exactly for the values the converting walk has to change or
refuse, so every error keeps its code and JSON pointer.
"""

import hashlib
import json
import math
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tests.reference.canonical import plain_canonical_bytes
from tests.unit.store.test_canonical_fast_path import JSON_VALUES, TEXT
from vba_assets.domain import canonical
from vba_assets.domain.canonical import canonical_bytes, parse_canonical, stored_canonical_bytes
from vba_assets.errors import StoreError
from vba_assets.report_files import decodable

WITH_TUPLES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT),
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(tuple),
        st.lists(children, max_size=4),
        st.dictionaries(TEXT, children, max_size=4),
    ),
    max_leaves=30,
)


def expected_plain(value: Any) -> bool:
    """Whether the converting walk would copy ``value`` unchanged and keep the C encoder."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, str):
        return decodable(value)  # no lone surrogate
    if isinstance(value, int):
        return abs(value) <= canonical.MAX_SAFE_INTEGER
    if isinstance(value, float):
        return math.isfinite(value) and not value.is_integer() and abs(value) >= 1e-4
    if isinstance(value, dict):
        keys_narrow = all(key == "" or max(key) < "\ud800" for key in value)
        return keys_narrow and all(expected_plain(item) for item in value.values())
    return all(expected_plain(item) for item in value)


@settings(max_examples=800, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(WITH_TUPLES)
def test_plain_values_are_encoded_directly_and_the_rest_declined(value: Any) -> None:
    direct = canonical._plain_bytes(value)
    assert (direct is not None) is expected_plain(value)
    if direct is not None:
        assert direct == rfc8785.dumps(value) == canonical_bytes(value)


@settings(max_examples=400, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES)
def test_the_plain_reference_writes_the_same_bytes(value: Any) -> None:
    assert canonical_bytes(value) == plain_canonical_bytes(value)


class Level(StrEnum):
    HIGH = "high"


class Score(BaseModel):
    value: float
    level: Level


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, {"b": 2.0}]},  # integral float: printed as an int
        {"a": (1e-5, "x")},  # exponent form
        {"\U0001f600": 1, "\ue000": 2},  # wide keys: UTF-16 order
        {Level.HIGH: Level.HIGH},  # enum key and value
        [Score(value=1.0, level=Level.HIGH), {"nested": Score(value=0.5, level=Level.HIGH)}],
        {"n": True, "m": False, "z": None, "s": "\U0001f600 \x00"},
    ],
)
def test_values_the_walk_must_convert_match_rfc8785(value: Any) -> None:
    assert canonical_bytes(value) == plain_canonical_bytes(value)


def test_a_model_at_the_top_is_dumped_once_and_encoded_directly() -> None:
    model = Score(value=0.25, level=Level.HIGH)
    assert canonical._plain_bytes(model) is None
    assert canonical_bytes(model) == b'{"level":"high","value":0.25}'


@pytest.mark.parametrize(
    ("value", "pointer"),
    [
        ({"a": [1, {"b": math.nan}]}, "/a/1/b"),
        ({"a": ({"b": math.inf},)}, "/a/0/b"),
        ({"big": [2**53]}, "/big/0"),
        ({"k": {1: "one"}}, "/k"),
        ({"when": [datetime(2025, 1, 1, tzinfo=UTC)]}, "/when/0"),
        ({"x~/y": {"s": {"a"}}}, "/x~0~1y/s"),
        ({"s": ["ok", "\ud800"]}, "/s/1"),
        ({"\udfff": 1}, "/"),
        ((("\ud800",),), None),  # a lone surrogate in tuples: the walk copies them into lists
    ],
)
def test_bad_values_raise_the_same_error_as_the_reference(value: Any, pointer: str | None) -> None:
    assert canonical._plain_bytes(value) is None
    with pytest.raises(StoreError) as fast:
        canonical_bytes(value)
    with pytest.raises(StoreError) as plain:
        plain_canonical_bytes(value)
    assert (fast.value.code, fast.value.message) == (plain.value.code, plain.value.message)
    if pointer is not None:
        assert f"value at {pointer} " in fast.value.message


def test_a_cycle_still_raises_recursion_error() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert canonical._plain_bytes(loop) is None
    with pytest.raises(RecursionError):
        canonical_bytes(loop)


@settings(max_examples=600, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(WITH_TUPLES)
def test_canonical_bytes_pass_the_full_check_of_parse_canonical(value: Any) -> None:
    """Why :func:`stored_canonical_bytes` may skip it: the bytes are their value's canonical bytes."""
    try:
        data = canonical_bytes(value)
    except StoreError:
        return  # NaN, infinity or a large integer: nothing is stored
    assert canonical_bytes(json.loads(data, parse_int=canonical._parse_int)) == data


def test_stored_bytes_join_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canonical, "_KNOWN_CANONICAL", set())
    data = stored_canonical_bytes({"b": [1, 2.5], "a": "x"})
    assert data == b'{"a":"x","b":[1,2.5]}'
    assert hashlib.sha256(data).digest() in canonical._KNOWN_CANONICAL
    assert canonical_bytes({"c": 1}) and len(canonical._KNOWN_CANONICAL) == 1  # not plain calls
    assert parse_canonical(data, "x") == {"a": "x", "b": [1, 2.5]}
    with pytest.raises(StoreError):
        parse_canonical(b'{"b":[1,2.5],"a":"x"}', "x")  # other bytes are still checked in full
