"""How a built :class:`~vba_assets.heuristic.name_index.NameIndex` is kept as JSON and
read back lazily (pure logic; ``resources/llm/heuristic_index.py`` keeps the file).

Reading a kept index must be fast: every Dagster run is a new process. The document holds the
index's two mappings as JSON objects of flat rows, so the JSON parser builds them, and a name
becomes an :class:`~vba_assets.heuristic.name_index.IndexedName` only when it is first
looked up (:class:`LazyEntries`).
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from vba_assets.heuristic.name_index import INDEX_FORMAT, IndexedName, NameIndex

#: The layout of :func:`index_document` (how a built index is kept, not what it holds: not part
#: of :attr:`NameIndex.sha256` or the label).
DOCUMENT_LAYOUT = 2
K = TypeVar("K")


def index_document(index: NameIndex) -> dict[str, Any]:
    """``index`` as JSON data that :func:`index_from_document` reads back into an equal index.

    Both mappings are kept as JSON objects of flat rows, in index order: ``by_name`` maps a
    normalized name to ``[identity, name, locale, identity, name, locale, ...]`` and
    ``by_identity`` an identity to ``[name, locale, name, locale, ...]``. The JSON parser builds
    them with one list per key (not one per name), and reading needs no Python loop over the
    names.
    """
    return {
        "format": INDEX_FORMAT,
        "layout": DOCUMENT_LAYOUT,
        "sha256": index.sha256,
        "by_name": {
            key: [field for e in entries for field in (e.identity, e.name, e.locale)]
            for key, entries in index.by_name.items()
        },
        "by_identity": {
            str(identity): [field for e in entries for field in (e.name, e.locale)]
            for identity, entries in index.by_identity.items()
        },
        "quest_givers": sorted(index.quest_givers),
        "bosses": sorted(index.bosses),
        "non_creature": index.non_creature,
    }


def index_from_document(document: Mapping[str, Any], sha256: str) -> NameIndex:
    """The index :func:`index_document` wrote, or ``ValueError`` when ``document`` is not one of
    :data:`INDEX_FORMAT` and :data:`DOCUMENT_LAYOUT` for the sources hashed as ``sha256``.

    The rows become :class:`IndexedName` tuples when a name or identity is first looked up
    (:class:`LazyEntries`), so a process that reads a kept index pays for the names it uses, not
    for all two hundred thousand; a row list of the wrong length raises ``ValueError`` then. The
    values are not type-checked one by one: the caller checks the document's integrity
    (``resources/llm/heuristic_index.py`` keeps the sha256 of what it wrote)."""
    if (
        document.get("format") != INDEX_FORMAT
        or document.get("layout") != DOCUMENT_LAYOUT
        or document.get("sha256") != sha256
    ):
        raise ValueError("not a name index of this format and layout for these sources")
    by_name, by_identity = document["by_name"], document["by_identity"]
    if not isinstance(by_name, dict) or not isinstance(by_identity, dict):
        raise ValueError("a name index document holds two objects of rows")
    return NameIndex(
        sha256=sha256,
        by_name=LazyEntries(by_name, _name_rows),
        by_identity=LazyEntries({int(k): v for k, v in by_identity.items()}, _identity_rows),
        quest_givers=frozenset(int(i) for i in document["quest_givers"]),
        bosses=frozenset(int(i) for i in document["bosses"]),
        non_creature=_text(document.get("non_creature", "")),
    )


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("a name index document holds its non-creature names as one string")
    return value


class LazyEntries(Mapping[K, tuple[IndexedName, ...]]):
    """A read-only mapping of plain JSON rows whose values become :class:`IndexedName` tuples
    on first access (then kept; a race of two threads builds equal tuples twice, harmlessly)."""

    __slots__ = ("_built", "_make", "_rows")

    def __init__(
        self,
        rows: Mapping[K, Sequence[Any]],
        make: Callable[[K, Sequence[Any]], tuple[IndexedName, ...]],
    ) -> None:
        self._rows = rows
        self._make = make
        self._built: dict[K, tuple[IndexedName, ...]] = {}

    def __getitem__(self, key: K) -> tuple[IndexedName, ...]:
        found = self._built.get(key)
        if found is None:
            found = self._built[key] = self._make(key, self._rows[key])
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __iter__(self) -> Iterator[K]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


#: How :class:`IndexedName` builds itself (``NamedTuple._make`` without its length check: the
#: callers below slice exact triples and pairs).
_new_entry = tuple.__new__


def _name_rows(_key: str, rows: Sequence[Any]) -> tuple[IndexedName, ...]:
    if not rows or len(rows) % 3:
        raise ValueError(f"a name's rows are identity, name, locale triples, not {rows!r}")
    return tuple(
        [
            _new_entry(IndexedName, (rows[at], rows[at + 1], rows[at + 2]))
            for at in range(0, len(rows), 3)
        ]
    )


def _identity_rows(identity: int, rows: Sequence[Any]) -> tuple[IndexedName, ...]:
    if not rows or len(rows) % 2:
        raise ValueError(f"identity {identity}'s rows are name, locale pairs, not {rows!r}")
    return tuple(
        [
            _new_entry(IndexedName, (identity, rows[at], rows[at + 1]))
            for at in range(0, len(rows), 2)
        ]
    )
