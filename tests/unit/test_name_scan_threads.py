"""The name index's shortlist memo under threads: ``vba eval --jobs N`` runs cases in N threads
that share one index, and its eviction raced (two threads evicting the same oldest entry raised
``KeyError``, which stopped a real evaluation run). With a tiny switch interval the old code fails
this test on every run measured; the memo now evicts under a lock."""

import sys
import threading
from collections.abc import Iterator

import pytest

from vba_assets.heuristic.name_scan import KEPT_SHORTLISTS, build_scan_layout


@pytest.fixture
def frequent_switches() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@pytest.mark.usefixtures("frequent_switches")
def test_shortlists_from_many_threads_never_race() -> None:
    layout = build_scan_layout(sorted({f"{'x' * (i % 40 + 1)} name{i}" for i in range(3000)}))
    single = {length: layout.shortlist("q" * length, 60.0) for length in (3, 17, 44)}
    errors: list[str] = []
    start = threading.Barrier(8)

    def work(seed: int) -> None:
        start.wait()
        try:
            for n in range(400):  # far more query shapes than the memo keeps
                layout.shortlist("q" * ((seed * 7 + n) % 60 + 1), 60.0 + n % 5)
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(layout._shortlists) <= KEPT_SHORTLISTS
    # the memo still answers as a fresh computation does
    assert {n: layout.shortlist("q" * n, 60.0) for n in single} == single
