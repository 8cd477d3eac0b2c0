"""The heuristic provider's name index, read from the packaged demo world data (IO).

:func:`packaged_name_index` reads ``creature_template`` (primary names), every locale of
``creature_template_locale``, the two quest relation tables and the names of items, gameobjects
and quests (every locale: the negative gazetteer) from the gzip CSVs in
``vba_assets/worlddata/data/`` (each file checked against the sha256 and row count of its
manifest entry) and builds the :class:`~vba_assets.heuristic.name_index.NameIndex` once
per process (about 3-4 s, about 100 MB), or reads it back from the cache directory where an
earlier process kept it (about 0.5 s: the JSON parser builds the index's mappings, and names
become tuples only when looked up, see
:mod:`~vba_assets.heuristic.name_index_document`). Structures derived from the index
(the inflection indexes, the keys laid out for the contains and misspelling scans) are kept
there too (:class:`CacheDirStore`). Its hash binds the manifest's sha256 of those ten files and
the index format, so the label the heuristic puts in every reply (``names-3-<sha12>``) names
exactly these contents.
The world database is never opened for it.
"""

import contextlib
import csv
import gc
import gzip
import hashlib
import io
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from vba_assets.errors import ErrorCode, InputError
from vba_assets.heuristic.gazetteer import is_current_kept_name
from vba_assets.heuristic.name_index import (
    INDEX_FORMAT,
    PRIMARY,
    IndexedName,
    NameIndex,
    build_name_index,
    index_sha256,
)
from vba_assets.heuristic.name_index_document import (
    DOCUMENT_LAYOUT,
    index_document,
    index_from_document,
)
from vba_assets.worlddata.build import cache_dir
from vba_assets.worlddata.packaged import load_manifest, packaged_data_dir

#: The packaged tables the index is built from.
INDEX_TABLES = (
    "creature_template",
    "creature_template_locale",
    "creature_queststarter",
    "creature_questender",
    *("item_template", "item_template_locale", "gameobject_template"),
    *("gameobject_template_locale", "quest_template", "quest_template_locale"),
)
#: The name column of each packaged table of items, gameobjects and quests (every locale): the
#: names a creature search is not for (:meth:`NameIndex.only_non_creature`).
NON_CREATURE_NAMES = (
    ("item_template", "name"),
    ("item_template_locale", "Name"),
    ("gameobject_template", "name"),
    ("gameobject_template_locale", "name"),
    ("quest_template", "LogTitle"),
    ("quest_template_locale", "Title"),
)

#: ``creature_template.rank`` of a boss (0 normal, 1 elite, 2 rare elite, 3 boss, 4 rare).
BOSS_RANK = "3"

T = TypeVar("T")
#: Between a derived structure's kept name and the index hash in its file name.
_DERIVED_OF = "-of-"
#: Between a file's name and its writer's pid and thread in the name of the file being written.
_TEMP_MARK = ".tmp-"
_lock = threading.Lock()
_index: NameIndex | None = None


def _rows(table: str) -> Iterator[dict[str, str]]:
    """The rows of a packaged table as text, after checking the file against the manifest."""
    described = load_manifest()["tables"][table]
    source = packaged_data_dir() / described["file"]
    payload = source.read_bytes()
    if hashlib.sha256(payload).hexdigest() != described["sha256"]:
        raise InputError(
            ErrorCode.WORLD_DATA_INVALID,
            f"{described['file']}: sha256 differs from the manifest; the heuristic's name index "
            "is built only from the pinned packaged data",
            file=described["file"],
        )
    text = gzip.decompress(payload).decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header = next(reader)
    count = 0
    for fields in reader:
        count += 1
        yield dict(zip(header, fields, strict=True))
    if count != described["rows"]:
        raise InputError(
            ErrorCode.WORLD_DATA_INVALID,
            f"{described['file']}: {count} rows, the manifest says {described['rows']}",
            file=described["file"],
        )


def _names(templates: list[dict[str, str]]) -> list[IndexedName]:
    names = [IndexedName(int(row["entry"]), row["name"], PRIMARY) for row in templates]
    names += [
        IndexedName(int(row["entry"]), row["Name"], row["locale"])
        for row in _rows("creature_template_locale")
        if row["Name"]
    ]
    return names


def _quest_givers() -> set[int]:
    return {
        int(row["id"])
        for table in ("creature_queststarter", "creature_questender")
        for row in _rows(table)
    }


def _non_creature_names() -> Iterator[str]:
    for table, column in NON_CREATURE_NAMES:
        for row in _rows(table):
            if row[column]:
                yield row[column]


def _bosses(templates: list[dict[str, str]]) -> set[int]:
    return {int(row["entry"]) for row in templates if row["rank"] == BOSS_RANK}


def index_sources() -> dict[str, str]:
    """``file -> sha256`` of the packaged files the index is built from (from the manifest)."""
    tables = load_manifest()["tables"]
    return {tables[name]["file"]: tables[name]["sha256"] for name in INDEX_TABLES}


