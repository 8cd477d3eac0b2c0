"""The exact-name query (protocol v6) on MariaDB gives the rows the embedded SQLite demo gives.

Runs when ``VBA_TEST_PROJECT_CONFIG`` names the project config of the demo world on MariaDB
(``eval "$(scripts/mariadb_setup.sh)"``); the catalogs and data are the embedded demo's, so each
term must give the same rows, in the same order, with the same truncation on both backends; the
SQL binds the term (no literal); the query runs in the reader's read-only session; the coverage
notes record the column collation as the contains capture's do.
"""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from resources.world_db import WorldDatabase
from vba_assets.config import embedded_project_config, load_project_config

pytestmark = pytest.mark.mariadb

TERMS = ["Onyxia", "ONYXIA", "onyxia", "Tirion Fordring", "Thrall", "Kel'Thuzad", "Hogger",
         "Wild Wolpertinger", "Arthas", "%", "_", "' OR 1=1 --", "Onyx", "Varian Wrynn"]  # fmt: skip


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WorldDatabase, WorldDatabase]]:
    source = os.environ.get("VBA_TEST_PROJECT_CONFIG")
    if not source:
        pytest.skip("VBA_TEST_PROJECT_CONFIG is not set (MariaDB world DB)")
    project = load_project_config(Path(source))
    assert project.database.url.startswith("mysql")
    embedded = embedded_project_config(tmp_path_factory.mktemp("ws"))
    sqlite = WorldDatabase(embedded.database, project.catalogs)
    mariadb = WorldDatabase.from_config(project)
    yield sqlite, mariadb
    sqlite.close()
    mariadb.close()


def test_exact_name_rows_match_sqlite(pair: tuple[WorldDatabase, WorldDatabase]) -> None:
    sqlite, mariadb = pair
    for catalog in ("creature_name", "creature_localized_name"):
        for term in TERMS:
            lite = sqlite.exact_name_search(catalog, term, 8)
            maria = mariadb.exact_name_search(catalog, term, 8)
            assert maria.rows == lite.rows and maria.truncated == lite.truncated, (catalog, term)
    onyxia = mariadb.exact_name_search("creature_name", "onyxia", 8)
    assert [(r.identity, r.name) for r in onyxia.rows] == [(10184, "Onyxia")]
    assert mariadb.contains_search("creature_name", "Onyxia", 8).truncated


def test_the_query_is_parameterized_read_only_and_notes_the_collation(
    pair: tuple[WorldDatabase, WorldDatabase],
) -> None:
    _, mariadb = pair
    result = mariadb.exact_name_search("creature_name", "' OR 1=1 --", 8)
    assert result.rows == [] and "'" not in result.sql and " LIKE " not in result.sql
    assert result.parameters["term"] == "' OR 1=1 --" and result.parameters["row_limit"] == 9
    assert "utf8mb4" in result.coverage_notes[0]  # the column collation, as contains records it
    contains = mariadb.contains_search("creature_name", "Onyxia", 8)
    assert result.coverage_notes[0] == contains.coverage_notes[0]
    with mariadb._engine().connect() as connection:
        (read_only,) = connection.exec_driver_sql("SELECT @@SESSION.tx_read_only").one()
    assert read_only == 1
