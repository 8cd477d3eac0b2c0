"""The quest-relation query of grounded tie-breaks (protocol v6) on MariaDB equals SQLite's.

A throwaway ``mariadbd`` (tests/integration/mariadb_instance.py) and a SQLite file hold the unit
tests' fixture rows plus a few quest titles (English, two locales, one NULL title); the relation
query (:mod:`resources.world_db.relations`) must return the same rows in the same order, with the
same truncation, on both: a capture made on either backend grounds the same tie-break.
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

QUESTS: list[dict[str, Any]] = [
    {"ID": 11117, "LogTitle": "Catch the Wild Wolpertinger!", "MinLevel": 1, "QuestLevel": 70},
    {"ID": 11118, "LogTitle": "Pink Elekks On Parade", "MinLevel": 1, "QuestLevel": 70},
    {"ID": 11120, "LogTitle": None, "MinLevel": 1, "QuestLevel": 70},
    {"ID": 11431, "LogTitle": "Catch the Wild Wolpertinger!", "MinLevel": 1, "QuestLevel": 70},
]
QUEST_LOCALES = [
    {"ID": 11117, "locale": "deDE", "Title": "Fangt den wilden Wolpertinger!"},
    {"ID": 11117, "locale": "ruRU", "Title": "Поймать дикого вольпертингера!"},
    {"ID": 11120, "locale": "frFR", "Title": "Défilé des élekks roses"},
]


def load_world(url: str, **engine_args: Any) -> None:
    """The fixture rows, then the quest titles."""
    fixture_rows.load_world(url, **engine_args)
    engine = create_engine(url, **engine_args)
    try:
        with engine.begin() as connection:
            connection.execute(insert(schema.quest_template), QUESTS)
            connection.execute(insert(schema.quest_template_locale), QUEST_LOCALES)
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


def test_the_relation_query_gives_the_same_rows_on_both_backends(
    pair: tuple[WorldDatabase, WorldDatabase],
) -> None:
    sqlite, mariadb = pair
    for identities, limit in (([23486, 24657], 1000), ([24657, 23486, 24634], 3), ([1], 10)):
        lite, maria = (
            sqlite.quest_relations(identities, limit),
            mariadb.quest_relations(identities, limit),
        )
        assert lite is not None and maria is not None
        assert [r.model_dump() for r in maria.rows] == [r.model_dump() for r in lite.rows]
        assert maria.truncated == lite.truncated
        assert "'" not in maria.sql and maria.parameters["row_limit"] == limit + 1
    full = sqlite.quest_relations([23486, 24657], 1000)
    assert full is not None
    assert [(r.identity, r.relation, r.quest, r.locale) for r in full.rows][:4] == [
        (23486, "starts", 11117, None),
        (23486, "starts", 11117, "deDE"),
        (23486, "starts", 11117, "ruRU"),
        (23486, "starts", 11118, None),
    ]
    assert all(r.title for r in full.rows)  # the NULL LogTitle of 11120 is skipped
    assert (24657, "starts", 11120, "frFR") in [
        (r.identity, r.relation, r.quest, r.locale) for r in full.rows
    ]
