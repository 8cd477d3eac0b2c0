"""The world-DB seam is checked by mypy: an adapter missing a method the stages call is rejected.

``ReadOnlyWorldDatabase`` (vba_assets/domain/catalog/world.py) is what the Dagster resource yields
and what every stage receives. This test type-checks two small snippets with the project's own mypy
settings: the real adapter satisfies the Protocol, and one without ``identity_search`` (the method a
forwarding Dagster resource once lacked, with every other method present so that it is the one
member mypy names) does not.
"""

from pathlib import Path

import pytest
from mypy import api

REPO = Path(__file__).resolve().parents[2]

HEADER = """
from vba_assets.domain.catalog.world import (
    CatalogRow, ReadOnlyWorldDatabase, RelationResult, SearchResult, SnapshotBinding, ZoneResult,
)
from collections.abc import Sequence
from resources.world_db import WorldDatabase
"""

PARTIAL_ADAPTER = """
class Forwarder:
    def contains_search(self, catalog: str, term: str, limit: int) -> SearchResult: ...
    def fetch_by_identity(self, catalog: str, identity: int | str) -> list[CatalogRow]: ...
    def exact_name_search(self, catalog: str, term: str, limit: int) -> SearchResult: ...
    def quest_relations(
        self, identities: Sequence[int], limit: int
    ) -> RelationResult | None: ...
    def zone_markers(self, identities: Sequence[int], limit: int) -> ZoneResult | None: ...
    def snapshot_binding(self) -> SnapshotBinding: ...
    def close(self) -> None: ...
"""


def _mypy(tmp_path: Path, body: str) -> tuple[str, int]:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(HEADER + body, encoding="utf-8")
    stdout, stderr, status = api.run(
        ["--config-file", str(REPO / "pyproject.toml"), "--strict", str(snippet)]
    )
    return stdout + stderr, status


@pytest.mark.slow
def test_the_real_adapter_is_a_read_only_world_database(tmp_path: Path) -> None:
    output, status = _mypy(
        tmp_path, "def seam(db: WorldDatabase) -> ReadOnlyWorldDatabase:\n    return db\n"
    )
    assert status == 0, output


@pytest.mark.slow
def test_an_adapter_without_identity_search_is_rejected(tmp_path: Path) -> None:
    body = PARTIAL_ADAPTER + "def seam(db: Forwarder) -> ReadOnlyWorldDatabase:\n    return db\n"
    output, status = _mypy(tmp_path, body)
    assert status == 1
    assert 'Incompatible return value type (got "Forwarder", expected "ReadOnlyWorldDatabase")' in (
        output
    )
    assert "identity_search" in output
