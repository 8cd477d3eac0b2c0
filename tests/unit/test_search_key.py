"""The search key the SQLite contains search compares (vba_assets/domain/catalog/search_key.py).

Whether it agrees with MariaDB's utf8mb4_unicode_ci is measured on a real server in
tests/integration/test_world_db_mariadb.py; these tests pin its own rules.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vba_assets.domain.catalog.search_key import OWN_LETTERS, search_key, sql_search_key
from vba_assets.evaluation.search_key_parity import (
    CATALOG_BLOCKS,
    letter_pairs,
    like_statement,
    measure,
)
from vba_assets.worlddata import build


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Wild Wolpertinger", "wild wolpertinger"),
        ("Étalon blanc", "etalon blanc"),
        ("Goldark Spatzenjäger", "goldark spatzenjager"),
        ("Archedor Chassebécasse", "archedor chassebecasse"),
        ("Niña Señor", "nina senor"),
        ("ДИКИЙ ЗАЙЦЕЛОП", "дикий зайцелоп"),  # й keeps its breve: a letter of its own
        ("Ёлка", "елка"),
        ("Straßenräuber", "straßenrauber"),  # ß is not expanded
        ("İstanbul", "istanbul"),
        ("노스렌드 설인", "노스렌드 설인"),  # Hangul syllables unchanged
        ("葛达克·猎枪", "葛达克·猎枪"),
        ("郞", "郞"),  # a CJK compatibility ideograph is not its unified twin
        ("ガ", "カ"),
        ("e\u0301talon", "e\u0301talon"),  # a mark written apart stays
        ("Zero\u200bWidth", "zero\u200bwidth"),
        ("100% Proof_Brewer \\", "100% proof_brewer \\"),
    ],
)
def test_keys(text: str, key: str) -> None:
    assert search_key(text) == key


def test_own_letters_keep_their_marks_in_both_cases() -> None:
    assert len(OWN_LETTERS) == 67
    for letter in "ЙйЇїЎўЃѓЌќ":
        assert letter in OWN_LETTERS
        assert search_key(letter) == letter.lower()


def test_the_sql_function_passes_null_and_numbers() -> None:
    assert sql_search_key(None) is None
    assert sql_search_key(3) == 3
    assert sql_search_key("ÉTALON") == "etalon"


@settings(max_examples=300, derandomize=True, database=None)
@given(st.text(max_size=30))
def test_a_key_is_its_own_key_and_never_longer(text: str) -> None:
    key = search_key(text)
    assert search_key(key) == key
    assert len(key) <= len(text) + text.count("İ")
    # ASCII letters are only lower-cased; %, _ and \ stay, so a key escapes like its text
    assert all(c.lower() in key for c in text if c.isascii() and c.isalnum())
    assert key.count("%") == text.count("%") and key.count("_") == text.count("_")


def test_the_demo_db_fingerprint_names_the_unicode_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = build.data_fingerprint()
    monkeypatch.setattr(build, "UNICODE_VERSION", "0.0.0")
    build._packaged_fingerprint.cache_clear()
    assert build.data_fingerprint() != before
    monkeypatch.undo()
    build._packaged_fingerprint.cache_clear()
    assert build.data_fingerprint() == before


def test_the_demo_db_fingerprint_names_the_key_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trigram indexes hold keys: a changed key rule must build a new demo DB file."""
    before = build.data_fingerprint()
    build._packaged_fingerprint.cache_clear()
    monkeypatch.setattr(build, "_search_key_code", lambda: "another rule")
    assert build.data_fingerprint() != before
    monkeypatch.undo()
    build._packaged_fingerprint.cache_clear()
    assert build.data_fingerprint() == before


def test_the_parity_measurement_reports_exactly_the_disagreements() -> None:
    """search_key_parity against stand-in collations (the real server: the MariaDB tests)."""
    pairs = letter_pairs(CATALOG_BLOCKS)
    assert ("É", "E") in pairs and ("Й", "И") in pairs and ("Д", "д") in pairs
    agreeing = measure(pairs, lambda batch: [search_key(a) == search_key(b) for a, b in batch])
    assert agreeing == []
    # a collation that folds nothing disagrees exactly where the key folds
    strict = measure(pairs, lambda batch: [a == b for a, b in batch])
    assert len(strict) == sum(search_key(a) == search_key(b) for a, b in pairs) > 1000
    assert all(d["key_equal"] and not d["collation_equal"] for d in strict)
    assert like_statement(2, "utf8mb4_unicode_ci").count("LIKE") == 2
