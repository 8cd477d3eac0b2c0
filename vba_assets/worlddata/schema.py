"""Table definitions of the demo world database, shared by SQLite and MariaDB.

One SQLAlchemy Core :class:`~sqlalchemy.MetaData` describes every table the packaged data fills.
The shapes follow AzerothCore's world DB (``../shared/data/azerothcore/SCHEMA.md``) for the columns
that are shipped; columns AzerothCore has but the demo data does not are simply absent.

* ``creature_template``: ``entry`` INT UNSIGNED PK, ``name`` CHAR(100) NOT NULL, ``subname``
  CHAR(100) NULL, ``minlevel``/``maxlevel``/``rank`` TINYINT UNSIGNED, ``faction`` SMALLINT
  UNSIGNED, ``npcflag`` INT UNSIGNED; ``KEY idx_name (name)``.
* ``creature_template_locale``: ``entry``, ``locale`` VARCHAR(4), ``Name``/``Title`` TEXT NULL;
  PK (entry, locale). ``VerifiedBuild`` is not shipped.
* ``creature_queststarter`` / ``creature_questender``: ``id``, ``quest``; PK (id, quest).
* ``creature_spawn_markers``: **not an AzerothCore table**. Per (entry, zone_id) the number of map
  markers the Questie addon lists; it is not a count of ``creature`` spawn rows (guids).
* ``zone_names``: **not an AzerothCore table** (zones are client data): ``zone_id`` SMALLINT
  UNSIGNED, ``locale`` VARCHAR(4) (``enUS`` or a client locale), ``name`` VARCHAR(100) NOT NULL;
  PK (zone_id, locale). The names of the marker table's zone ids (grounded zone tie-breaks).
* ``quest_template``: ``ID`` INT UNSIGNED PK, ``LogTitle`` TEXT NULL, ``MinLevel`` TINYINT UNSIGNED,
  ``QuestLevel`` SMALLINT (signed); ``quest_template_locale``: ``ID``, ``locale``, ``Title`` TEXT
  NULL; PK (ID, locale). (SCHEMA.md gives ``quest_template``; for ``quest_template_locale`` only
  the 2019 definition was read, whose ``ID`` was MEDIUMINT UNSIGNED: INT UNSIGNED holds it.)
* ``item_template``: ``entry`` INT UNSIGNED PK, ``name`` VARCHAR(255) NOT NULL, ``KEY
  idx_item_name`` (AzerothCore's ``idx_name``: SQLite index names are unique per database);
  ``item_template_locale``: ``ID``, ``locale``, ``Name`` TEXT NULL; PK (ID, locale).
* ``gameobject_template``: ``entry`` INT UNSIGNED PK, ``name`` VARCHAR(100) NOT NULL, ``KEY
  idx_gameobject_name``; ``gameobject_template_locale``: ``entry``, ``locale``, ``name`` TEXT NULL; PK (entry,
  locale). The item and gameobject shapes are not in ``../shared/data/azerothcore/SCHEMA.md``; the
  column names are AzerothCore's (``../shared/data/wotlk/SOURCE.md``) and the types those of
  AzerothCore's dumps. ``Description``/``castBarCaption``/``VerifiedBuild`` are not shipped.

On MariaDB/MySQL every table is InnoDB with ``utf8mb4`` / ``utf8mb4_unicode_ci`` like AzerothCore,
and integers are unsigned. On SQLite the integers are plain ``INTEGER`` (so ``entry`` is the rowid)
and the tables with a composite key are ``WITHOUT ROWID``.

How an empty CSV field is stored is declared per column in ``Column.info`` (read by
:func:`empty_field_value`): nullable text columns store NULL (the source cannot tell nil from
``''``), ``faction`` stores 0 (no source row has faction 0, so 0 means "not given by the source"),
and a required column rejects an empty field.

**Trigram indexes (SQLite demo DB only).** Each name column in :data:`TRIGRAM_INDEXED_COLUMNS` gets
an FTS5 table ``vba_trigram__<table>__<column>`` (``tokenize='trigram'``, ``detail=full``) holding
the name's search key (``vba_search_key(name)``: lower case, no accents, see
:mod:`vba_assets.domain.catalog.search_key`) and the table's primary-key columns (``UNINDEXED``),
filled from the table in the same transaction as the load (:func:`create_trigram_index_statements`;
a build-info table names the key). SQLite answers ``<fts>.<column> LIKE '%abc%'`` from that index
(ARCHITECTURE 14): the world DB resource uses it only as a pre-filter of the literal contains
search (``resources/world_db/trigram.py``). An operator's MariaDB is never indexed or altered.
"""

