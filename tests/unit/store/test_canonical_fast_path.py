"""The C-encoder fast path of canonical JSON is byte-identical to the ``rfc8785`` package.

Proven two ways: on random JSON values (hypothesis: every control character, non-BMP and
private-use characters in strings and keys, floats of every magnitude, deep nesting) and on every
JSON artifact of real case packages (the legacy fixtures and a fresh heuristic run). Both paths of
:func:`canonical_bytes` are exercised: a value with a float or a wide key takes ``rfc8785``.
"""

import json
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.pipeline.support import LLM, imported, project_config
from tests.reference.canonical import plain_canonical_bytes
from vba_assets.domain import canonical
from vba_assets.domain.canonical import canonical_bytes
from vba_assets.pipeline.trial import run_trial

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

# Every code point class that matters: controls, quotes and backslashes, the surrogate range's
# neighbours, private use (U+E000-U+F8FF sorts after non-BMP in UTF-16), non-BMP (emoji, CJK ext.).
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0x7F),
        st.sampled_from(['"', "\\", "/", "\u2028", "\u2029", "\ud7ff", "\ue000", "\uffff", "é"]),
        st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=12,
)
SAFE_INT = st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
SCALARS = st.one_of(st.none(), st.booleans(), SAFE_INT, TEXT)
JSON_VALUES = st.recursive(
    st.one_of(SCALARS, FLOATS),
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(TEXT, children, max_size=5)
    ),
    max_leaves=40,
)
PLAIN_VALUES = st.recursive(  # no float: the C encoder serves these unless a key is wide
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(TEXT, children, max_size=5)
    ),
    max_leaves=40,
)


@settings(max_examples=600, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES)
def test_random_values_serialize_exactly_as_rfc8785(value: Any) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@settings(max_examples=600, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(PLAIN_VALUES)
def test_values_without_floats_take_the_fast_path_and_match(value: Any) -> None:
    plain = [True]
    canonical._convert(value, None, plain)
    has_wide_key = max(_keys(value), default="") >= "\ud800"
    assert plain[0] is not has_wide_key  # the fast path is taken exactly when it is safe
    assert canonical_bytes(value) == rfc8785.dumps(value)


@settings(max_examples=600, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FLOATS, min_size=1, max_size=6))
def test_floats_take_the_fast_path_exactly_when_python_prints_them_as_rfc8785(
    numbers: list[float],
) -> None:
    plain = [True]
    canonical._convert(numbers, None, plain)
    printable = all(
        abs(n) <= canonical.MAX_SAFE_INTEGER if n.is_integer() else abs(n) >= 1e-4 for n in numbers
    )
    assert plain[0] is printable
    assert canonical_bytes(numbers) == rfc8785.dumps(numbers)


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [max(k) if k else "" for k in value] + [k for v in value.values() for k in _keys(v)]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


@pytest.mark.parametrize(
    "value",
    [
        {"\U0001f600": 1, "\ue000": 2},  # UTF-16 puts the emoji (D83D...) before U+E000
        {"a\x00": "\x00\x1f\x7f", "a": "\b\f\n\r\t"},
        {"n": [1e21, 1e-7, 5e-324, 1.7976931348623157e308, -0.0, 0.1 + 0.2, 2.0**53]},
        [
            1e-4,
            9.999999999999999e-05,
            -1e-4,
            2.0**53 - 1,
            -(2.0**53) + 1,
            2.0**52 + 0.5,
            1e15 + 0.25,
        ],
        [0.1, 123456.789, 1.0, -0.0, 0.0, 100.0, 0.5, 1e20, 1e16, 4503599627370495.5],
        {"score": 0.9523809523809523, "ratio": 84.21052631578948, "n": 3.0},
        ["\u2028\u2029", "😀", "\\u0041"],
    ],
)
def test_adversarial_values(value: Any) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


def _artifacts(root: Path) -> list[Path]:
    return sorted(
        p
        for p in root.rglob("*.json")
        if "report" not in p.relative_to(root).parts[:2] and not p.name.startswith(".")
    )


def test_every_artifact_of_real_packages_round_trips_on_both_paths(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    run_trial(
        workspace,
        "BUG-000020",
        "0001",
        project_config(tmp_path / "ws"),
        LLM,
        stop_after="interpretation",
        max_dispatches=6,
    )
    files = _artifacts(package.root) + _artifacts(FIXTURES / "legacy_v2")
    lines = [
        line
        for root in (package.root, FIXTURES / "legacy_v2")
        for events in root.rglob("events.jsonl")
        for line in events.read_bytes().splitlines()
    ]
    documents = [path.read_bytes() for path in files] + lines
    assert len(files) > 40 and len(lines) > 20
    for data in documents:
        value = json.loads(data)
        assert canonical_bytes(value) == data == plain_canonical_bytes(value)
