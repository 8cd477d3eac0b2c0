"""The embedded demo world database (WotLK 3.3.5 creature catalog, AzerothCore-shaped).

* :mod:`vba_assets.worlddata.schema`: the one set of table definitions, for SQLite and MariaDB.
* :mod:`vba_assets.worlddata.packaged`: the packaged gzip CSVs and their manifest, read and checked.
* :mod:`vba_assets.worlddata.build`: :func:`ensure_demo_database`, which builds the demo SQLite file
  in the cache directory on first use.
* :mod:`vba_assets.worlddata.mariadb_load`: loads the same data into a MariaDB server (CI).

``python -m vba_assets.worlddata`` prints the path of the demo database, building it if needed.
Provenance, licenses and limits of the data: ``vba_assets/worlddata/data/SOURCES.md``.
"""

from vba_assets.worlddata.build import (
    BUILDER_VERSION,
    build_sqlite,
    cache_dir,
    demo_database_path,
    ensure_demo_database,
)
from vba_assets.worlddata.packaged import iter_table_rows, load_manifest
from vba_assets.worlddata.schema import WORLD_TABLE_NAMES, WORLD_TABLES, metadata

__all__ = [
    "BUILDER_VERSION",
    "WORLD_TABLES",
    "WORLD_TABLE_NAMES",
    "build_sqlite",
    "cache_dir",
    "demo_database_path",
    "ensure_demo_database",
    "iter_table_rows",
    "load_manifest",
    "metadata",
]
