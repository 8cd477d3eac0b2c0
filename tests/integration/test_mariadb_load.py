"""The MariaDB world DB made by scripts/mariadb_setup.sh, seen through the read-only account.

Runs only when ``VBA_TEST_PROJECT_CONFIG`` names a project config for that database
(``eval "$(scripts/mariadb_setup.sh)"`` exports it together with the password).
"""

import csv
import gzip
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest
from sqlalchemy.engine import make_url

from vba_assets.config import load_project_config
from vba_assets.worlddata import WORLD_TABLE_NAMES

CONFIG_ENV = "VBA_TEST_PROJECT_CONFIG"
DATA_DIR = Path(__file__).resolve().parents[2] / "vba_assets" / "worlddata" / "data"
ACCESS_DENIED = {1044, 1142, 1227}  # db / table / specific privilege denied

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not os.environ.get(CONFIG_ENV), reason=f"{CONFIG_ENV} is not set"),
]


@pytest.fixture(scope="module")
def reader() -> Iterator[Any]:
    config = load_project_config(os.environ[CONFIG_ENV])
    url = make_url(config.database.url)
    assert url.get_backend_name() in {"mysql", "mariadb"}, "this test needs a MariaDB config"
    connection = pymysql.connect(
        host=url.host,
        port=url.port or 3306,
        user=url.username,
        password=config.database.password() or "",
        database=url.database,
        charset="utf8mb4",
        connect_timeout=5,
        read_timeout=30,
        write_timeout=30,
        autocommit=True,
    )
    try:
        yield connection
    finally:
        connection.close()


def rows(connection: Any, sql: str, *params: object) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or None)
        return list(cursor.fetchall())


def packaged_count(table: str) -> int:
    with gzip.open(DATA_DIR / f"{table}.csv.gz", "rt", encoding="utf-8", newline="") as handle:
        return sum(1 for _ in csv.reader(handle)) - 1


def test_row_counts_equal_the_packaged_csvs(reader: Any) -> None:
    for table in WORLD_TABLE_NAMES:
        assert rows(reader, f"SELECT COUNT(*) FROM `{table}`") == [(packaged_count(table),)], table


def test_spot_rows_and_utf8(reader: Any) -> None:
    names = dict(
        rows(reader, "SELECT entry, name FROM creature_template WHERE entry IN (23486, 23487)")
    )
    assert names == {23486: "Goldark Snipehunter", 23487: "Wild Wolpertinger"}
    assert rows(
        reader, "SELECT name, subname, faction FROM creature_template WHERE entry = 24657"
    ) == [("Glodrak Huntsniper", None, 775)]
    localized = dict(
        rows(reader, "SELECT locale, Name FROM creature_template_locale WHERE entry = %s", 23487)
    )
    assert localized["deDE"] == "Wilder Wolpertinger"
    assert localized["koKR"] == "야생 노루토끼"
    assert localized["zhTW"] == "野生鹿角兔"
    starters = rows(
        reader, "SELECT id, quest FROM creature_queststarter WHERE id IN (23486, 24657)"
    )
    assert (23486, 11117) in starters
    assert (24657, 11431) in starters


def test_collation_is_utf8mb4_unicode_ci(reader: Any) -> None:
    collations = rows(
        reader,
        "SELECT TABLE_NAME, TABLE_COLLATION FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME",
    )
    assert collations == [(table, "utf8mb4_unicode_ci") for table in sorted(WORLD_TABLE_NAMES)]
    wolpertingers = rows(
        reader, "SELECT entry FROM creature_template WHERE name LIKE %s ORDER BY entry", "%WOLPERT%"
    )
    assert wolpertingers == [(22943,), (23487,)]  # case-insensitive, unlike SQLite's BINARY '='


def test_reader_holds_select_on_the_world_tables_only(reader: Any) -> None:
    grants = [row[0] for row in rows(reader, "SHOW GRANTS FOR CURRENT_USER()")]
    database = rows(reader, "SELECT DATABASE()")[0][0]
    usage = [grant for grant in grants if grant.startswith("GRANT USAGE ON *.* TO ")]
    selects = sorted(grant.split(" TO ")[0] for grant in grants if grant not in usage)
    assert len(usage) == 1 and "WITH GRANT OPTION" not in usage[0]
    assert selects == sorted(
        f"GRANT SELECT ON `{database}`.`{table}`" for table in WORLD_TABLE_NAMES
    )


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO creature_template (entry, name, minlevel, maxlevel, `rank`, faction, npcflag) "
        "VALUES (4000000, 'Intruder', 1, 1, 0, 0, 0)",
        "UPDATE creature_template SET name = 'Tame Wolpertinger' WHERE entry = 23487",
        "DELETE FROM creature_queststarter WHERE id = 23486",
        "CREATE TABLE vba_reader_probe (id INT)",
        "DROP TABLE creature_spawn_markers",
        "CREATE DATABASE vba_reader_probe",
        "CREATE DATABASE test_vba_reader_probe",
        "CREATE TABLE test.vba_reader_probe (id INT)",
        "CREATE TABLE test_probe.vba_reader_probe (id INT)",
    ],
)
def test_writes_as_the_reader_are_denied(reader: Any, statement: str) -> None:
    with pytest.raises(pymysql.err.MySQLError) as raised:
        rows(reader, statement)
    assert raised.value.args[0] in ACCESS_DENIED, raised.value.args
    assert rows(reader, "SELECT name FROM creature_template WHERE entry = 23487") == [
        ("Wild Wolpertinger",)
    ]
