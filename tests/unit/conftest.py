"""Fixtures shared by the unit tests."""

from collections.abc import Iterator

import pytest

from resources.llm.heuristic_index import packaged_name_index
from resources.world_db import WorldDatabase
from vba_assets.config import embedded_project_config
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.worlddata.build import ensure_demo_database


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorldDatabase]:
    """The embedded demo world DB (read-only), opened once for the session."""
    ensure_demo_database()
    database = WorldDatabase.from_config(embedded_project_config(tmp_path_factory.mktemp("ws")))
    yield database
    database.close()


@pytest.fixture(scope="session")
def names() -> NameIndex:
    """The heuristic's name index of the packaged demo world data, built once for the session."""
    return packaged_name_index()