from typing import Any

from sqlalchemy import (
    CHAR,
    VARCHAR,
    Column,
    Dialect,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    create_mock_engine,
)
from sqlalchemy.dialects import mysql, sqlite
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlalchemy.types import TypeEngine

from vba_assets.domain.catalog.search_key import SEARCH_KEY_FUNCTION

#: Dialect names the MySQL-family variants apply to (SQLAlchemy names MariaDB ``mariadb``).
_MYSQL_FAMILY = ("mysql", "mariadb")

#: ``Column.info`` key: value stored for an empty CSV field (absent means "empty is an error").
INFO_EMPTY = "csv_empty"
#: ``Column.info`` key: largest allowed integer (the MySQL type's maximum).
INFO_MAX = "max"
#: ``Column.info`` key: smallest allowed integer of a signed column (absent: unsigned, 0).
INFO_MIN = "min"

_TINYINT_UNSIGNED_MAX = 255
_SMALLINT_UNSIGNED_MAX = 65_535
_SMALLINT_MIN = -32_768
_SMALLINT_MAX = 32_767
_INT_UNSIGNED_MAX = 4_294_967_295

_NULL_IF_EMPTY: dict[str, Any] = {INFO_EMPTY: None}

_TABLE_OPTIONS: dict[str, Any] = {
    f"{prefix}_{option}": value
    for prefix in _MYSQL_FAMILY
    for option, value in (
        ("engine", "InnoDB"),
        ("charset", "utf8mb4"),
        ("collate", "utf8mb4_unicode_ci"),
    )
}
_COMPOSITE_KEY_OPTIONS: dict[str, Any] = {**_TABLE_OPTIONS, "sqlite_with_rowid": False}


def _unsigned(
    mysql_type: type[mysql.INTEGER] | type[mysql.SMALLINT] | type[mysql.TINYINT],
) -> TypeEngine[int]:
    """``INTEGER`` everywhere, the given unsigned type on MariaDB/MySQL."""
    return Integer().with_variant(mysql_type(unsigned=True), *_MYSQL_FAMILY)


def _uint(name: str, mysql_type: Any, maximum: int, **kwargs: Any) -> Column[int]:
    info = {INFO_MAX: maximum, **kwargs.pop("info", {})}
    return Column(
        name, _unsigned(mysql_type), nullable=False, autoincrement=False, info=info, **kwargs
    )


def _int(name: str, mysql_type: Any, minimum: int, maximum: int) -> Column[int]:
    """A signed NOT NULL integer column (``INTEGER`` on SQLite)."""
    info = {INFO_MIN: minimum, INFO_MAX: maximum}
    column_type = Integer().with_variant(mysql_type(), *_MYSQL_FAMILY)
    return Column(name, column_type, nullable=False, autoincrement=False, info=info)


metadata = MetaData()

