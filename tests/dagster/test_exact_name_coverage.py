"""Exact-name coverage under truncation (issue 29 item 3, protocol v6), through ``interpret_cases``.

A famous name that is a substring of many others truncates its contains search at
``max_candidates`` (8): ``Onyxia`` matches ``Onyxia's Elite Guard``, ``Onyxian Whelp``... in the
demo DB, so the truncated capture alone can never select. Protocol v6 runs one exact-name query
on the same catalog; ``Onyxia`` (entry 10184) is the only row named exactly so, and the capture is
complete, so the assessment may select it citing the exact-name capture. ``Tirion Fordring`` also
truncates, but two entries (1855 and 20349) carry that exact name: it stays ambiguous.

These run the project's own job on a real (temporary) Dagster instance with the embedded world DB
(and, marked ``mariadb``, the MariaDB world DB of ``VBA_TEST_PROJECT_CONFIG``: the same data, so
the same rows) and the heuristic provider: the replies test plumbing and the heuristic's rule, not
a model's quality.
"""

import json
import os
import re
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from tests.dagster.support import REPO, embedded_project_file, register
from vba_assets.definitions import JOB_NAME, build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.domain.resolution.captures import EXACT_NAME_ROWS
from vba_assets.intake import import_report
from vba_assets.store import Workspace

ONYXIA = {
    "case_id": "BUG-EXACT-1",
    "title": "Onyxia does not take off in phase two",
    "body": "In Onyxia's Lair, Onyxia stays on the ground at 65% health and never starts phase "
    "two, so the whelps never spawn.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Raid-Tester",
}
TIRION = {
    "case_id": "BUG-EXACT-2",
    "title": "Tirion Fordring has no gossip",
    "body": "Tirion Fordring at Light's Hope Chapel has no gossip options and offers nothing "
    "when I talk to him.",
    "reported_at": "2026-11-30T18:00:00+00:00",
    "reporter": "Chapel-Tester",
}


@pytest.fixture(params=["sqlite", pytest.param("mariadb", marks=pytest.mark.mariadb)])
def project_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The CI catalogs on the embedded demo DB, or on MariaDB (skipped without its config)."""
    if request.param == "sqlite":
        return embedded_project_file(tmp_path)
    source = os.environ.get("VBA_TEST_PROJECT_CONFIG")
    if not source:
        pytest.skip("VBA_TEST_PROJECT_CONFIG is not set (MariaDB world DB)")
    text = Path(source).read_text(encoding="utf-8")
    assert "mysql" in text and (REPO / "config").is_dir()
    path = tmp_path / "project.toml"
    path.write_text(
        re.sub(r"(?m)^workspace = .*$", f'workspace = "{tmp_path / "ws"}"', text), encoding="utf-8"
    )
    return path


def run_job(tmp_path: Path, report: dict[str, str], project_file: Path) -> Path:
    """Import ``report``, materialize revision 0001 through the job; the entity-resolution
    folder."""
    report_file = tmp_path / "report.json"
    report_file.write_text(json.dumps(report), encoding="utf-8")
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, report_file)
    defs = build_definitions(
        project=ProjectResource(project_config=str(project_file)),
        world_db=WorldDatabaseResource(project_config=str(project_file)),
        llm=LlmResource(),
    )
    partition = f"{report['case_id']}|0001"
    with dg.instance_for_test() as instance:
        register(instance, report["case_id"])
        result = defs.resolve_job_def(JOB_NAME).execute_in_process(
            partition_key=partition, instance=instance
        )
        assert result.success
        failed = [
            (evaluation.check_name, evaluation.asset_key.to_user_string())
            for evaluation in result.get_asset_check_evaluations()
            if not evaluation.passed
        ]
        assert failed == []
    return workspace.case(report["case_id"]).path("analysis/interpretations/0001/entity-resolution")


def captures_of(resolution: Path) -> dict[str, dict[str, Any]]:
    """sha256 -> capture document of every capture file."""
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in (resolution / "captures").iterdir()
    }


def search_of(captures: dict[str, dict[str, Any]], term: str) -> tuple[str, str | None]:
    """(sha256 of the contains capture of ``term``, sha256 of its exact-name capture or None)."""
    own = [sha for sha, c in captures.items() if c["search"]["term"] == term and "kind" not in c]
    exact = [
        sha
        for sha, c in captures.items()
        if c["search"]["term"] == term and c.get("kind") == "exact_name"
    ]
    assert len(own) == 1 and len(exact) <= 1
    return own[0], exact[0] if exact else None


def test_a_famous_exact_name_resolves_under_truncation_through_the_job(
    tmp_path: Path, project_file: Path
) -> None:
    resolution = run_job(tmp_path, ONYXIA, project_file)
    captures = captures_of(resolution)
    own_sha, exact_sha = search_of(captures, "Onyxia")
    own, exact = captures[own_sha], captures[exact_sha or ""]
    assert own["result"]["truncated"] is True and len(own["result"]["rows"]) == 8
    assert exact["completes"] == own_sha
    assert exact["result"]["truncated"] is False
    assert [(r["identity"], r["name"]) for r in exact["result"]["rows"]] == [(10184, "Onyxia")]
    assert " LIKE " not in exact["result"]["sql"].split("IN (SELECT")[0]
    assert exact["result"]["parameters"]["term"] == "Onyxia"
    assert exact["result"]["parameters"]["row_limit"] == EXACT_NAME_ROWS + 1
    assert any("exact-name filter" in note for note in exact["result"]["coverage_notes"])
    context = json.loads((resolution / "context.json").read_text(encoding="utf-8"))
    (selected,) = [n for n in context["selected"] if n["name"] == "Onyxia"]
    assert selected["identity"] == 10184
    assert selected["capture_pointer"] == f"/entity_resolution/captures/{exact_sha}"
    facts = {f["alias"]: f for f in context["facts"]}
    exact_fact = next(f for f in facts.values() if f["pointer"].endswith(str(exact_sha)))
    own_fact = next(f for f in facts.values() if f["pointer"].endswith(own_sha))
    assert exact_fact["completes"] == own_fact["alias"] and own_fact["truncated"] is True
    assessment = json.loads((resolution / "assessment.json").read_text(encoding="utf-8"))
    (verdict,) = [
        v
        for v in assessment["assessment"]["assessments"]
        if v.get("capture") == exact_fact["alias"]
    ]
    assert verdict["status"] == "selected"
    assert verdict["candidate_id"].split("-")[1].startswith("X")
    events = [
        json.loads(line)
        for line in (resolution.parent / "events.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    kinds = [e.get("kind") for e in events if e["event"] == "captured"]
    assert kinds.count("exact_name") == 1  # one exact query, for the one truncated search


def test_an_exact_name_that_is_not_unique_stays_ambiguous(
    tmp_path: Path, project_file: Path
) -> None:
    resolution = run_job(tmp_path, TIRION, project_file)
    captures = captures_of(resolution)
    own_sha, exact_sha = search_of(captures, "Tirion Fordring")
    assert captures[own_sha]["result"]["truncated"] is True
    exact = captures[exact_sha or ""]
    assert sorted(r["identity"] for r in exact["result"]["rows"]) == [1855, 20349]
    context = json.loads((resolution / "context.json").read_text(encoding="utf-8"))
    assert [n for n in context["selected"] if n["name"] == "Tirion Fordring"] == []
    (unresolved,) = [d for d in context["unresolved"] if d["term"] == "Tirion Fordring"]
    assert unresolved["status"] == "truncated"
    assert sorted(unresolved["candidate_identities"]) == [1855, 20349]
