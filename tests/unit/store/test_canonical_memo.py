"""parse_canonical's memo of proven bytes: it skips the check only for the very bytes it proved,
and is bounded."""

import hashlib
import threading
from collections.abc import Callable, Iterator

import pytest

from vba_assets.domain import canonical
from vba_assets.errors import ErrorCode, StoreError

PROVEN = b'{"a":1,"b":[true,null,"x"]}'
#: Each parses to the same value as PROVEN, so only the bytes tell them apart.
TAMPERED = [
    b'{"a": 1,"b":[true,null,"x"]}',
    b'{"b":[true,null,"x"],"a":1}',
    b'{"a":1.0,"b":[true,null,"x"]}',
    b'{"a":1,"b":[true,null,"\\u0078"]}',
    b'{"a":1,"b":[true,null,"x"]}\n',
    b'{"a":0,"a":1,"b":[true,null,"x"]}',
]


@pytest.fixture(autouse=True)
def empty_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canonical, "_KNOWN_CANONICAL", set())


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """The values parse_canonical re-serializes to compare (the check the memo skips)."""
    seen: list[object] = []
    real: Callable[[object], bytes] = canonical.canonical_bytes

    def counting(obj: object) -> bytes:
        seen.append(obj)
        return real(obj)

    monkeypatch.setattr(canonical, "canonical_bytes", counting)
    yield seen


def test_proven_bytes_are_checked_once(checks: list[object]) -> None:
    first = canonical.parse_canonical(PROVEN, "x")
    again = canonical.parse_canonical(PROVEN, "x")
    assert first == again == {"a": 1, "b": [True, None, "x"]}
    assert len(checks) == 1
    assert {hashlib.sha256(PROVEN).digest()} == canonical._KNOWN_CANONICAL


@pytest.mark.parametrize("stored", TAMPERED)
def test_other_bytes_of_the_same_value_are_still_refused(stored: bytes) -> None:
    value = canonical.parse_canonical(PROVEN, "x")  # proven and remembered
    assert hashlib.sha256(PROVEN).digest() in canonical._KNOWN_CANONICAL
    assert canonical.parse_canonical(PROVEN, "x") == value
    with pytest.raises(StoreError) as caught:
        canonical.parse_canonical(stored, "case X: plan.json")
    assert caught.value.code is ErrorCode.ARTIFACT_CORRUPT
    assert hashlib.sha256(stored).digest() not in canonical._KNOWN_CANONICAL
    with pytest.raises(StoreError):  # refused again: a refusal is never remembered
        canonical.parse_canonical(stored, "case X: plan.json")


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canonical, "_KNOWN_CANONICAL_LIMIT", 5)
    for number in range(23):
        assert canonical.parse_canonical(b'{"n":%d}' % number, "x") == {"n": number}
        assert 1 <= len(canonical._KNOWN_CANONICAL) <= 5
    assert hashlib.sha256(b'{"n":22}').digest() in canonical._KNOWN_CANONICAL


def test_threads_share_the_memo_and_every_answer_stays_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(canonical, "_KNOWN_CANONICAL_LIMIT", 7)
    good = [b'{"n":%d}' % number for number in range(40)]
    bad = [b'{"n": %d}' % number for number in range(40)]
    refused: list[bytes] = []
    wrong: list[bytes] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(5):
            for ok, tampered in zip(good, bad, strict=True):
                if canonical.parse_canonical(ok, "x") != {"n": int(ok[5:-1])}:
                    with lock:
                        wrong.append(ok)
                try:
                    canonical.parse_canonical(tampered, "x")
                except StoreError:
                    with lock:
                        refused.append(tampered)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert len(refused) == 4 * 5 * len(bad)
    assert len(canonical._KNOWN_CANONICAL) <= 7
