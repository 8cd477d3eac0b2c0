"""The FTS5 trigram index of the embedded SQLite demo DB, used only to pre-filter contains searches.

The demo DB builder (:mod:`vba_assets.worlddata.build`) creates, for each name column in
``TRIGRAM_INDEXED_COLUMNS``, an FTS5 table ``vba_trigram__<table>__<column>`` with
``tokenize='trigram'`` holding the search key of every non-NULL name (``vba_search_key(name)``,
:mod:`vba_assets.domain.catalog.search_key`) and the row's primary key. SQLite answers
``<index>.<column> LIKE :index_pattern`` from that index (ARCHITECTURE 14: 0.7 ms against 35 ms for a
scan of 240k names). The indexed contains search (:func:`resources.world_db.query.indexed_search_statement`)
is the contains search with ONE more conjunct::

    AND <primary key> IN (SELECT <primary key> FROM <index> WHERE <index>.<column> LIKE :index_pattern)

where ``:index_pattern`` is :func:`index_pattern` of the term's search key.

**Why the rows are exactly those of the scan.** The filter (``name IS NOT NULL AND
vba_search_key(name) LIKE :pattern ESCAPE '\\'``, the pattern made of the term's key), the ORDER BY
and the LIMIT are unchanged, so the extra conjunct can only remove rows. It removes none, because
every row the filter accepts is among the index's candidates:

* the index holds the search key of every non-NULL name of the table with its primary key: both
  are written from the same rows in the same transaction, by the same key function, and the file is
  published read-only (only a file whose ``application_id``, ``user_version`` and build-info
  table say it was built that way, with this key's code and Unicode version, is trusted:
  :func:`discover`);
* so an accepted row's indexed key contains the term's key literally (up to ASCII case, which
  ``LIKE`` folds); :func:`index_pattern` keeps only runs of that key between ``%`` and ``_`` that are
  at least :data:`MIN_INDEXED_RUN` characters long, in order, joined by ``%``: any key that contains
  the term's key matches it (a ``%`` stands for what was dropped, an escaped ``%``/``_`` of the
  literal pattern is one character a ``%`` also covers), so the pre-filter is a superset;
* FTS5 turns each run of 3 or more characters into the phrase of its trigrams and keeps a row when
  every phrase occurs in its indexed key. The trigram tokenizer folds case with full Unicode case
  folding (``case_sensitive 0``) on both the index and the pattern, one code point to one code
  point, so a key that ``LIKE`` matches contains the pattern's folded trigrams. SQLite then
  re-checks the pre-filter's ``LIKE`` on the index row (FTS5 does not mark it as answered), which
  the same argument shows every accepted row passes.

Runs are counted in characters, not bytes: SQLite 3.40's FTS5 splits a LIKE pattern into runs of
3+ BYTES, and a run of 3+ bytes but fewer than 3 characters (``’``, ``Дд``, U+200B) has no trigram
and makes the index return NO row (measured: a byte-counting :func:`index_pattern` fails the
property tests on exactly those terms). Dropping such runs avoids it.

A term with no run of :data:`MIN_INDEXED_RUN` characters (``ab``, ``%_``, ``a%b``) is searched on
the plain table: FTS5 would scan its whole index for it, slower than the table scan (ARCHITECTURE
14). So is a term holding NUL (``LIKE`` and FTS5 read text only up to a NUL) and every search when
the index is switched off (``WorldDatabase(..., use_index=False)``). ``tests/unit/test_world_db_trigram.py`` compares
indexed and plain results (rows, order, truncation, coverage notes) on random and real terms.

The index is used only for SQLite files; an operator's MariaDB is never altered (its contains
search cost is measured in ``bench/README.md``).
"""

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, column, select, table
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection

from resources.world_db.schema import BoundCatalog
from vba_assets.errors import VbaError
from vba_assets.worlddata.build import (
    SQLITE_APPLICATION_ID,
    TRIGRAM_INDEX_BUILDER_VERSION,
    search_key_identity,
)
from vba_assets.worlddata.schema import (
    BUILD_INFO_TABLE,
    TRIGRAM_INDEXED_COLUMNS,
    trigram_index_name,
    trigram_index_tables,
)

#: Shortest run of a term (characters between ``%``/``_``) the trigram index can answer.
MIN_INDEXED_RUN = 3

_WILDCARDS = re.compile(r"[%_]")