creature_template = Table(
    "creature_template",
    metadata,
    _uint("entry", mysql.INTEGER, _INT_UNSIGNED_MAX, primary_key=True),
    # NOT NULL like AzerothCore: the 3 source rows with an empty name store ''.
    Column("name", CHAR(100), nullable=False, info={INFO_EMPTY: ""}),
    Column("subname", CHAR(100), nullable=True, info=_NULL_IF_EMPTY),
    _uint("minlevel", mysql.TINYINT, _TINYINT_UNSIGNED_MAX),
    _uint("maxlevel", mysql.TINYINT, _TINYINT_UNSIGNED_MAX),
    _uint("rank", mysql.TINYINT, _TINYINT_UNSIGNED_MAX),
    # 9 source rows have no faction; they store 0, a value no other source row has.
    _uint("faction", mysql.SMALLINT, _SMALLINT_UNSIGNED_MAX, info={INFO_EMPTY: 0}),
    _uint("npcflag", mysql.INTEGER, _INT_UNSIGNED_MAX),
    Index("idx_name", "name"),
    comment="Creature System (demo subset of the AzerothCore columns)",
    **_TABLE_OPTIONS,
)

creature_template_locale = Table(
    "creature_template_locale",
    metadata,
    _uint("entry", mysql.INTEGER, _INT_UNSIGNED_MAX, primary_key=True),
    Column("locale", VARCHAR(4), primary_key=True, nullable=False),
    Column("Name", Text, nullable=True, info=_NULL_IF_EMPTY),
    Column("Title", Text, nullable=True, info=_NULL_IF_EMPTY),
    **_COMPOSITE_KEY_OPTIONS,
)


def _quest_relation(name: str) -> Table:
    """``creature_queststarter`` / ``creature_questender``: identical AzerothCore shapes."""
    return Table(
        name,
        metadata,
        _uint("id", mysql.INTEGER, _INT_UNSIGNED_MAX, primary_key=True),
        _uint("quest", mysql.INTEGER, _INT_UNSIGNED_MAX, primary_key=True),
        comment="Creature System",
        **_COMPOSITE_KEY_OPTIONS,
    )


creature_queststarter = _quest_relation("creature_queststarter")
creature_questender = _quest_relation("creature_questender")

creature_spawn_markers = Table(
    "creature_spawn_markers",
    metadata,
    _uint("entry", mysql.INTEGER, _INT_UNSIGNED_MAX, primary_key=True),
    _uint("zone_id", mysql.SMALLINT, _SMALLINT_UNSIGNED_MAX, primary_key=True),
    _uint("marker_count", mysql.INTEGER, _INT_UNSIGNED_MAX),
    comment="Not AzerothCore: Questie addon map markers per zone, not creature spawn rows",
    **_COMPOSITE_KEY_OPTIONS,
)

#: Not AzerothCore (zones are client data, AreaTable.dbc): the name of every zone id of
#: ``creature_spawn_markers``, English (``enUS``) and each translated locale, from the Questie
#: addon's zone lookups (grounded zone tie-breaks, protocol v6).
zone_names = Table(
    "zone_names",
    metadata,
    _uint("zone_id", mysql.SMALLINT, _SMALLINT_UNSIGNED_MAX, primary_key=True),
    Column("locale", VARCHAR(4), primary_key=True, nullable=False),
    Column("name", VARCHAR(100), nullable=False),
    comment="Not AzerothCore: zone names (AreaTable ids) from the Questie addon's lookups",
    **_COMPOSITE_KEY_OPTIONS,
)


def _name_locale(name: str, identity: str, text: str) -> Table:
    """A ``<thing>_template_locale`` table: identity, ``locale``, one nullable TEXT name column."""
    return Table(
        name,
        metadata,
        _uint(identity, mysql.INTEGER, _INT_UNSIGNED_MAX, primary_key=True),
        Column("locale", VARCHAR(4), primary_key=True, nullable=False),
        Column(text, Text, nullable=True, info=_NULL_IF_EMPTY),
        **_COMPOSITE_KEY_OPTIONS,
    )


def _named_template(
    name: str, length: int, index: str, system: str, empty_name: str | None = None
) -> Table:
    """An ``item_template``/``gameobject_template`` subset: ``entry`` and a NOT NULL ``name``."""
    info = {} if empty_name is None else {INFO_EMPTY: empty_name}
    return Table(
        name,
        metadata,
        _uint("entry", mysql.INTEGER, _INT_UNSIGNED_MAX, primary_key=True),
        Column("name", VARCHAR(length), nullable=False, info=info),
        Index(index, "name"),
        comment=f"{system} (demo subset of the AzerothCore columns)",
        **_TABLE_OPTIONS,
    )


