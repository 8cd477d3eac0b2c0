"""Statements, input checks, row conversion and coverage notes of the world database.

Statements are SQLAlchemy Core built from reflected tables (:mod:`resources.world_db.schema`);
every value is a bound parameter (``:pattern``, ``:term``, ``:row_limit``, ``:identity``, and
``:index_pattern`` for the trigram pre-filter of :func:`indexed_search_statement`).
"""

import math
import re
from datetime import date, datetime
from datetime import time as clock_time
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, bindparam, case, column, func, literal_column, select, table, tuple_
from sqlalchemy.sql import sqltypes

from resources.world_db.mysql import binary_collation, describe_collation
from resources.world_db.schema import BoundCatalog, Charsets, binary_order
from resources.world_db.trigram import TrigramIndex
from vba_assets.domain.catalog.search_key import SEARCH_KEY_FUNCTION, search_key
from vba_assets.domain.catalog.world import CatalogRow, Scalar, SnapshotBinding
from vba_assets.errors import ErrorCode, InputError

#: Longest accepted search term, in characters (code points).
MAX_TERM_LENGTH = 200
#: Largest accepted row limit of one search.
MAX_ROW_LIMIT = 1000

SQLITE_CASE_NOTE = (
    f"backend sqlite: names and the term are compared by {SEARCH_KEY_FUNCTION}(): lower case in "
    "every script and no accents, as utf8mb4_unicode_ci ('etalon' matches 'Étalon', 'ДИКИЙ' "
    "matches 'Дикий', 'елка' matches 'Ёлка'; 'й' stays a letter of its own); 'ß' is not "
    "expanded ('strasse' does not match 'Straße'); zero-width and bidi characters are kept"
)
#: The order of a capture's rows on SQLite (the exact match compares search keys).
SQLITE_ORDER_NOTE = (
    f"order: exact match of {SEARCH_KEY_FUNCTION}(name) and {SEARCH_KEY_FUNCTION}(term) first, "
    "then shorter name (characters), then name in code-point order, then identity"
)
#: The order of a capture's rows on MariaDB/MySQL (``=`` under the column's collation).
MYSQL_ORDER_NOTE = (
    "order: exact match of lower(name) and lower(term) first, then shorter name "
    "(characters), then name in code-point order, then identity"
)

_INTEGER_TEXT = re.compile(r"^[+-]?[0-9]{1,20}$")


def invalid(message: str, **detail: Any) -> InputError:
    """An :class:`InputError` for a search term, limit or identity that cannot be used."""
    return InputError(ErrorCode.RESEARCH_QUERY_INVALID, message, **detail)


def like_pattern(term: str) -> str:
    """``%term%`` with ``\\``, ``%`` and ``_`` escaped (escape character ``\\``)."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def validate_term(term: object) -> str:
    """The term, unchanged, if it can be searched; else :class:`InputError`.

    Empty or whitespace-only terms, terms over :data:`MAX_TERM_LENGTH` characters and text that
    is not valid Unicode (lone surrogates) are refused; everything else is searched literally.
    """
    if not isinstance(term, str):
        raise invalid(f"the search term must be a string, not {type(term).__name__}")
    if not term.strip():
        raise invalid("the search term is empty (or only whitespace)", length=len(term))
    if len(term) > MAX_TERM_LENGTH:
        raise invalid(
            f"the search term has {len(term)} characters; at most {MAX_TERM_LENGTH} are allowed",
            length=len(term),
        )
    try:
        term.encode("utf-8")
    except UnicodeEncodeError:
        raise invalid("the search term is not valid Unicode text (lone surrogate)") from None
    return term


def validate_limit(limit: object) -> int:
    """The row limit if it is an integer from 1 to :data:`MAX_ROW_LIMIT`."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_ROW_LIMIT:
        raise invalid(f"the row limit must be an integer from 1 to {MAX_ROW_LIMIT}")
    return limit


def coerce_identity(bound: BoundCatalog, identity: object) -> int | str:
    """``identity`` as the identity column's type (``"24657"`` -> 24657 for integer columns)."""
    if isinstance(identity, bool) or not isinstance(identity, int | str):
        raise invalid(f"an identity must be an integer or a string, not {type(identity).__name__}")
    if isinstance(bound.identity.type, sqltypes.Integer):
        if isinstance(identity, int):
            return identity
        if _INTEGER_TEXT.match(identity.strip()):
            return int(identity.strip())
        raise invalid(
            f"catalog {bound.config.name!r} has integer identities; {identity[:40]!r} is not one"
        )
    return str(identity) if isinstance(bound.identity.type, sqltypes.String) else identity


