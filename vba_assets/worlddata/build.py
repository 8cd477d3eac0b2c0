"""The embedded demo SQLite database, built from the packaged world data.

The repository ships compact gzip CSVs in ``vba_assets/worlddata/data/`` (read and checked by
:mod:`vba_assets.worlddata.packaged`). :func:`ensure_demo_database` turns them into a SQLite file in
a cache directory on first use and reuses it afterwards:

* the file name carries a fingerprint of the packaged data, the DDL (trigram indexes included),
  :data:`BUILDER_VERSION` and the search key's code and Unicode version, so changed data, a
  changed schema, a changed build or a changed key builds a new file and never reuses a stale one
  (a file built before the trigram indexes existed is never reused: its name differs);
* the name catalogs get FTS5 trigram indexes of their names' search keys
  (:func:`create_trigram_indexes`, see :mod:`vba_assets.worlddata.schema`); ``PRAGMA
  user_version`` is :data:`BUILDER_VERSION`, ``PRAGMA application_id`` is
  :data:`SQLITE_APPLICATION_ID` and the build-info table names the key
  (:func:`search_key_identity`), which is how the world DB resource knows the indexes were built
  by this code, with this key, from the same rows;
* the build writes a temp file in the same directory, fsyncs it and publishes it with
  :func:`os.replace`: a crash or kill leaves no partial file under the final name, and two
  concurrent builders are harmless (an advisory lock also makes the second one wait and reuse);
* temp files left by killed builders on this host are removed by the next build.

Bad packaged data raises :class:`~vba_assets.errors.InputError` with ``ErrorCode.WORLD_DATA_INVALID``
naming the file, line and column (see :mod:`~vba_assets.worlddata.packaged`), and publishes nothing.
"""

import contextlib
import functools
import hashlib
import inspect
import json
import os
import socket
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from vba_assets.domain.catalog import search_key as search_key_module
from vba_assets.domain.catalog.search_key import (
    SEARCH_KEY_FUNCTION,
    UNICODE_VERSION,
    sql_search_key,
)
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.worlddata.packaged import (
    MANIFEST_NAME,
    iter_table_rows,
    load_manifest,
    packaged_data_dir,
    verify_file_hashes,
    world_data_invalid,
)
from vba_assets.worlddata.schema import (
    BUILD_INFO_TABLE,
    WORLD_TABLES,
    create_index_statements,
    create_table_statements,
    create_trigram_index_statements,
    data_file_name,
    insert_statement,
    sqlite_dialect,
)

#: Bump when the way the SQLite file is built changes (the schema is fingerprinted separately).
#: 2: FTS5 trigram indexes of the name catalogs. 3: the indexes hold search keys, not names.
BUILDER_VERSION = 3
#: The first builder version whose trigram indexes hold search keys (an older index is not used).
TRIGRAM_INDEX_BUILDER_VERSION = 3
#: Environment variable that overrides the cache directory.
CACHE_DIR_ENV = "VBA_CACHE_DIR"
#: SQLite ``application_id`` of the demo DB ("VBAW").
SQLITE_APPLICATION_ID = 0x56424157

_DB_PREFIX = "demo-world-"
_DB_SUFFIX = ".sqlite"
_TEMP_SUFFIX = ".tmp"
_process_lock = threading.Lock()


def data_fingerprint(data_dir: Traversable | None = None) -> str:
    """sha256 over the builder version, the search key's Unicode version and code (the trigram
    indexes hold search keys), the SQLite DDL and every packaged file's bytes.

    The packaged data's files are read and hashed once per process and builder identity: they ship
    with the installed package.
    """
    dialect = sqlite_dialect()
    identity = {
        "builder_version": BUILDER_VERSION,
        "search_key_unicode": UNICODE_VERSION,
        "search_key_code": _search_key_code(),
        "ddl": create_table_statements(dialect)
        + create_index_statements(dialect)
        + create_trigram_index_statements(dialect),
    }
    identity_text = json.dumps(identity, sort_keys=True)
    if data_dir is None:
        return _packaged_fingerprint(identity_text)
    return _fingerprint(identity_text, data_dir)


