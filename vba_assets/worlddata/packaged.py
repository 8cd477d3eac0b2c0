"""The packaged world data: the gzip CSVs in ``vba_assets/worlddata/data/`` and their manifest.

``scripts/derive_world_data.py`` writes them (see ``data/SOURCES.md``); the manifest pins every
file's rows, sha256 and columns. Every value is checked against the table definitions in
:mod:`vba_assets.worlddata.schema` while it is read; bad packaged data raises
:class:`~vba_assets.errors.InputError` with ``ErrorCode.WORLD_DATA_INVALID`` naming the file, line
and column. :mod:`vba_assets.worlddata.build` builds the demo SQLite database from them.
"""

import csv
import gzip
import hashlib
import json
import re
import zlib
from collections.abc import Callable, Iterator
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from sqlalchemy import Column, Table
from sqlalchemy.types import CHAR, VARCHAR, Integer

from vba_assets.errors import ErrorCode, InputError
from vba_assets.worlddata.schema import (
    INFO_MAX,
    INFO_MIN,
    WORLD_TABLES,
    csv_header,
    data_file_name,
    empty_field_value,
)

#: Name of the manifest that pins every packaged file (rows, sha256, columns).
MANIFEST_NAME = "manifest.json"

_DIGITS = re.compile(r"[0-9]+")
_SIGNED_DIGITS = re.compile(r"-?[0-9]+")

Converter = Callable[[str], Any]


def world_data_invalid(message: str, **detail: Any) -> InputError:
    """The error of bad packaged world data (``WORLD_DATA_INVALID``), naming ``detail``."""
    return InputError(ErrorCode.WORLD_DATA_INVALID, message, **detail)


def packaged_data_dir() -> Traversable:
    """The ``data/`` folder of this package (works from a checkout, a wheel or an egg)."""
    return files("vba_assets.worlddata") / "data"


def load_manifest(data_dir: Traversable | None = None) -> dict[str, Any]:
    """The parsed ``manifest.json`` of the packaged data, checked for the expected tables."""
    source = data_dir or packaged_data_dir()
    try:
        manifest = json.loads((source / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise world_data_invalid(
            f"packaged world data manifest unreadable: {exc}", file=MANIFEST_NAME
        ) from None
    tables = manifest.get("tables") if isinstance(manifest, dict) else None
    expected = {table.name for table in WORLD_TABLES}
    if not isinstance(manifest, dict) or not isinstance(tables, dict) or set(tables) != expected:
        raise world_data_invalid(
            f"{MANIFEST_NAME} must describe exactly the tables {sorted(expected)}",
            file=MANIFEST_NAME,
        )
    described: dict[str, Any] = manifest
    return described


def column_converter(column: Column[Any]) -> Converter:
    """A function that turns one CSV field into the value stored in ``column``."""
    empty_allowed, empty_value = empty_field_value(column)
    column_type = column.type
    if isinstance(column_type, Integer):
        maximum = int(column.info[INFO_MAX])
        minimum = int(column.info.get(INFO_MIN, 0))
        pattern = _DIGITS if minimum >= 0 else _SIGNED_DIGITS
        kind = "an unsigned" if minimum >= 0 else "a signed"

        def to_int(field: str) -> Any:
            if field == "" and empty_allowed:
                return empty_value
            if not pattern.fullmatch(field):
                raise ValueError(f"expected {kind} integer, got {field[:40]!r}")
            value = int(field)
            if value > maximum:
                raise ValueError(f"{value} exceeds the column maximum {maximum}")
            if value < minimum:
                raise ValueError(f"{value} is below the column minimum {minimum}")
            return value

        return to_int
    length = column_type.length if isinstance(column_type, (CHAR, VARCHAR)) else None

    def to_text(field: str) -> Any:
        if field == "":
            if not empty_allowed:
                raise ValueError("empty value in a required column")
            return empty_value
        if length is not None and len(field) > length:
            raise ValueError(f"{len(field)} characters exceed the column length {length}")
        return field

    return to_text


def iter_table_rows(
    table: Table, data_dir: Traversable | None = None, *, expected_rows: int | None = None
) -> Iterator[tuple[Any, ...]]:
    """Yield ``table``'s packaged rows as tuples in column order, converted and checked.

    Raises:
        InputError: ``WORLD_DATA_INVALID`` for an unreadable file, a wrong header, a bad value or,
            when ``expected_rows`` is given, a row count that differs from it.
    """
    file_name = data_file_name(table)
    source = (data_dir or packaged_data_dir()) / file_name
    columns = list(table.columns)
    converters = [column_converter(column) for column in columns]
    header = csv_header(table)
    count = 0
    try:
        with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="") as text:
            reader = csv.reader(text, strict=True)
            first = next(reader, None)
            if first != header:
                raise world_data_invalid(
                    f"{file_name}: header {first!r} is not {header!r}", file=file_name, line=1
                )
            for line, fields in enumerate(reader, start=2):
                if len(fields) != len(columns):
                    raise world_data_invalid(
                        f"{file_name}: line {line}: {len(fields)} fields, expected {len(columns)}",
                        file=file_name,
                        line=line,
                    )
                values = []
                for column, convert, field in zip(columns, converters, fields, strict=True):
                    try:
                        values.append(convert(field))
                    except ValueError as exc:
                        raise world_data_invalid(
                            f"{file_name}: line {line}: column {column.name}: {exc}",
                            file=file_name,
                            line=line,
                            column=column.name,
                        ) from None
                count += 1
                yield tuple(values)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, csv.Error) as exc:
        raise world_data_invalid(
            f"{file_name}: unreadable packaged data: {exc}", file=file_name
        ) from None
    if expected_rows is not None and count != expected_rows:
        raise world_data_invalid(
            f"{file_name}: {count} rows, the manifest says {expected_rows}",
            file=file_name,
            rows=count,
            expected=expected_rows,
        )


def verify_file_hashes(source: Traversable, manifest: dict[str, Any]) -> None:
    """Check every packaged file against its sha256 in the manifest."""
    for table in WORLD_TABLES:
        file_name = data_file_name(table)
        actual = hashlib.sha256((source / file_name).read_bytes()).hexdigest()
        if actual != manifest["tables"][table.name].get("sha256"):
            raise world_data_invalid(
                f"{file_name}: sha256 {actual} differs from {MANIFEST_NAME}; "
                "re-run scripts/derive_world_data.py",
                file=file_name,
            )