def scalar(value: Any) -> Scalar:
    """A database value as a JSON-safe scalar."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, datetime | date | clock_time):
        return value.isoformat()
    return str(value)


def to_row(bound: BoundCatalog, record: Any) -> CatalogRow:
    """A result record (identity, name, data columns...) as a :class:`CatalogRow`."""
    values = tuple(record)
    identity = scalar(values[0])
    if not isinstance(identity, int) or isinstance(identity, bool):
        identity = str(identity)
    data = {key: scalar(values[2 + index]) for index, (key, _) in enumerate(bound.data)}
    return CatalogRow(identity=identity, name=str(values[1]), data=data)


def _columns(bound: BoundCatalog) -> Select[Any]:
    return select(
        bound.identity.label("identity"),
        bound.name.label("name"),
        *(column.label(f"data_{index}") for index, (_, column) in enumerate(bound.data)),
    )


def search_pattern(term: str, backend: str) -> str:
    """The ``:pattern`` of a contains search: on SQLite, of the term's search key."""
    return like_pattern(search_key(term) if backend == "sqlite" else term)


def _exact_test(bound: BoundCatalog, backend: str) -> tuple[Any, Any, Any]:
    """``(compared, exact, length)`` of a name query: the expression a contains pattern is
    matched against, the "name equals ``:term``" test (SQLite: search keys; MariaDB/MySQL:
    ``lower()`` under the column's collation) and the name's length in characters."""
    name = bound.name
    if backend == "sqlite":
        key = getattr(func, SEARCH_KEY_FUNCTION)
        return key(name), key(name) == key(bindparam("term")), func.length(name)
    return name, func.lower(name) == func.lower(bindparam("term")), func.char_length(name)


def _ordered(
    bound: BoundCatalog, backend: str, charsets: Charsets, first: Any, condition: Any
) -> Select[Any]:
    """The catalog's columns where ``condition``, ordered by ``first`` (when given), then length,
    code point, identity and key, limited to ``:row_limit``."""
    name = bound.name
    _, _, length = _exact_test(bound, backend)
    return (
        _columns(bound)
        .where(name.is_not(None), condition)
        .order_by(
            *(() if first is None else (first,)),
            length,
            binary_order(name, backend, charsets, binary_collation),
            bound.identity,
            *(binary_order(c, backend, charsets, binary_collation) for c in bound.tie_breakers),
        )
        .limit(bindparam("row_limit"))
    )


def _index_prefilter(bound: BoundCatalog, index: TrigramIndex) -> Any:
    """``<key> IN (<trigram index candidates of :index_pattern>)``: a superset of the rows whose
    search key contains the term (see :mod:`resources.world_db.trigram`)."""
    fts = table(index.table, *(column(name) for name in (index.name_column, *index.key_columns)))
    candidates = select(*(fts.c[key] for key in index.key_columns)).where(
        fts.c[index.name_column].like(bindparam("index_pattern"))
    )
    keys = [bound.table.c[key] for key in index.key_columns]
    key = keys[0] if len(keys) == 1 else tuple_(*keys)
    return key.in_(candidates)


def search_statement(bound: BoundCatalog, backend: str, charsets: Charsets) -> Select[Any]:
    """The literal contains search, ordered exact, length, code point, identity, key.

    SQLite compares search keys (``vba_search_key(name) LIKE :pattern``, the pattern made of the
    term's key: :func:`search_pattern`); MariaDB/MySQL compare under the name column's collation.
    """
    compared, exact, _ = _exact_test(bound, backend)
    exact_first = case((exact, literal_column("0")), else_=literal_column("1"))
    matches = compared.like(bindparam("pattern"), escape="\\")
    return _ordered(bound, backend, charsets, exact_first, matches)


def indexed_search_statement(
    bound: BoundCatalog, index: TrigramIndex, charsets: Charsets
) -> Select[Any]:
    """:func:`search_statement` (SQLite) plus ``<key> IN (<trigram index candidates>)``.

    The candidates are the primary keys whose indexed name matches ``:index_pattern`` (see
    :func:`resources.world_db.trigram.index_pattern`), a superset of the literal matches, so the
    rows, their order and the truncation equal the plain statement's (proof:
    :mod:`resources.world_db.trigram`).
    """
    return search_statement(bound, "sqlite", charsets).where(_index_prefilter(bound, index))


def exact_statement(bound: BoundCatalog, backend: str, charsets: Charsets) -> Select[Any]:
    """The literal exact-name query (protocol v6): the rows whose name equals ``:term`` under the
    contains search's own "exact match" test, in its order without the exact-first key.

    SQLite compares search keys (``vba_search_key(name) = vba_search_key(:term)``); MariaDB/MySQL
    compare ``lower(name) = lower(:term)`` under the name column's collation. Limited to
    ``:row_limit`` (``max_candidates + 1``: truncation is detected).
    """
    _, exact, _ = _exact_test(bound, backend)
    return _ordered(bound, backend, charsets, None, exact)