@dataclass(frozen=True)
class TrigramIndex:
    """The FTS5 table that indexes one catalog's name column."""

    table: str
    name_column: str
    key_columns: tuple[str, ...]


def readable_tables() -> list[str]:
    """The index tables and FTS5 shadow tables a read-only SQLite connection may read."""
    return trigram_index_tables()


def virtual_tables() -> list[str]:
    """The FTS5 index tables a new SQLite connection connects before its authorizer."""
    return [trigram_index_name(table, column) for table, column in TRIGRAM_INDEXED_COLUMNS]


def index_pattern(term: str) -> str | None:
    """The pre-filter pattern for ``term`` (no ESCAPE clause), or None: search the plain table.

    ``%`` + the runs of ``term`` between ``%`` and ``_`` with at least :data:`MIN_INDEXED_RUN`
    characters, joined by ``%``, + ``%``. None when no run is long enough or ``term`` holds NUL.
    """
    if "\x00" in term:
        return None
    runs = [run for run in _WILDCARDS.split(term) if len(run) >= MIN_INDEXED_RUN]
    return "%" + "%".join(runs) + "%" if runs else None


def _pragma(connection: Connection, name: str) -> int:
    value = connection.exec_driver_sql(f"PRAGMA {name}").scalar()
    return int(value) if isinstance(value, int) else -1


def _indexed_key(connection: Connection) -> str | None:
    """The search key the file's trigram indexes hold (its build-info table), or None."""
    info = table(BUILD_INFO_TABLE, column("key"), column("value"))
    query = select(info.c.value).where(info.c.key == "search_key")
    try:
        value = connection.execute(query).scalar()
    except (sa_exc.DBAPIError, VbaError):  # no such table: not built with keyed indexes
        return None
    return value if isinstance(value, str) else None


def _usable(connection: Connection, index: TrigramIndex) -> bool:
    # An absent table has no columns. The name is this project's own constant.
    info = connection.exec_driver_sql(f'PRAGMA table_info("{index.table}")')
    columns = [str(row[1]) for row in info]
    if columns != [index.name_column, *index.key_columns]:
        return False
    fts = table(index.table, *(column(name) for name in columns))
    probe = (
        select(*(fts.c[key] for key in index.key_columns))
        .where(fts.c[index.name_column].like(bindparam("probe")))
        .limit(0)
    )
    try:
        connection.execute(probe, {"probe": "%vba%"}).all()
    except (sa_exc.DBAPIError, VbaError):  # e.g. an SQLite without FTS5: scan instead
        return False
    return True


def discover(connection: Connection, catalogs: dict[str, BoundCatalog]) -> dict[str, TrigramIndex]:
    """The usable trigram index of each catalog, by catalog name (SQLite files only).

    Only a file built by the demo DB builder with indexes of this very search key
    (``application_id``, ``user_version`` and the build-info table's ``search_key``) is trusted;
    a catalog is indexed when its table and name column are indexed, the index carries exactly
    that name column and the table's primary key, and FTS5 can read it.
    """
    if _pragma(connection, "application_id") != SQLITE_APPLICATION_ID:
        return {}
    if _pragma(connection, "user_version") < TRIGRAM_INDEX_BUILDER_VERSION:
        return {}
    if _indexed_key(connection) != search_key_identity():
        return {}  # built with another search key (rule or Unicode version): its keys may differ
    found: dict[str, TrigramIndex] = {}
    for name, bound in catalogs.items():
        pair = (bound.table.name, bound.name.name)
        if pair not in TRIGRAM_INDEXED_COLUMNS:
            continue
        index = TrigramIndex(
            table=trigram_index_name(*pair),
            name_column=bound.name.name,
            key_columns=tuple(c.name for c in bound.table.primary_key.columns),
        )
        if _usable(connection, index):
            found[name] = index
    return found


def describe(index: TrigramIndex | None, enabled: bool) -> dict[str, Any]:
    """How a catalog's contains search runs, for :meth:`WorldDatabase.describe`."""
    if index is None:
        return {"kind": "none", "note": "every contains search scans the table"}
    if not enabled:
        return {
            "kind": "fts5_trigram",
            "table": index.table,
            "note": "switched off (use_index=False)",
        }
    return {
        "kind": "fts5_trigram",
        "table": index.table,
        "note": f"pre-filters terms with a run of {MIN_INDEXED_RUN}+ characters; shorter terms scan",
    }
