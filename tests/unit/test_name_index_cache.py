"""The heuristic's name index kept in the cache directory: read back equal, never trusted blindly."""

import json
from pathlib import Path

import pytest

from resources.llm import heuristic_index
from vba_assets.heuristic.name_index import (
    INDEX_FORMAT,
    IndexedName,
    NameIndex,
    build_name_index,
)
from vba_assets.heuristic.name_index_document import (
    DOCUMENT_LAYOUT,
    index_document,
    index_from_document,
)

SOURCES = {"creature_template.csv.gz": "a" * 64}


def _small() -> NameIndex:
    names = [
        IndexedName(23487, "Wild Wolpertinger", ""),
        IndexedName(23486, "Goldark Snipehunter", ""),
        IndexedName(23487, "Wilder Wolpertinger", "deDE"),
        IndexedName(23487, "Дикий вольпертингер", "ruRU"),
        IndexedName(448, "Hogger", ""),
        IndexedName(448, "Hogger", "frFR"),
    ]
    others = ["Cruel Barb", "Hogger", "Grausamer Widerhaken", "The Heart of Hakkar", ""]
    return build_name_index(names, [23486], SOURCES, bosses=[448], non_creature=others)


def _same(left: NameIndex, right: NameIndex) -> None:
    assert left.sha256 == right.sha256
    assert list(left.by_name.items()) == list(right.by_name.items())  # keys, entries and order
    assert list(left.by_identity.items()) == list(right.by_identity.items())
    assert left.quest_givers == right.quest_givers
    assert left.bosses == right.bosses
    assert left.non_creature == right.non_creature


def _kept() -> NameIndex | None:
    """What a new process would read from the cache directory."""
    return heuristic_index._read_cached(heuristic_index.index_sources())


def test_a_document_reads_back_into_an_equal_index_in_the_same_order() -> None:
    index = _small()
    document = json.loads(json.dumps(index_document(index)))
    _same(index_from_document(document, index.sha256), index)


@pytest.mark.parametrize(
    ("change", "sha256"),
    [
        ({}, "b" * 64),  # built from other sources
        ({"format": INDEX_FORMAT + 1}, None),
        ({"layout": DOCUMENT_LAYOUT - 1}, None),  # the layout before flat rows
        ({"by_name": [[1, "Hogger", "", "hogger"]]}, None),
        ({"by_identity": {"x": ["Hogger", ""]}}, None),
        ({"non_creature": ["cruel barb"]}, None),
    ],
)
def test_a_document_of_other_sources_format_or_shape_is_refused(
    change: dict[str, object], sha256: str | None
) -> None:
    index = _small()
    document = index_document(index) | change
    with pytest.raises((ValueError, KeyError, TypeError)):
        index_from_document(document, sha256 or index.sha256)


@pytest.mark.parametrize(
    ("mapping", "key", "rows"),
    [("by_name", "hogger", [448, "Hogger"]), ("by_identity", "448", ["Hogger", "", "frFR"])],
)
def test_a_row_list_of_the_wrong_length_is_refused_when_it_is_looked_up(
    mapping: str, key: str, rows: list[object]
) -> None:
    index = _small()
    document = index_document(index)
    document[mapping] = document[mapping] | {key: rows}
    read = index_from_document(document, index.sha256)
    assert read.exact("Goldark Snipehunter") == index.exact("Goldark Snipehunter")  # others read
    with pytest.raises(ValueError, match="rows are"):
        read.exact("Hogger") if mapping == "by_name" else read.names_of(448)


def test_a_kept_file_whose_body_differs_from_its_header_hash_is_ignored(
    names: NameIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that parses but was changed after it was written (one name edited) is not used."""
    monkeypatch.setenv("VBA_CACHE_DIR", str(tmp_path))
    heuristic_index._write_cached(names)
    path = heuristic_index.cached_index_path(names.sha256)
    data = path.read_bytes()
    assert b'"Hogger"' in data
    path.write_bytes(data.replace(b'"Hogger"', b'"Hoggar"', 1))
    assert _kept() is None
    path.write_bytes(data)
    assert _kept() is not None


def test_the_packaged_index_is_kept_and_read_back_equal(
    names: NameIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VBA_CACHE_DIR", str(tmp_path))
    heuristic_index._write_cached(names)
    path = heuristic_index.cached_index_path(names.sha256)
    assert path.is_file()
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left
    cached = _kept()
    assert cached is not None
    _same(cached, names)


def test_a_torn_or_foreign_cache_file_is_ignored_and_replaced(
    names: NameIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VBA_CACHE_DIR", str(tmp_path))
    path = heuristic_index.cached_index_path(names.sha256)
    path.parent.mkdir(parents=True)
    whole = json.dumps(index_document(names)).encode("utf-8")
    for bad in (whole[: len(whole) // 2], b"[]", json.dumps({"format": 0}).encode()):
        path.write_bytes(bad)
        assert _kept() is None
    monkeypatch.setattr(heuristic_index, "_index", None)
    _same(heuristic_index.packaged_name_index(), names)  # built again from the packaged data
    replaced = _kept()
    assert replaced is not None
    _same(replaced, names)


def test_a_new_process_reads_the_kept_index_instead_of_building_it(
    names: NameIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VBA_CACHE_DIR", str(tmp_path))
    heuristic_index._write_cached(names)  # what the first process of a machine leaves
    monkeypatch.setattr(heuristic_index, "_index", None)  # a new process
    monkeypatch.setattr(heuristic_index, "_names", lambda: pytest.fail("built, not read back"))
    _same(heuristic_index.packaged_name_index(), names)


def test_only_non_creature_names_are_the_negative_gazetteer() -> None:
    """An item name or quest title in any locale that no creature has is a negative hit (any
    case); a name a creature also has ("Hogger", here also an item's) or no name at all is not."""
    index = _small()
    kept = index_from_document(json.loads(json.dumps(index_document(index))), index.sha256)
    for built in (index, kept):
        assert built.only_non_creature("Cruel Barb")
        assert built.only_non_creature("grausamer widerhaken")
        assert built.only_non_creature("The  Heart of Hakkar")
        assert not built.only_non_creature("Hogger")
        assert not built.only_non_creature("Cruel")
        assert not built.only_non_creature("")
