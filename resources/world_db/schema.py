"""Reflection, identifier validation and the schema fingerprint of the world database.

Every identifier the world database uses comes from here: a catalog's table must be allowlisted,
and its identity, name and data columns must exist in the REFLECTED table (exact name first, else
the one column whose name matches case-insensitively, as SQLite and MySQL compare column names).
Statements are then built from the reflected :class:`~sqlalchemy.Table` objects, so quoting is
the dialect's job (``rank`` is a column name of ``creature_template``).
"""

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import rfc8785
from sqlalchemy import Column, Dialect, Table
from sqlalchemy.sql import sqltypes
from sqlalchemy.sql.elements import ColumnElement

from vba_assets.config import DatabaseConfig
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.errors import ConfigError, ErrorCode

#: ``{(table, column): (character set, collation)}`` as reported by MariaDB/MySQL (lower-case keys).
Charsets = dict[tuple[str, str], tuple[str | None, str | None]]


@dataclass(frozen=True)
class BoundCatalog:
    """A catalog whose identifiers were checked against the reflected schema."""

    config: CatalogConfig
    table: Table
    identity: Column[Any]
    name: Column[Any]
    data: tuple[tuple[str, Column[Any]], ...]
    #: Primary-key columns other than the identity (e.g. ``locale``): the last tie-breakers.
    tie_breakers: tuple[Column[Any], ...]
    #: Collation reported for the name column (MariaDB/MySQL); None on SQLite.
    name_collation: str | None


def check_allowlisted(database: DatabaseConfig, catalogs: list[CatalogConfig]) -> None:
    """Raise ``TABLE_NOT_ALLOWLISTED`` for a catalog whose table is not in the allowlist."""
    for index, catalog in enumerate(catalogs):
        if catalog.table not in database.allowlist:
            raise ConfigError(
                ErrorCode.TABLE_NOT_ALLOWLISTED,
                f"catalog {catalog.name!r} uses table {catalog.table!r}, which is not in "
                f"database.allowlist ({', '.join(database.allowlist)})",
                key=f"entity_resolution.catalogs[{index}].table",
                catalog=catalog.name,
                table=catalog.table,
            )


def find_column(table: Table, name: str) -> Column[Any] | None:
    """The reflected column called ``name`` (exact, else the unique case-insensitive match)."""
    if name in table.c:
        return table.c[name]
    matches = [column for column in table.columns if column.name.lower() == name.lower()]
    return matches[0] if len(matches) == 1 else None


def _is_text(column: Column[Any]) -> bool:
    return isinstance(column.type, sqltypes.String | sqltypes.NullType)


def bind_catalogs(
    catalogs: list[CatalogConfig], tables: dict[str, Table], charsets: Charsets
) -> dict[str, BoundCatalog]:
    """Check every catalog identifier against ``tables``; raise one error naming all misses."""
    missing: list[tuple[str, str]] = []
    bound: dict[str, BoundCatalog] = {}
    for index, catalog in enumerate(catalogs):
        prefix = f"entity_resolution.catalogs[{index}]"
        table = tables[catalog.table]

        def lookup(name: str, key: str, table: Table = table) -> Column[Any] | None:
            column = find_column(table, name)
            if column is None:
                missing.append((key, f"{table.name}.{name}"))
            return column

        identity = lookup(catalog.identity_column, f"{prefix}.identity_column")
        name = lookup(catalog.name_column, f"{prefix}.name_column")
        data = [
            (column_name, lookup(column_name, f"{prefix}.data_columns[{position}]"))
            for position, column_name in enumerate(catalog.data_columns)
        ]
        if identity is None or name is None or any(column is None for _, column in data):
            continue
        if not _is_text(name):
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                f"catalog {catalog.name!r}: name column {table.name}.{name.name} is "
                f"{name.type!r}, not a text column",
                key=f"{prefix}.name_column",
            )
        bound[catalog.name] = BoundCatalog(
            config=catalog,
            table=table,
            identity=identity,
            name=name,
            data=tuple((key, column) for key, column in data if column is not None),
            tie_breakers=tuple(c for c in table.primary_key.columns if c is not identity),
            name_collation=charsets.get((table.name.lower(), name.name.lower()), (None, None))[1],
        )
    if missing:
        raise ConfigError(
            ErrorCode.IDENTIFIER_NOT_IN_SCHEMA,
            "configured column(s) not found in the reflected schema: "
            + ", ".join(f"{where} ({key})" for key, where in missing),
            key=missing[0][0],
            columns=[where for _, where in missing],
        )
    return bound


def type_text(column: Column[Any], dialect: Dialect) -> str:
    """The column type as the dialect writes it (collation included on MariaDB/MySQL)."""
    try:
        return str(column.type.compile(dialect=dialect))
    except Exception:  # NullType and other types a dialect cannot render
        return type(column.type).__name__


def schema_fingerprint(tables: dict[str, Table], dialect: Dialect) -> str:
    """sha256 of the RFC 8785 JSON of every table's columns (name, type, nullable, primary key)."""
    document = {
        "tables": [
            {
                "name": table.name,
                "columns": [
                    {
                        "name": column.name,
                        "type": type_text(column, dialect),
                        "nullable": bool(column.nullable),
                        "primary_key": bool(column.primary_key),
                    }
                    for column in table.columns
                ],
            }
            for table in sorted(tables.values(), key=lambda table: table.name)
        ]
    }
    canonical: bytes = rfc8785.dumps(cast(Any, document))
    return hashlib.sha256(canonical).hexdigest()


def binary_order(
    column: Column[Any],
    backend: str,
    charsets: Charsets,
    binary_collation: Callable[[str | None], str | None],
) -> ColumnElement[Any]:
    """``column`` in code-point order: ``COLLATE BINARY`` (SQLite), ``<charset>_bin`` (MySQL)."""
    if not _is_text(column):
        return column
    if backend == "sqlite":
        return column.collate("BINARY")
    charset = charsets.get((column.table.name.lower(), column.name.lower()), (None, None))[0]
    collation = binary_collation(charset)
    return column.collate(collation) if collation else column
