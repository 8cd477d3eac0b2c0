"""``LOAD DATA LOCAL INFILE`` through the world DB's MariaDB connection is a read-only refusal.

The resource never sends such a statement (it has no raw-SQL method), but a connection that allows
it would let the server ask the client for any local file. The client is configured with
``local_infile`` off, and the statement is refused as ``READ_ONLY_VIOLATION`` before it reaches
the server: never reported as an outage (``RESEARCH_UNAVAILABLE``), which would be retried.
A throwaway MariaDB server (tests/integration/mariadb_instance.py) plays the operator's.
"""

from pathlib import Path

import pytest

from resources.world_db import WorldDatabase
from resources.world_db.mysql import connect_arguments
from tests.integration.conftest import ThrowawayWorld
from vba_assets.errors import ErrorCode, ReadOnlyViolation

pytestmark = pytest.mark.mariadb

STATEMENTS = [
    "LOAD DATA LOCAL INFILE '{path}' INTO TABLE creature_template",
    "load data local infile '{path}' into table creature_template",
    "/* a comment */ LOAD DATA LOCAL INFILE '{path}' INTO TABLE creature_template",
    "LOAD DATA INFILE '{path}' INTO TABLE creature_template",
    "LOAD XML LOCAL INFILE '{path}' INTO TABLE creature_template",
]


def test_the_client_never_offers_local_files(throwaway_world: ThrowawayWorld) -> None:
    arguments = connect_arguments(throwaway_world.database_config())
    assert arguments["local_infile"] is False


@pytest.mark.parametrize("statement", STATEMENTS)
def test_load_data_through_the_connection_is_a_read_only_refusal(
    throwaway_world: ThrowawayWorld, tmp_path: Path, statement: str
) -> None:
    secret_file = tmp_path / "secret.tsv"
    secret_file.write_text("1\tstolen\n")
    database = WorldDatabase(throwaway_world.database_config(), throwaway_world.rows.catalogs())
    try:
        with (
            database._engine().connect() as connection,
            pytest.raises(ReadOnlyViolation) as refused,
        ):
            connection.exec_driver_sql(statement.format(path=secret_file))
        assert refused.value.code is ErrorCode.READ_ONLY_VIOLATION
        # the resource still works afterwards, and nothing was loaded
        assert database.contains_search("creature_name", "stolen", 5).rows == []
    finally:
        database.close()