def search_key_identity() -> str:
    """``<Unicode version>:<sha256 of the key's code>``: which search key a trigram index holds
    (stored in the file's build-info table; the world DB uses an index only when it matches)."""
    return f"{UNICODE_VERSION}:{_search_key_code()}"


@functools.lru_cache(maxsize=1)
def _search_key_code() -> str:
    """sha256 of the search key's module: the trigram indexes hold keys it computed, so a changed
    key rule (say, one more letter of its own) must build a new file, never reuse a stale one."""
    return hashlib.sha256(inspect.getsource(search_key_module).encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=4)
def _packaged_fingerprint(identity_text: str) -> str:
    return _fingerprint(identity_text, packaged_data_dir())


def _fingerprint(identity_text: str, source: Traversable) -> str:
    digest = hashlib.sha256()
    digest.update(identity_text.encode("utf-8"))
    for name in [MANIFEST_NAME, *(data_file_name(table) for table in WORLD_TABLES)]:
        try:
            payload = (source / name).read_bytes()
        except OSError as exc:
            raise world_data_invalid(
                f"packaged world data file missing: {name}: {exc}", file=name
            ) from None
        digest.update(f"\n{name}\n{len(payload)}\n".encode())
        digest.update(payload)
    return digest.hexdigest()


def cache_dir() -> Path:
    """``$VBA_CACHE_DIR`` if set, else ``~/.cache/vba-assets``."""
    configured = os.environ.get(CACHE_DIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "vba-assets"


def demo_database_path(cache_root: Path | None = None, data_dir: Traversable | None = None) -> Path:
    """Where the demo DB for the current packaged data lives (it may not exist yet)."""
    root = cache_root if cache_root is not None else cache_dir()
    digest = data_fingerprint(data_dir)[:16]
    return root / "worlddata" / f"{_DB_PREFIX}{digest}{_DB_SUFFIX}"


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temp_prefix(final: Path) -> str:
    return f".{final.name}.{socket.gethostname()}.{os.getpid()}."


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host exists (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def temp_file_writer(name: str) -> tuple[str, str, int] | None:
    """``(final file name, host, pid)`` of the builder writing the temp file named ``name``
    (see :func:`_temp_prefix`), or None when ``name`` is no demo DB's temp file."""
    if not (name.startswith(f".{_DB_PREFIX}") and name.endswith(_TEMP_SUFFIX)):
        return None
    final, dot, rest = name[1:].partition(f"{_DB_SUFFIX}.")
    parts = rest.rsplit(".", 3)  # host (may hold dots), pid, mkstemp's letters, "tmp"
    if not dot or len(parts) != 4 or not parts[1].isdigit():
        return None
    return final + _DB_SUFFIX, parts[0], int(parts[1])


def temp_writer_alive(host: str, pid: int) -> bool:
    """Whether the writer ``pid`` of ``host`` may still be writing: True for another host,
    whose processes this one cannot see."""
    return host != socket.gethostname() or pid_alive(pid)


def remove_stale_temp_files(final: Path) -> list[Path]:
    """Delete temp files of ``final`` left by dead builders on this host; return them."""
    removed: list[Path] = []
    for candidate in final.parent.glob(f".{final.name}.*{_TEMP_SUFFIX}"):
        writer = temp_file_writer(candidate.name)
        if writer is None or writer[0] != final.name or temp_writer_alive(*writer[1:]):
            continue
        with contextlib.suppress(FileNotFoundError):
            candidate.unlink()
            removed.append(candidate)
    return removed


def _load_sqlite(
    connection: sqlite3.Connection, source: Traversable, manifest: dict[str, Any]
) -> dict[str, int]:
    dialect = sqlite_dialect()
    connection.execute("PRAGMA journal_mode = MEMORY")
    connection.execute("PRAGMA synchronous = OFF")
    connection.execute(f"PRAGMA application_id = {SQLITE_APPLICATION_ID}")
    connection.execute(f"PRAGMA user_version = {BUILDER_VERSION}")
    counts: dict[str, int] = {}
    connection.execute("BEGIN")
    for statement in create_table_statements(dialect):
        connection.execute(statement)
    for table in WORLD_TABLES:
        expected = int(manifest["tables"][table.name]["rows"])
        rows = iter_table_rows(table, source, expected_rows=expected)
        try:
            connection.executemany(insert_statement(table, dialect), rows)
        except sqlite3.IntegrityError as exc:
            raise world_data_invalid(
                f"{data_file_name(table)}: {exc}", file=data_file_name(table)
            ) from None
        quoted = dialect.identifier_preparer.quote_identifier(table.name)
        counts[table.name] = int(connection.execute(f"SELECT COUNT(*) FROM {quoted}").fetchone()[0])
        if counts[table.name] != expected:
            raise world_data_invalid(
                f"{data_file_name(table)}: {counts[table.name]} rows stored, expected {expected}",
                file=data_file_name(table),
            )
    for statement in create_index_statements(dialect):
        connection.execute(statement)
    create_trigram_indexes(connection)
    connection.execute("COMMIT")
    return counts


def create_trigram_indexes(connection: sqlite3.Connection) -> None:
    """Create and fill the FTS5 trigram index of every name catalog (after the bulk load).

    Raises:
        ConfigError: ``CONFIG_INVALID`` when this SQLite has no FTS5 trigram tokenizer (SQLite
            3.34 or later with FTS5, as in CPython's builds and Debian's libsqlite3).
    """
    connection.create_function(SEARCH_KEY_FUNCTION, 1, sql_search_key, deterministic=True)
    for statement in create_trigram_index_statements(sqlite_dialect()):
        try:
            connection.execute(statement)
        except sqlite3.OperationalError as exc:
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                f"cannot build the trigram name index with SQLite {sqlite3.sqlite_version}: {exc} "
                "(needs FTS5 with the trigram tokenizer, SQLite 3.34 or later)",
                key="sqlite",
            ) from None
    connection.execute(
        f"INSERT INTO {BUILD_INFO_TABLE} (key, value) VALUES (?, ?)",
        ("search_key", search_key_identity()),
    )


def build_sqlite(path: Path | str, *, data_dir: Traversable | None = None) -> dict[str, int]:
    """Build the demo DB from the packaged data and atomically publish it at ``path``.

    The database is written to a temp file next to ``path``, fsynced, made read-only and moved into
    place with :func:`os.replace`. An existing file at ``path`` is replaced atomically.

    Returns:
        Row counts per table.

    Raises:
        InputError: ``WORLD_DATA_INVALID`` when the packaged data is corrupt or inconsistent.
    """
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    source = data_dir or packaged_data_dir()
    manifest = load_manifest(source)
    verify_file_hashes(source, manifest)
    fd, temp_name = tempfile.mkstemp(
        prefix=_temp_prefix(final), suffix=_TEMP_SUFFIX, dir=final.parent
    )
    os.close(fd)
    temp = Path(temp_name)
    try:
        connection = sqlite3.connect(temp, isolation_level=None)
        try:
            counts = _load_sqlite(connection, source, manifest)
        finally:
            connection.close()
        _fsync_path(temp)
        temp.chmod(0o444)
        os.replace(temp, final)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    _fsync_path(final.parent)
    return counts


@contextlib.contextmanager
def _build_lock(directory: Path) -> Iterator[None]:
    """Serialize builders across threads and (where ``fcntl`` exists) processes."""
    with _process_lock, open(directory / ".build.lock", "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - non-POSIX: the atomic publish still holds
            yield
            return
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def ensure_demo_database(
    *, cache_root: Path | None = None, data_dir: Traversable | None = None
) -> Path:
    """Return the path of the demo SQLite DB, building it first if it does not exist yet.

    Args:
        cache_root: Cache directory; default ``$VBA_CACHE_DIR``, else ``~/.cache/vba-assets``.
        data_dir: Packaged data folder; default this package's ``data/``.

    Raises:
        ConfigError: ``CONFIG_INVALID`` when the cache directory cannot be created.
        InputError: ``WORLD_DATA_INVALID`` when the packaged data is corrupt.
    """
    final = demo_database_path(cache_root, data_dir)
    if final.is_file():
        return final
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"cannot create the world data cache directory {final.parent}: {exc.strerror}; "
            f"set {CACHE_DIR_ENV} to a writable directory",
            key=CACHE_DIR_ENV,
        ) from None
    with _build_lock(final.parent):
        remove_stale_temp_files(final)
        if not final.is_file():
            build_sqlite(final, data_dir=data_dir)
    return final
