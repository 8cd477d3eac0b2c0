"""The seed's opt-in end-to-end test: a real built case package, the real world DB, fixture replies.

Set ``VBA_TEST_CASE_PACKAGE`` to a case folder that was imported (``vba import``) and not yet
interpreted, and ``VBA_TEST_PROJECT_CONFIG`` to the project config of the SELECT-only MariaDB
snapshot (``eval "$(scripts/mariadb_setup.sh)"``). The package is copied first and never changed.
The fixture replies prove query, provenance and lifecycle integration, not a live model's
semantic quality: the plan proposes the names the report's quest text gives (for the Wolpertinger
sample) or what the deterministic heuristic planner proposes (any other case), the assessment
selects the one exact-name candidate of an untruncated search, the interpretation keeps every
selection and every unresolved identity. The world DB supplies the identities: no creature id is
written in this test.
"""

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from resources.world_db import WorldDatabase
from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.pipeline.support import QUEST, assess_exact, interpret, plan_reply
from vba_assets.config import load_project_config
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.trial import run_trial
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import Workspace
from vba_assets.store.layout import RevisionLayout

pytestmark = pytest.mark.mariadb

PACKAGE_ENV = "VBA_TEST_CASE_PACKAGE"
PROJECT_ENV = "VBA_TEST_PROJECT_CONFIG"


@pytest.fixture
def case_package() -> Path:
    if not os.environ.get(PROJECT_ENV):
        pytest.skip(f'{PROJECT_ENV} is not set (eval "$(scripts/mariadb_setup.sh)")')
    if not os.environ.get(PACKAGE_ENV):
        pytest.skip(f"{PACKAGE_ENV} is not set (a case folder made by `vba import`)")
    path = Path(os.environ[PACKAGE_ENV])
    assert (path / "package.json").is_file() and (path / "case.json").is_file(), (
        f"{PACKAGE_ENV}={path} is not a built case package (no package.json/case.json)"
    )
    return path


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def fixture_provider(case_doc: dict[str, Any]) -> ScriptedProvider | None:
    """Fixture replies for the known sample; None: the heuristic plans any other case."""
    quest = " ".join(s.get("text") or "" for s in case_doc["sources"] if s["alias"] == "S3")
    plan: Any
    if all(term in quest for term, *_ in QUEST):
        plan = plan_reply(case_doc, QUEST)
    else:
        return None
    return ScriptedProvider(
        {
            "resolution_plan": [plan],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )


def test_a_built_case_package_is_interpreted_against_the_real_db(
    case_package: Path, tmp_path: Path
) -> None:
    before = _files(case_package)
    workspace = Workspace(tmp_path / "ws")
    case_id = case_package.name
    shutil.copytree(case_package, workspace.cases_dir / case_id)
    package = workspace.case(case_id)
    revision = "0001" if not package.revisions() else package.new_revision("e2e test")
    layout = RevisionLayout(revision)
    project = load_project_config(Path(os.environ[PROJECT_ENV])).model_copy(
        update={"workspace": workspace.root}
    )
    assert project.database.url.startswith("mysql"), "VBA_TEST_PROJECT_CONFIG must name MariaDB"
    case_doc = package.read_json("case.json")
    scripted = fixture_provider(case_doc)
    if scripted is None:  # another case: the heuristic plans, fixtures assess and interpret
        scripted = ScriptedProvider(
            {
                "resolution_assessment": [from_stage_context(assess_exact)],
                "interpretation": [from_stage_context(interpret)],
            }
        )
    report = run_trial(
        workspace,
        case_id,
        revision,
        project,
        LlmConfig(provider="heuristic"),
        stop_after="interpretation",
        max_dispatches=6,
        provider=scripted if scripted.script.get("resolution_plan") else None,
    )
    assert report.stages[-1].status == "accepted", report.lines()

    # provenance: every capture names the MariaDB snapshot it was made on
    frozen = package.read_json(layout.er_input)
    captures = [package.read_json(p) for p in package.list_dir(layout.captures_dir)]
    searches = package.read_json(layout.plan)["search_ids"]  # may be none for another case
    assert sorted(c["search_id"] for c in captures) == sorted(searches)
    for capture in captures:
        assert capture["result"]["snapshot"] == frozen["snapshot"]
        assert capture["result"]["snapshot"]["backend"] == "mysql"
    # every selected identity is a row the DB returned for its own search
    context = package.read_json(layout.context)
    rows = {(c["search_id"], row["identity"]) for c in captures for row in c["result"]["rows"]}
    for selected in context["selected"]:
        assert (selected["search_id"], selected["identity"]) in rows, selected
    if fixture_provider(case_doc) is not None:  # the Wolpertinger sample: the DB's own ids
        database = WorldDatabase.from_config(project)
        try:
            wanted = {
                term: [r.identity for r in database.contains_search(catalog, term, 8).rows]
                for term, catalog, *_ in QUEST
            }
        finally:
            database.close()
        by_role = {s["role"]: s["identity"] for s in context["selected"]}
        assert by_role["affected_subject"] in wanted["Wild Wolpertinger"]
        assert by_role["quest_giver"] in wanted["Goldark Snipehunter"]
        assert by_role["affected_subject"] != by_role["quest_giver"]

    # lifecycle: the revision verifies, and replays elsewhere with no DB and no model
    assert [f.line() for f in verify_case(package).all_findings() if f.is_error] == []
    elsewhere = Workspace(tmp_path / "elsewhere")
    shutil.copytree(package.root, elsewhere.cases_dir / case_id)

    def no_db() -> None:
        raise AssertionError("a replay must not open the DB")

    replayed = run_trial(
        elsewhere, case_id, revision, project.model_copy(update={"workspace": elsewhere.root}),
        LlmConfig(provider="replay"), stop_after="interpretation", max_dispatches=0, open_db=no_db,
    )  # fmt: skip
    assert [s.sha256 for s in replayed.stages] == [s.sha256 for s in report.stages]
    assert _files(case_package) == before  # the named package was only read
