"""The zone-marker query of grounded zone tie-breaks (protocol v6) on MariaDB equals SQLite's.

A throwaway ``mariadbd`` (tests/integration/mariadb_instance.py) and a SQLite file hold the unit
tests' fixture rows (spawn markers of three entries in zones 1 and 14) plus made-up zone names
(English and two locales for zone 1; zone 7 has a name but no marker; marker zone 14 has no
name, so its rows carry a null locale and name); the zone query (:mod:`resources.world_db.zones`) must return the
same rows in the same order, with the same truncation, on both: a capture made on either backend
grounds the same zone tie-break.
"""

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import create_engine, insert

from resources.world_db import WorldDatabase
from tests.integration.conftest import ThrowawayWorld, start_throwaway_world
from tests.unit import test_world_db_sqlite as fixture_rows
from vba_assets.worlddata import schema

pytestmark = pytest.mark.mariadb

ZONES: list[dict[str, Any]] = [
    {"zone_id": 1, "locale": "enUS", "name": "Dun Morogh"},
    {"zone_id": 1, "locale": "deDE", "name": "Dun Morogh"},
    {"zone_id": 1, "locale": "frFR", "name": "Dun Morogh"},
    {"zone_id": 7, "locale": "enUS", "name": "Blackwater Cove"},
]


def load_world(url: str, **engine_args: Any) -> None:
    """The fixture rows, then the zone names."""
    fixture_rows.load_world(url, **engine_args)
    engine = create_engine(url, **engine_args)
    try:
        with engine.begin() as connection:
            connection.execute(insert(schema.zone_names), ZONES)
    finally:
        engine.dispose()


ROWS = SimpleNamespace(load_world=load_world)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WorldDatabase, WorldDatabase]]:
    for world in start_throwaway_world(ROWS):  # type: ignore[arg-type]
        assert isinstance(world, ThrowawayWorld)
        path: Path = tmp_path_factory.mktemp("twin") / "world.sqlite"
        load_world(f"sqlite:///{path}")
        sqlite = WorldDatabase(fixture_rows.database_config(path), fixture_rows.catalogs())
        mariadb = WorldDatabase(world.database_config(), fixture_rows.catalogs())
        yield sqlite, mariadb
        sqlite.close()
        mariadb.close()


def test_the_zone_query_gives_the_same_rows_on_both_backends(
    pair: tuple[WorldDatabase, WorldDatabase],
) -> None:
    sqlite, mariadb = pair
    for identities, limit in (([23486, 23487, 24657], 1000), ([24657, 23487], 3), ([1], 10)):
        lite, maria = (
            sqlite.zone_markers(identities, limit),
            mariadb.zone_markers(identities, limit),
        )
        assert lite is not None and maria is not None
        assert [r.model_dump() for r in maria.rows] == [r.model_dump() for r in lite.rows]
        assert maria.truncated == lite.truncated
        assert "'" not in maria.sql and maria.parameters["row_limit"] == limit + 1
    full = sqlite.zone_markers([23486, 23487, 24657], 1000)
    assert full is not None and not full.truncated
    assert [(r.identity, r.zone_id, r.locale) for r in full.rows] == [
        (23486, 1, "deDE"),
        (23486, 1, "enUS"),
        (23486, 1, "frFR"),
        (23487, 1, "deDE"),
        (23487, 1, "enUS"),
        (23487, 1, "frFR"),
        (23487, 14, None),
        (24657, 14, None),
    ]
    assert [r.name for r in full.rows if r.zone_id == 14] == [None, None]
    assert all(r.zone_id != 7 for r in full.rows)  # a named zone without markers is no row
