"""A database outage in the middle of the batched exact-name captures (protocol v6, issue 29
item 5) through the ``interpret_cases`` job: a real (temporary) Dagster instance, the embedded
world DB behind a resource that fails one query the way an outage does, and the heuristic
provider (its replies test plumbing here: the same plan on both runs, not model quality).

The report of :mod:`tests.dagster.test_batched_names` names seven creatures; ``max_searches`` 4
leaves three to batched exact-name captures (``Q5``-``Q7``). The second batched query fails with
``RESEARCH_UNAVAILABLE``: the step blocks at ``resolution_captures`` with the captures made so
far recorded, and the next materialization of the partition queries only what is missing (no
contains search again, no model call for the plan). The resumed revision holds the same
resolution artifacts, byte for byte, as a run without the outage, and verifies without the DB.
"""

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from tests.dagster.support import GRAPH, embedded_project_file, register
from tests.dagster.test_batched_names import ENTRIES, LIST
from tests.dagster.test_grounded_tiebreaks import _json, _resolution, verify_without_database
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.domain.catalog.world import ReadOnlyWorldDatabase
from vba_assets.errors import ErrorCode, ResearchUnavailable
from vba_assets.intake import import_report
from vba_assets.pipeline import revision
from vba_assets.store import Workspace

CASE = str(LIST["case_id"])
KEY = f"{CASE}|0001"
#: Every query the world DB answered or refused, in order, across the runs of one test.
seen_queries: list[tuple[str, str]] = []


class _Flaky:
    """The real world DB; the ``fail_on``-th exact-name query (1-based, 0: none) raises as an
    outage does. Every other call goes to the database unchanged."""

    def __init__(self, database: ReadOnlyWorldDatabase, fail_on: int) -> None:
        self._database = database
        self._fail_on = fail_on
        self._exact = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._database, name)

    def contains_search(self, catalog: str, term: str, limit: int) -> Any:
        seen_queries.append(("contains", term))
        return self._database.contains_search(catalog, term, limit)

    def exact_name_search(self, catalog: str, term: str, limit: int) -> Any:
        self._exact += 1
        if self._exact == self._fail_on:
            seen_queries.append(("refused", term))
            raise ResearchUnavailable(
                ErrorCode.RESEARCH_UNAVAILABLE, "connection refused", backend="mysql"
            )
        seen_queries.append(("exact", term))
        return self._database.exact_name_search(catalog, term, limit)


class FlakyWorldDatabaseResource(WorldDatabaseResource):
    """The project's world DB resource whose database fails its ``fail_on``-th exact query."""

    fail_on: int = 0

    def create_resource(self, context: dg.InitResourceContext) -> ReadOnlyWorldDatabase:
        database = super().create_resource(context)
        return _Flaky(database, self.fail_on)


def _materialize(
    instance: dg.DagsterInstance, project_file: Path, fail_on: int
) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        GRAPH,
        partition_key=KEY,
        resources={
            "project": ProjectResource(project_config=str(project_file)),
            "world_db": FlakyWorldDatabaseResource(
                project_config=str(project_file), fail_on=fail_on
            ),
            "llm": LlmResource(),
        },
        instance=instance,
        raise_on_error=False,
    )


def _imported(folder: Path) -> tuple[Path, Workspace]:
    folder.mkdir()
    project_file = embedded_project_file(folder)
    workspace = Workspace(folder / "ws")
    report = folder / "report.json"
    report.write_text(json.dumps(LIST), encoding="utf-8")
    import_report(workspace, report)
    return project_file, workspace


def _events(workspace: Workspace) -> list[dict[str, Any]]:
    return list(workspace.case(CASE).read_events("0001"))


def _artifacts(resolution: Path) -> dict[str, bytes]:
    """The resolution's artifacts by relative path (dispatch records aside: they hold the
    request, the same on both runs, and are compared through ``plan.json``)."""
    return {
        path.relative_to(resolution).as_posix(): path.read_bytes()
        for path in sorted(resolution.rglob("*"))
        if path.is_file() and "dispatches" not in path.parts
    }


def test_an_outage_during_batched_captures_blocks_and_resume_queries_only_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(revision, "RESEARCH_RETRY_DELAY", timedelta(0))  # due at once
    seen_queries.clear()
    project_file, workspace = _imported(tmp_path / "outage")
    with dg.instance_for_test() as instance:
        register(instance, CASE)
        blocked = _materialize(instance, project_file, fail_on=2)
        assert not blocked.success
        plan = _json(_resolution(workspace, CASE) / "plan.json")["plan"]
        assert len(plan["searches"]) == 4 and len(plan["unsearched"]) == 3
        batched = [n["term"] for n in plan["unsearched"]]
        contains = [q for q in seen_queries if q[0] == "contains"]
        assert len(contains) == 4  # the plan's own searches, before any batched name
        assert seen_queries[4:] == [("exact", batched[0]), ("refused", batched[1])]
        [block] = [e for e in _events(workspace) if e["event"] == "blocked"]
        assert (block["stage"], block["code"]) == ("resolution_captures", "RESEARCH_UNAVAILABLE")
        captured = [e for e in _events(workspace) if e["event"] == "captured"]
        assert [e.get("kind") for e in captured] == [None] * 4 + ["batched_exact_name"]

        seen_queries.clear()
        resumed = _materialize(instance, project_file, fail_on=0)
        assert resumed.success
        # only the two missing batched names: no contains search and no exact query repeated
        assert seen_queries == [("exact", batched[1]), ("exact", batched[2])]

    resolution = _resolution(workspace, CASE)
    context = _json(resolution / "context.json")
    assert {n["identity"] for n in context["selected"]} == ENTRIES

    # the same artifacts, byte for byte, as one run without an outage
    project_file, clean = _imported(tmp_path / "clean")
    with dg.instance_for_test() as instance:
        register(instance, CASE)
        assert _materialize(instance, project_file, fail_on=0).success
    assert _artifacts(resolution) == _artifacts(_resolution(clean, CASE))
    verify_without_database(workspace, monkeypatch, CASE)
