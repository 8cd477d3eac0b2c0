"""Identity digits by one rule (issue 30): ASCII only, leading zeros normalised, 1..2^31-1."""

import pytest

from vba_assets.domain.catalog.identity_digits import (
    MAX_IDENTITY,
    DigitRun,
    digit_runs,
    holds_identity,
    parse_identity,
    refusal,
)
from vba_assets.domain.resolution.links import slugs


@pytest.mark.parametrize(
    ("digits", "identity"),
    [
        ("23487", 23487),
        ("000023487", 23487),
        ("0000000000000000000023487", 23487),
        ("1", 1),
        (str(MAX_IDENTITY), MAX_IDENTITY),
        (str(MAX_IDENTITY + 1), None),
        ("99999999999", None),
        ("0", None),
        ("000", None),
        ("", None),
        ("２３４８７", None),  # full-width
        ("٢٣٤٨٧", None),  # Arabic-Indic
        ("۲۳۴۸۷", None),  # extended Arabic-Indic
        ("२३४८७", None),  # Devanagari
        ("2348７", None),  # one full-width digit is enough
        ("23487a", None),
        ("²³", None),
        ("-23487", None),
        (" 23487", None),
    ],
)
def test_parse_identity_reads_ascii_digits_only(digits: str, identity: int | None) -> None:
    assert parse_identity(digits) == identity


def test_a_digit_run_is_maximal_in_any_script_and_read_as_a_whole() -> None:
    text = "npc=000023487 and ٢23487 and ２３４８７, id 3432"
    assert list(digit_runs(text)) == [
        DigitRun(4, 13, 23487),
        DigitRun(18, 24, None),  # a mixed run is not read in part
        DigitRun(29, 34, None),
        DigitRun(39, 43, 3432),
    ]
    assert holds_identity(text, 23487) and holds_identity(text, 3432)
    assert not holds_identity("npc=２３４８７", 23487)
    assert not holds_identity("npc=٢٣٤٨٧", 23487)
    assert not holds_identity("npc=234870", 23487)  # a whole number, not a part of one
    assert holds_identity("npc=000023487/wild-wolpertinger", 23487)


def test_refusal_says_why() -> None:
    assert "ASCII" in refusal("２３４８７")
    assert "between 1 and" in refusal("0")
    assert "not a run of digits" in refusal("12a")


def test_the_slug_of_a_zero_padded_link_is_read_with_the_same_rule() -> None:
    assert slugs("https://www.wowhead.com/npc=000023487/wild-wolpertinger", 23487) == [
        "wild wolpertinger"
    ]
    assert slugs("https://www.wowhead.com/npc=２３４８７/wild-wolpertinger", 23487) == []