quest_template = Table(
    "quest_template",
    metadata,
    _uint("ID", mysql.INTEGER, _INT_UNSIGNED_MAX, primary_key=True),
    # Nullable TEXT like AzerothCore's LogTitle; no source title is empty.
    Column("LogTitle", Text, nullable=True, info=_NULL_IF_EMPTY),
    _uint("MinLevel", mysql.TINYINT, _TINYINT_UNSIGNED_MAX),
    # Signed like AzerothCore's smallint: -1 means "the player's level".
    _int("QuestLevel", mysql.SMALLINT, _SMALLINT_MIN, _SMALLINT_MAX),
    comment="Quest System (demo subset of the AzerothCore columns)",
    **_TABLE_OPTIONS,
)

quest_template_locale = _name_locale("quest_template_locale", "ID", "Title")

# AzerothCore names both indexes idx_name; SQLite index names are per database, not per table.
item_template = _named_template("item_template", 255, "idx_item_name", "Item System")
item_template_locale = _name_locale("item_template_locale", "ID", "Name")

# NOT NULL DEFAULT '' like AzerothCore: the 874 source rows with an empty name store ''.
gameobject_template = _named_template(
    "gameobject_template", 100, "idx_gameobject_name", "Gameobject System", empty_name=""
)
gameobject_template_locale = _name_locale("gameobject_template_locale", "entry", "name")

#: The creature tables (the demo catalogs and their quest and spawn facts).
CREATURE_TABLES: tuple[Table, ...] = (
    creature_template,
    creature_template_locale,
    creature_queststarter,
    creature_questender,
    creature_spawn_markers,
)
#: The reference tables of the things a report names besides creatures: quest titles, item and
#: gameobject names, each with its locales, and zone names. No default catalog reads them; a project allowlists
#: them where a catalog or the planner's lookup uses them.
REFERENCE_TABLES: tuple[Table, ...] = (
    quest_template,
    quest_template_locale,
    item_template,
    item_template_locale,
    gameobject_template,
    gameobject_template_locale,
    zone_names,
)
#: Every table, in load order. Each is filled from ``data/<table name>.csv.gz``.
WORLD_TABLES: tuple[Table, ...] = CREATURE_TABLES + REFERENCE_TABLES

#: Table names in load order (the allowlist of the demo DB is exactly these).
WORLD_TABLE_NAMES: tuple[str, ...] = tuple(table.name for table in WORLD_TABLES)


def data_file_name(table: Table) -> str:
    """The packaged file that holds ``table``'s rows (header = column names, in order)."""
    return f"{table.name}.csv.gz"


def csv_header(table: Table) -> list[str]:
    """The exact header row of ``table``'s packaged CSV."""
    return [column.name for column in table.columns]


def empty_field_value(column: Column[Any]) -> tuple[bool, Any]:
    """``(allowed, value)`` for an empty CSV field in ``column``."""
    if INFO_EMPTY in column.info:
        return True, column.info[INFO_EMPTY]
    return False, None


def sqlite_dialect() -> Dialect:
    """The SQLite dialect the embedded demo DB is built with."""
    return sqlite.dialect()


def mariadb_dialect() -> Dialect:
    """The MariaDB (PyMySQL) dialect, for compiling DDL without a live engine."""
    return create_mock_engine("mariadb+pymysql://", lambda *args, **kwargs: None).dialect


def create_table_statements(dialect: Dialect) -> list[str]:
    """``CREATE TABLE`` statements (without secondary indexes) for every world table."""
    return [str(CreateTable(table).compile(dialect=dialect)).strip() for table in WORLD_TABLES]


def create_index_statements(dialect: Dialect) -> list[str]:
    """``CREATE INDEX`` statements, to run after the bulk load."""
    return [
        str(CreateIndex(index).compile(dialect=dialect)).strip()
        for table in WORLD_TABLES
        for index in sorted(table.indexes, key=lambda index: str(index.name))
    ]