def packaged_name_index() -> NameIndex:
    """The index of the packaged demo world data, built on first use (then shared).

    A built index is kept as JSON in the cache directory (``$VBA_CACHE_DIR`` or
    ``~/.cache/vba-assets``, beside the demo world DB), named by the index's hash, so a later
    process reads it in about half a second instead of building it again (every Dagster run is a new
    process). A cache file that cannot be read is ignored and replaced; one that cannot be written
    is skipped.
    """
    global _index
    with _lock:
        if _index is None:
            sources = index_sources()
            _index = _read_cached(sources)
            if _index is None:
                templates = list(_rows("creature_template"))  # read and checked once
                _index = build_name_index(
                    _names(templates),
                    _quest_givers(),
                    sources,
                    _bosses(templates),
                    _non_creature_names(),
                )
                _write_cached(_index)
            _index.store = CacheDirStore(_index.sha256)  # derived structures kept beside it
        return _index


def cached_index_path(sha256: str) -> Path:
    """Where the built index of the sources hashed as ``sha256`` is kept: a header line (JSON:
    the layout and the sha256 of the rest) and the index document (:func:`index_document`)."""
    name = f"names-{INDEX_FORMAT}-{sha256[:16]}.layout{DOCUMENT_LAYOUT}.json"
    return cache_dir() / "heuristic" / name


def is_current_cache_file(path: Path) -> bool:
    """Whether a process of this code reads ``path`` (a file of the heuristic cache directory)
    again: the built index of the packaged data (:func:`cached_index_path`), or a structure
    derived from it kept under a name this code keeps it under (:class:`CacheDirStore`)."""
    sha256 = index_sha256(index_sources())
    if path.name == cached_index_path(sha256).name:
        return True
    name, of, rest = path.name.rpartition(_DERIVED_OF)
    return bool(of) and rest == f"{sha256[:16]}.json" and is_current_kept_name(name)


def temp_writer_pid(name: str) -> int | None:
    """The pid of the process writing the temp file named ``name`` (see :func:`_keep`), or None
    when ``name`` is no temp file of this cache."""
    if not name.startswith("."):
        return None
    _, mark, writer = name.rpartition(_TEMP_MARK)
    pid, dash, thread = writer.partition("-")
    return int(pid) if mark and dash and pid.isdigit() and thread.isdigit() else None


def _read_cached(sources: dict[str, str]) -> NameIndex | None:
    sha256 = index_sha256(sources)
    document = _read_kept(cached_index_path(sha256))
    try:
        return None if document is None else index_from_document(document, sha256)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # of another format: built again and rewritten


def _write_cached(index: NameIndex) -> None:
    _keep(cached_index_path(index.sha256), index_document(index))


class CacheDirStore:
    """Structures derived from the index of ``sha256``, kept as files beside it (a
    :class:`~vba_assets.heuristic.name_index.DerivedStore`)."""

    def __init__(self, sha256: str) -> None:
        self.sha256 = sha256

    def path(self, name: str) -> Path:
        """The file of the structure kept as ``name``."""
        return cache_dir() / "heuristic" / f"{name}{_DERIVED_OF}{self.sha256[:16]}.json"

    def load(self, name: str, decode: Callable[[Any], T]) -> T | None:
        with _collector_paused():  # decoding builds as many containers as the parse
            document = _read_kept(self.path(name))
            try:
                return None if document is None else decode(document)
            except (ValueError, KeyError, TypeError):
                return None

    def save(self, name: str, document: Any) -> None:
        _keep(self.path(name), document)


def _read_kept(path: Path) -> Any | None:
    """The JSON document kept at ``path``, or None when it is absent, unreadable, torn or was
    changed after it was written (its header holds the layout and the sha256 of the rest)."""
    try:
        data = path.read_bytes()
        header, _, body = data.partition(b"\n")
        if json.loads(header) != _header(body):
            return None
        with _collector_paused():  # the parse makes many lists that live as long as the process
            return json.loads(body)
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a block: it would scan the parse's young lists over
    and over while they are built (about half of the read time), though none can be garbage.

    What the block read lives as long as the process, so it is then frozen (``gc.freeze``: every
    object tracked so far moves to the permanent generation): else each later collection of the
    old generation scans its hundreds of thousands of lists again (about 0.15 s each, a few per
    ``vba eval``), and the first young collections move them up one generation at a time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _header(body: bytes) -> dict[str, object]:
    return {"layout": DOCUMENT_LAYOUT, "body_sha256": hashlib.sha256(body).hexdigest()}


def _keep(path: Path, document: Any) -> None:
    """Write ``document`` to ``path`` whole or not at all (a header line, then the body); a
    failure to write is not an error (the next process builds again)."""
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    header = json.dumps(_header(body)).encode("utf-8")
    temp = path.with_name(f".{path.name}{_TEMP_MARK}{os.getpid()}-{threading.get_ident()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(header + b"\n" + body)
        os.replace(temp, path)  # readers see the old file or the whole new one
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()


def packaged_index_label() -> str:
    """The label of :func:`packaged_name_index` without building it (from the manifest)."""
    return f"names-{INDEX_FORMAT}-{index_sha256(index_sources())[:12]}"
