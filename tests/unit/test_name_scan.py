"""The fast scans of the name index (:mod:`vba_assets.heuristic.name_scan`) answer
exactly like the plain reference (:mod:`tests.reference.name_index`), and their layout is kept and
read back."""

import gc
import json
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resources.llm import heuristic_index
from tests.reference.name_index import (
    plain_containing,
    plain_containing_catalogs,
    plain_matching_keys,
)
from vba_assets.domain.stage_context import CatalogView
from vba_assets.heuristic.gazetteer import build_gazetteer
from vba_assets.heuristic.name_index import IndexedName, NameIndex, build_name_index
from vba_assets.heuristic.name_scan import (
    KEPT_SHORTLISTS,
    SCAN_LAYOUT_VERSION,
    blobs_for,
    build_scan_layout,
    partition_of,
    scan_layout_document,
    scan_layout_from_document,
)

#: Latin-1 letters, wider letters, digits and separators: every blob and every needle kind.
ALPHABET = st.sampled_from("abeé кд中1 '-")
NAMES = st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=10), min_size=1, max_size=30)
T = TypeVar("T")
CATALOGS = (
    CatalogView(name="creature_name", entity_type="creature", kind="name"),
    CatalogView(name="creature_localized_name", entity_type="creature", kind="localized_name"),
)


def _index(names: list[str]) -> NameIndex:
    entries = [
        IndexedName(number // 2 + 1, name, "" if number % 2 == 0 else "ruRU")
        for number, name in enumerate(names)
    ]
    return build_name_index(entries, [], {"names": "0" * 64})


@settings(max_examples=200, deadline=None)
@given(names=NAMES, needle=st.text(alphabet=ALPHABET, min_size=0, max_size=3))
def test_containing_finds_the_same_identities_in_the_same_order(
    names: list[str], needle: str
) -> None:
    index = _index(names)
    assert list(index.matching_keys(needle)) == plain_matching_keys(index, needle)
    for limit in (0, 1, 3, 50):
        assert index.containing(needle, limit) == plain_containing(index, needle, limit)


@settings(max_examples=100, deadline=None)
@given(names=NAMES, needle=st.text(alphabet=ALPHABET, min_size=1, max_size=3))
def test_containing_catalogs_names_the_same_catalogs(names: list[str], needle: str) -> None:
    gazetteer = build_gazetteer(CATALOGS, _index(names))
    assert gazetteer.containing_catalogs(needle) == plain_containing_catalogs(gazetteer, needle)


def test_a_text_is_searched_only_in_the_blobs_that_can_hold_it() -> None:
    assert [partition_of(key) for key in ("hogger", "défias", "hogger를", "хоггер 2")] == [
        0,
        0,
        1,
        2,
    ]
    assert blobs_for("hog") == (0, 1)  # never in a wide key without ASCII letters
    assert blobs_for("é1") == (0, 1, 2)
    assert blobs_for("хог") == (1, 2)
    assert blobs_for("x를") == (1,)
    layout = build_scan_layout(sorted(["hogger", "hogger를", "хоггер", "défias hogger"]))
    assert list(layout.matching_keys("hogger")) == ["défias hogger", "hogger", "hogger를"]
    assert list(layout.matching_keys("г")) == ["хоггер"]
    assert list(layout.matching_keys("zz")) == []


def test_the_layout_reads_back_equal_and_refuses_another_version_or_shape() -> None:
    layout = build_scan_layout(sorted(["hogger", "hogger를", "хоггер", "défias hogger"]))
    document = json.loads(json.dumps(scan_layout_document(layout)))
    again = scan_layout_from_document(document)
    assert again.blobs == layout.blobs
    assert again.shapes == layout.shapes
    for broken in (
        document | {"version": SCAN_LAYOUT_VERSION + 1},
        document | {"blobs": document["blobs"][:2]},
        document | {"shapes": {"6 6": ["hogger"]}},
    ):
        with pytest.raises(ValueError, match="scan layout"):
            scan_layout_from_document(broken)


def test_shortlists_are_kept_for_a_few_query_shapes_and_stay_the_same() -> None:
    keys = sorted({"hogger", "hoggar", "défias", "хоггер", "wolf", "a" * 12})
    layout = build_scan_layout(keys)
    first = layout.shortlist("hogger", 78.0)
    assert sorted(first) == ["défias", "hoggar", "hogger", "wolf"]  # "хоггер": no ASCII
    assert layout.shortlist("hoggex", 78.0) is first  # the same shape: kept
    for length in range(1, KEPT_SHORTLISTS + 2):
        layout.shortlist("x" * length, 50.0)
    assert len(layout._shortlists) == KEPT_SHORTLISTS
    assert layout.shortlist("hogger", 78.0) == first


def test_a_new_index_reads_the_kept_layout_instead_of_building_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VBA_CACHE_DIR", str(tmp_path))
    first = _index(["Hogger", "Хоггер"])
    first.store = heuristic_index.CacheDirStore(first.sha256)
    assert first.containing("hog") == (1,)
    later = _index(["Hogger", "Хоггер"])
    later.store = heuristic_index.CacheDirStore(later.sha256)
    monkeypatch.setattr(
        "vba_assets.heuristic.name_index.build_scan_layout",
        lambda *_: pytest.fail("built, not read back"),
    )
    assert later.containing("хог") == (1,)


def test_reading_a_kept_file_freezes_what_it_read() -> None:
    try:
        gc.unfreeze()
        assert gc.get_freeze_count() == 0
        with heuristic_index._collector_paused():
            kept = [[number] for number in range(100)]
        assert gc.get_freeze_count() >= len(kept)
        assert gc.isenabled()
    finally:
        gc.unfreeze()