#: Name columns the demo SQLite DB indexes with an FTS5 trigram table: (table, column).
TRIGRAM_INDEXED_COLUMNS: tuple[tuple[str, str], ...] = (
    ("creature_template", "name"),
    ("creature_template_locale", "Name"),
)
#: Shadow tables FTS5 keeps beside each index table ``<name>`` (``<name>_data``...).
FTS5_SHADOW_SUFFIXES: tuple[str, ...] = ("_data", "_idx", "_content", "_docsize", "_config")


def trigram_index_name(table: str, column: str) -> str:
    """The FTS5 table that indexes ``table.column``: ``vba_trigram__<table>__<column lower>``."""
    return f"vba_trigram__{table}__{column.lower()}"


#: The demo DB's own table that says which search key its trigram indexes hold:
#: ``(key, value)`` rows, ``search_key`` -> :func:`vba_assets.worlddata.build.search_key_identity`.
BUILD_INFO_TABLE = "vba_build_info"


def trigram_index_tables() -> list[str]:
    """Every table the trigram indexes consist of (index tables and their FTS5 shadow tables, and
    the build-info table that names their search key)."""
    names: list[str] = [BUILD_INFO_TABLE]
    for table, column in TRIGRAM_INDEXED_COLUMNS:
        index = trigram_index_name(table, column)
        names += [index, *(index + suffix for suffix in FTS5_SHADOW_SUFFIXES)]
    return names


def _world_table(name: str) -> Table:
    return next(table for table in WORLD_TABLES if table.name == name)


def trigram_key_columns(table: str) -> list[str]:
    """The primary-key columns an index row carries to find its table row again."""
    return [column.name for column in _world_table(table).primary_key.columns]


def create_trigram_index_statements(dialect: Dialect) -> list[str]:
    """``CREATE VIRTUAL TABLE ... USING fts5``, the fill and an ``optimize`` per indexed column.

    Run after the bulk load, in the same transaction, on a connection that defines
    ``vba_search_key`` (the index holds each name's search key under the name column's name).
    Rows with a NULL name are not indexed (a contains search never returns them). Identifiers
    come from this module only.
    """
    quote = dialect.identifier_preparer.quote_identifier
    statements: list[str] = []
    for table, column in TRIGRAM_INDEXED_COLUMNS:
        index = quote(trigram_index_name(table, column))
        keys = trigram_key_columns(table)
        columns = ", ".join([quote(column), *(f"{quote(key)} UNINDEXED" for key in keys)])
        targets = ", ".join(quote(name) for name in [column, *keys])
        selected = ", ".join(
            [f"{SEARCH_KEY_FUNCTION}({quote(column)})", *(quote(key) for key in keys)]
        )
        order = ", ".join(quote(key) for key in keys)
        statements += [
            f"CREATE VIRTUAL TABLE {index} USING fts5({columns}, "
            "tokenize = 'trigram', detail = full)",
            f"INSERT INTO {index} ({targets}) SELECT {selected} FROM {quote(table)} "
            f"WHERE {quote(column)} IS NOT NULL ORDER BY {order}",
            f"INSERT INTO {index} ({index}) VALUES ('optimize')",
        ]
    statements.append(
        f"CREATE TABLE {quote(BUILD_INFO_TABLE)} (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    return statements


def insert_statement(table: Table, dialect: Dialect) -> str:
    """A positional ``INSERT`` of every column of ``table``, in column order.

    Identifiers come from this module only and are always quoted; values are bound parameters.
    """
    quote = dialect.identifier_preparer.quote_identifier
    columns = ", ".join(quote(column.name) for column in table.columns)
    marker = "?" if dialect.paramstyle == "qmark" else "%s"
    placeholders = ", ".join(marker for _ in table.columns)
    return f"INSERT INTO {quote(table.name)} ({columns}) VALUES ({placeholders})"
