"""Structures derived from the name index, kept for later processes (the inflection indexes).

A Dagster run is a new process: what it can read back instead of building must read back equal,
and be refused when it was made by other rules.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from resources.llm import heuristic_index
from vba_assets.domain.stage_context import CatalogView
from vba_assets.heuristic.gazetteer import build_gazetteer
from vba_assets.heuristic.inflection import (
    InflectionIndex,
    inflection_document,
    inflection_from_document,
)
from vba_assets.heuristic.name_index import IndexedName, NameIndex, build_name_index

T = TypeVar("T")
CATALOGS = (
    CatalogView(name="creature_name", entity_type="creature", kind="name"),
    CatalogView(name="creature_localized_name", entity_type="creature", kind="localized_name"),
)


class MemoryStore:
    """A :class:`DerivedStore` in memory that counts what it is asked."""

    def __init__(self) -> None:
        self.documents: dict[str, Any] = {}
        self.loads: list[str] = []

    def load(self, name: str, decode: Callable[[Any], T]) -> T | None:
        self.loads.append(name)
        document = self.documents.get(name)
        try:
            return None if document is None else decode(document)
        except (ValueError, KeyError, TypeError):
            return None

    def save(self, name: str, document: Any) -> None:
        self.documents[name] = json.loads(json.dumps(document))  # JSON data only


def _index(store: MemoryStore | None = None) -> NameIndex:
    names = [
        IndexedName(23487, "Wild Wolpertinger", ""),
        IndexedName(23487, "Wilder Wolpertinger", "deDE"),
        IndexedName(1, "Грубобрюх", "ruRU"),
        IndexedName(448, "Hogger", ""),
    ]
    index = build_name_index(names, [], {"creature_template.csv.gz": "a" * 64})
    index.store = store
    return index


def _same(left: InflectionIndex, right: InflectionIndex) -> None:
    assert list(left.stems.items()) == list(right.stems.items())  # keys, pairs and order
    assert left.exact == right.exact


@pytest.mark.parametrize("language", ["de", "ru"])
def test_an_inflection_index_reads_back_equal(language: str) -> None:
    built = build_gazetteer(CATALOGS, _index()).inflection_index(language)
    assert built.stems  # something to compare
    document = json.loads(json.dumps(inflection_document(built)))
    _same(inflection_from_document(document), built)


def test_an_inflection_document_of_other_rules_or_shape_is_refused() -> None:
    document = inflection_document(build_gazetteer(CATALOGS, _index()).inflection_index("de"))
    with pytest.raises(ValueError, match="other rules"):
        inflection_from_document(document | {"rules": "0" * 12})
    first = next(iter(document["stems"]))
    document["stems"][first] = document["stems"][first][:1]  # a name without its catalog
    with pytest.raises(ValueError, match="pairs"):
        inflection_from_document(document)


def test_a_new_process_reads_the_kept_inflection_index_instead_of_building_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore()
    first = build_gazetteer(CATALOGS, _index(store)).inflection_index("de")
    assert len(store.documents) == 1  # kept once built
    (name,) = store.documents
    assert name.startswith("inflection-de-")
    later = build_gazetteer(CATALOGS, _index(store))  # a new process: a new index object
    monkeypatch.setattr(
        "vba_assets.heuristic.gazetteer.inflection_index",
        lambda *_: pytest.fail("built, not read back"),
    )
    _same(later.inflection_index("de"), first)


def test_other_catalogs_are_kept_under_another_name() -> None:
    store = MemoryStore()
    build_gazetteer(CATALOGS, _index(store)).inflection_index("de")
    build_gazetteer(CATALOGS[:1], _index(store)).inflection_index("de")
    assert len(store.documents) == 2


def test_a_kept_document_that_does_not_decode_is_built_again_and_replaced() -> None:
    store = MemoryStore()
    expected = build_gazetteer(CATALOGS, _index()).inflection_index("de")
    build_gazetteer(CATALOGS, _index(store)).inflection_index("de")
    (kept,) = store.documents
    store.documents[kept] = {"rules": "stale"}
    _same(build_gazetteer(CATALOGS, _index(store)).inflection_index("de"), expected)
    assert store.documents[kept]["rules"] != "stale"  # rewritten


def test_a_language_without_inflections_is_not_kept() -> None:
    store = MemoryStore()
    assert not build_gazetteer(CATALOGS, _index(store)).inflection_index("en").stems
    assert store.documents == {}


def test_the_cache_directory_store_keeps_files_whole_and_refuses_edited_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VBA_CACHE_DIR", str(tmp_path))
    store = heuristic_index.CacheDirStore("c" * 64)
    store.save("thing", {"a": [1, "Hogger"]})
    assert store.load("thing", dict) == {"a": [1, "Hogger"]}
    assert store.load("thing", _refuse) is None  # kept, but not what decode accepts
    path = store.path("thing")
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left
    path.write_bytes(path.read_bytes().replace(b"Hogger", b"Hoggar"))
    assert store.load("thing", dict) is None  # the body no longer has the hash its header names
    assert store.load("absent", dict) is None


def _refuse(document: Any) -> Any:
    raise ValueError("not this")


def test_read_back_stems_are_looked_up_like_the_built_ones() -> None:
    built = build_gazetteer(CATALOGS, _index()).inflection_index("de")
    table = inflection_from_document(json.loads(json.dumps(inflection_document(built)))).stems
    assert len(table) == len(built.stems)
    for key, pairs in built.stems.items():
        assert key in table
        assert table.get(key) == pairs == table[key]
    absent = ("nicht", "da")
    assert table.get(absent) is None
    assert table.get(absent, ()) == ()
    assert absent not in table
    with pytest.raises(KeyError):
        table[absent]