def indexed_exact_statement(
    bound: BoundCatalog, index: TrigramIndex, charsets: Charsets
) -> Select[Any]:
    """:func:`exact_statement` (SQLite) plus the trigram pre-filter of
    :func:`indexed_search_statement`: the rows whose key equals the term's key are among those
    whose key contains it, so the pre-filter (a superset of the contains matches) keeps them all."""
    return exact_statement(bound, "sqlite", charsets).where(_index_prefilter(bound, index))


def fetch_statement(bound: BoundCatalog, backend: str, charsets: Charsets) -> Select[Any]:
    """Every row with ``:identity`` and a non-NULL name, in key order, then name."""
    return (
        _columns(bound)
        .where(bound.identity == bindparam("identity"), bound.name.is_not(None))
        .order_by(
            *(binary_order(c, backend, charsets, binary_collation) for c in bound.tie_breakers),
            binary_order(bound.name, backend, charsets, binary_collation),
        )
    )


def case_note(bound: BoundCatalog, backend: str) -> str:
    """The backend's case and accent behaviour for ``bound``'s name column."""
    if backend == "sqlite":
        return SQLITE_CASE_NOTE
    where = f"{bound.table.name}.{bound.name.name}"
    return f"backend mysql, {where}: {describe_collation(bound.name_collation)}"


def coverage_notes(
    bound: BoundCatalog, backend: str, binding: SnapshotBinding, limit: int, truncated: bool
) -> list[str]:
    """What a capture can and cannot say (ARCHITECTURE 6.2)."""
    where = f"{bound.table.name}.{bound.name.name}"
    notes = [
        case_note(bound, backend),
        f"literal contains filter: the term anywhere in {where}, with '%', '_' and '\\' "
        "matched literally; rows whose name is NULL are never returned",
        SQLITE_ORDER_NOTE if backend == "sqlite" else MYSQL_ORDER_NOTE,
        f"a miss is scoped to catalog '{bound.config.name}', this filter and snapshot "
        f"'{binding.label}' (schema {binding.schema_fingerprint[:16]}); it never proves that "
        "an entity is absent from the running world",
    ]
    if truncated:
        notes.append(f"truncated: more than {limit} rows matched; only the first {limit} are kept")
    return notes


def exact_coverage_notes(
    bound: BoundCatalog, backend: str, binding: SnapshotBinding, limit: int, truncated: bool
) -> list[str]:
    """What an exact-name capture (protocol v6: the completion of a truncated search, or a
    batched name's capture) can and cannot say."""
    where = f"{bound.table.name}.{bound.name.name}"
    equal = (
        f"{SEARCH_KEY_FUNCTION}(name) = {SEARCH_KEY_FUNCTION}(term)"
        if backend == "sqlite"
        else "lower(name) = lower(term) under the column collation"
    )
    notes = [
        case_note(bound, backend),
        f"literal exact-name filter: the rows whose {where} equals the term ({equal}, the "
        "contains search's own exact-match test); rows whose name is NULL are never returned",
        "order: shorter name (characters), then name in code-point order, then identity",
        "when this capture is complete, it holds every row of this catalog and snapshot whose "
        "name equals the term (it completes a truncated contains search of the same term, or "
        "looks up a name the plan left unsearched); it finds no misspelled, partial or "
        "inflected form of the name",
        f"a miss is scoped to catalog '{bound.config.name}', this filter and snapshot "
        f"'{binding.label}' (schema {binding.schema_fingerprint[:16]}); it never proves that "
        "an entity is absent from the running world",
    ]
    if truncated:
        notes.append(f"truncated: more than {limit} rows matched; only the first {limit} are kept")
    return notes


def identity_coverage_notes(
    bound: BoundCatalog, backend: str, binding: SnapshotBinding, identity: int | str
) -> list[str]:
    """What an identity-reference capture can and cannot say (protocol v4)."""
    where = f"{bound.table.name}.{bound.identity.name}"
    return [
        case_note(bound, backend),
        f"fetch by identity: every row with {where} = {identity!r} and a non-NULL name "
        "(one per locale in a localized catalog), in key order; never cut by the row limit",
        "the identity is what the report links: it proves only what was linked, not that the "
        "report means it; the report's words must agree with one of these names",
        f"a miss is scoped to catalog '{bound.config.name}' and snapshot '{binding.label}' "
        f"(schema {binding.schema_fingerprint[:16]}); it never proves that an entity is absent "
        "from the running world",
    ]
