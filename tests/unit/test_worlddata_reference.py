"""The quest, item and gameobject reference tables of the packaged world data and the demo DB."""

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vba_assets.worlddata import ensure_demo_database
from vba_assets.worlddata.packaged import column_converter, iter_table_rows
from vba_assets.worlddata.schema import (
    REFERENCE_TABLES,
    create_table_statements,
    mariadb_dialect,
    quest_template,
)


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield ensure_demo_database(cache_root=tmp_path_factory.mktemp("cache"))


def query(db: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return list(connection.execute(sql, params))
    finally:
        connection.close()


def test_reference_rows_are_the_sources_spot_checks(demo_db: Path) -> None:
    # The spot checks of ../shared/data/wotlk/SOURCE.md, read back from the built DB.
    assert query(
        demo_db, "SELECT LogTitle, MinLevel, QuestLevel FROM quest_template WHERE ID IN (2, 11117)"
    ) == [("Sharptalon's Claw", 20, 30), ("Catch the Wild Wolpertinger!", 1, -1)]
    assert query(
        demo_db, "SELECT Title FROM quest_template_locale WHERE ID = 11117 AND locale = 'deDE'"
    ) == [("Fangt die wilden Wolpertinger!",)]
    assert query(demo_db, "SELECT name FROM item_template WHERE entry = 14940") == [
        ("Warbringer's Sabatons ",)  # the trailing space is the source's, kept
    ]
    assert query(
        demo_db, "SELECT Name FROM item_template_locale WHERE ID = 25 AND locale = 'deDE'"
    ) == [("Abgenutztes Kurzschwert",)]  # an id only in the locale file
    assert query(demo_db, "SELECT COUNT(*) FROM item_template WHERE entry = 25") == [(0,)]
    assert query(
        demo_db,
        "SELECT name FROM gameobject_template_locale WHERE entry = 1617 AND locale = 'zhTW'",
    ) == [("銀葉草",)]
    assert query(demo_db, "SELECT name FROM gameobject_template WHERE entry = 1617") == [
        ("Silverleaf",)
    ]


def test_empty_object_names_store_the_empty_string(demo_db: Path) -> None:
    assert query(demo_db, "SELECT COUNT(*) FROM gameobject_template WHERE name = ''") == [(874,)]
    assert query(demo_db, "SELECT name FROM gameobject_template WHERE entry = 3265") == [("",)]
    for table, column in (
        ("quest_template_locale", "Title"),
        ("item_template_locale", "Name"),
        ("gameobject_template_locale", "name"),
    ):
        assert query(demo_db, f"SELECT COUNT(*) FROM {table} WHERE {column} IS NULL") == [(0,)]


def test_quest_level_is_signed_and_bounded() -> None:
    convert = column_converter(quest_template.columns["QuestLevel"])
    assert convert("-1") == -1
    assert convert("82") == 82
    with pytest.raises(ValueError, match="below the column minimum"):
        convert("-32769")
    with pytest.raises(ValueError, match="expected a signed integer"):
        convert("1.5")
    unsigned = column_converter(quest_template.columns["MinLevel"])
    with pytest.raises(ValueError, match="unsigned integer"):
        unsigned("-1")
    levels = [row[3] for row in iter_table_rows(quest_template)]
    assert levels.count(-1) == 1_333  # SOURCE.md: QuestLevel -1 in 1,333 rows


def test_mariadb_ddl_has_the_azerothcore_names_and_shapes() -> None:
    ddl = dict(
        zip(
            [t.name for t in REFERENCE_TABLES],
            create_table_statements(mariadb_dialect())[-len(REFERENCE_TABLES) :],
            strict=True,
        )
    )
    assert "`QuestLevel` SMALLINT NOT NULL" in ddl["quest_template"]
    assert "`MinLevel` TINYINT UNSIGNED NOT NULL" in ddl["quest_template"]
    assert "`LogTitle` TEXT" in ddl["quest_template"]
    assert "PRIMARY KEY (`ID`, locale)" in ddl["quest_template_locale"]
    assert "name VARCHAR(255) NOT NULL" in ddl["item_template"]
    assert "PRIMARY KEY (`ID`, locale)" in ddl["item_template_locale"]
    assert "`Name` TEXT" in ddl["item_template_locale"]
    assert "name VARCHAR(100) NOT NULL" in ddl["gameobject_template"]
    assert "PRIMARY KEY (entry, locale)" in ddl["gameobject_template_locale"]
    for statement in ddl.values():
        assert "utf8mb4_unicode_ci" in statement
