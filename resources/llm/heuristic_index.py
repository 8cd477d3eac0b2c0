"""The heuristic provider's name index, read from the packaged demo world data (IO).

:func:`packaged_name_index` reads ``creature_template`` (primary names), every locale of
``creature_template_locale`` and the two quest relation tables from the gzip CSVs in
``vba_assets/worlddata/data/`` (each file checked against the sha256 and row count of its
manifest entry) and builds the :class:`~vba_assets.domain.heuristics.name_index.NameIndex` once
per process (about 3-4 s, about 100 MB), or reads it back from the cache directory where an
earlier process kept it. Its hash binds the manifest's sha256 of those four files and the index
format, so the label the heuristic puts in every reply (``names-1-<sha12>``) names exactly these
contents.
The world database is never opened for it.
"""

import contextlib
import csv
import gzip
import hashlib
import io
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from vba_assets.domain.heuristics.name_index import (
    INDEX_FORMAT,
    PRIMARY,
    IndexedName,
    NameIndex,
    build_name_index,
    index_document,
    index_from_document,
    index_sha256,
)
from vba_assets.domain.speed import fast_paths_enabled
from vba_assets.errors import ErrorCode, InputError
from vba_assets.worlddata.build import cache_dir, load_manifest, packaged_data_dir

#: The packaged tables the index is built from.
INDEX_TABLES = (
    "creature_template",
    "creature_template_locale",
    "creature_queststarter",
    "creature_questender",
)

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


def _names() -> list[IndexedName]:
    names = [
        IndexedName(int(row["entry"]), row["name"], PRIMARY) for row in _rows("creature_template")
    ]
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


def index_sources() -> dict[str, str]:
    """``file -> sha256`` of the packaged files the index is built from (from the manifest)."""
    tables = load_manifest()["tables"]
    return {tables[name]["file"]: tables[name]["sha256"] for name in INDEX_TABLES}


def packaged_name_index() -> NameIndex:
    """The index of the packaged demo world data, built on first use (then shared).

    A built index is kept as JSON in the cache directory (``$VBA_CACHE_DIR`` or
    ``~/.cache/vba-assets``, beside the demo world DB), named by the index's hash, so a later
    process reads it in about a second instead of building it again (every Dagster run is a new
    process). A cache file that cannot be read is ignored and replaced; one that cannot be written
    is skipped. ``VBA_FAST_PATHS=off`` builds it from the CSVs as before the cache existed.
    """
    global _index
    with _lock:
        if _index is None:
            sources = index_sources()
            _index = _read_cached(sources) if fast_paths_enabled() else None
            if _index is None:
                _index = build_name_index(_names(), _quest_givers(), sources)
                _write_cached(_index)
        return _index


def cached_index_path(sha256: str) -> Path:
    """Where the built index of the sources hashed as ``sha256`` is kept."""
    return cache_dir() / "heuristic" / f"names-{INDEX_FORMAT}-{sha256[:16]}.json"


def _read_cached(sources: dict[str, str]) -> NameIndex | None:
    sha256 = index_sha256(sources)
    try:
        document = json.loads(cached_index_path(sha256).read_bytes())
        return index_from_document(document, sha256)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # absent, torn or of another format: built again and rewritten


def _write_cached(index: NameIndex) -> None:
    path = cached_index_path(index.sha256)
    data = json.dumps(index_document(index), ensure_ascii=False, separators=(",", ":"))
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(data.encode("utf-8"))
        os.replace(temp, path)  # readers see the old file or the whole new one
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()


def packaged_index_label() -> str:
    """The label of :func:`packaged_name_index` without building it (from the manifest)."""
    return f"names-{INDEX_FORMAT}-{index_sha256(index_sources())[:12]}"
