"""The zone-marker query of grounded zone tie-breaks (protocol v6, issue 29 item 4).

For the creature entries that share a name in one capture, one literal, parameterized, read-only
statement over two allowlisted tables returns every zone they have spawn markers in, with every
name of that zone::

    SELECT m.entry, m.zone_id, m.marker_count, z.locale, z.name FROM creature_spawn_markers m
        LEFT OUTER JOIN zone_names z ON z.zone_id = m.zone_id
        WHERE m.entry IN (:identities)
    ORDER BY identity, zone_id, locale       -- a zone without a name row: one row, null name
    LIMIT :row_limit                         -- limit + 1: truncation check

Every identifier comes from the reflected allowlisted tables (:mod:`resources.world_db.schema`),
every value is bound. ``(entry, zone_id)`` is the markers' key and ``(zone_id, locale)`` the
names' key, so the order is total.

An AzerothCore world database has no marker table: its ``creature`` spawn rows carry ``zoneId``
(0 where the dump does not fill it), and zones are client data (AreaTable.dbc). An operator provides both as views or tables of the same shape (see
the README, "Grounded tie-breaks"); without them no zone breaks a tie.
"""

from typing import Any

from sqlalchemy import Select, Table, bindparam, literal_column, select
from sqlalchemy.sql import sqltypes

from resources.world_db.schema import find_column
from vba_assets.domain.catalog.world import SnapshotBinding, ZoneMarkerRow

#: The tables the statement reads.
ZONE_TABLES = ("creature_spawn_markers", "zone_names")


def zone_statement(tables: dict[str, Table]) -> Select[Any] | None:
    """The statement over the reflected ``tables``, or None when one of :data:`ZONE_TABLES` (or
    one of its columns) is not there: then no zone fact exists."""
    if any(name not in tables for name in ZONE_TABLES):
        return None
    markers, names = (tables[name] for name in ZONE_TABLES)
    found = [
        find_column(markers, "entry"),
        find_column(markers, "zone_id"),
        find_column(markers, "marker_count"),
        find_column(names, "zone_id"),
        find_column(names, "locale"),
        find_column(names, "name"),
    ]
    columns = [column for column in found if column is not None]
    if len(columns) != len(found):
        return None
    entry, zone_id, count, named_zone, locale, name = columns
    if not isinstance(zone_id.type, sqltypes.Integer):
        return None
    return (
        select(
            entry.label("identity"),
            zone_id.label("zone_id"),
            count.label("markers"),
            locale.label("locale"),
            name.label("name"),
        )
        .select_from(markers.outerjoin(names, named_zone == zone_id))
        .where(entry.in_(bindparam("identities", expanding=True)))
        .order_by(literal_column("identity"), literal_column("zone_id"), literal_column("locale"))
        .limit(bindparam("row_limit"))
    )


def to_zone_row(record: Any) -> ZoneMarkerRow:
    """A result record as a :class:`ZoneMarkerRow`."""
    identity, zone_id, markers, locale, name = tuple(record)
    return ZoneMarkerRow(
        identity=int(identity),
        zone_id=int(zone_id),
        markers=int(markers),
        locale=None if locale is None else str(locale),
        name=None if name is None else str(name),
    )


def zone_coverage_notes(binding: SnapshotBinding, limit: int, truncated: bool) -> list[str]:
    """What a zone-marker capture can and cannot say."""
    notes = [
        "zone markers: every row of creature_spawn_markers whose entry is one of the identities, "
        "joined with every zone_names row of its zone (locale and name null when the zone has "
        "no name row)",
        "order: identity, zone id, locale",
        f"a miss is scoped to these tables and snapshot '{binding.label}' (schema "
        f"{binding.schema_fingerprint[:16]}): markers list where an addon shows a creature, not "
        "every place it spawns on the running server",
    ]
    if truncated:
        notes.append(f"truncated: more than {limit} rows matched; only the first {limit} are kept")
    return notes
