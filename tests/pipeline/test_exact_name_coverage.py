"""Exact-name coverage under truncation (issue 29 item 3, protocol v6): the captures stage, the
rules, the checks, ``vba verify``, blocking and resume.

A made-up report names ``Onyxia`` (a raid boss whose name is a substring of many others: its
contains search truncates at 8 in the demo DB, and entry 10184 is the only row named exactly so)
and ``Tirion Fordring`` (truncated too, but two entries carry the exact name). The fixture
assessment replies test plumbing (which verdicts the controller accepts), not a model's quality.
"""

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.pipeline.support import ER, Clock, interpret, plan_reply, project_config, run
from tests.pipeline.support import write_report as report_file
from vba_assets.domain.findings import Finding
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.models import EXACT_NAME, CaptureArtifact, capture_key
from vba_assets.domain.resolution.rules import validate_assessment
from vba_assets.errors import ErrorCode, ResearchUnavailable
from vba_assets.intake import import_report
from vba_assets.pipeline.artifacts import (
    compute_candidate_index,
    load_assessment,
    load_captures,
    load_plan,
)
from vba_assets.pipeline.checks import (
    check_capture_provenance,
    check_no_truncated_selection,
    evaluate_safely,
)
from vba_assets.pipeline.frozen_revision import FrozenRevision, load_frozen
from vba_assets.pipeline.registry import check_specs
from vba_assets.pipeline.verification import verify_revision
from vba_assets.store import CasePackage, Workspace

CASE = "BUG-EXACT-7"
BODY = (
    "In Onyxia's Lair, Onyxia stays on the ground at 65% health and never takes off.\n"
    "Afterwards Tirion Fordring at Light's Hope Chapel offers nothing when I talk to him."
)
SEARCHES = [
    ("Onyxia", "creature_name", "affected_subject", "S2", "Onyxia stays on the ground"),
    ("Tirion Fordring", "creature_name", "affected_subject", "S2", "Tirion Fordring at"),
]


def select_exact(context: dict[str, Any]) -> dict[str, Any]:
    """Select the first exact-name candidate of each truncated search whose exact capture is
    present (unique or not: the controller decides); ambiguous otherwise."""
    verdicts = []
    for search in context["searches"]:
        exact, m = search.get("exact"), search["mentions"][0]
        if exact and exact["candidates"]:
            chosen = exact["candidates"][0]
            verdicts.append(
                {
                    "search_id": search["search_id"],
                    "status": "selected",
                    "candidate_id": chosen["candidate_id"],
                    "capture": exact["capture_alias"],
                    "capture_row": chosen["capture_row"],
                    "mention": m,
                    "evidence": [{"source": m["source"], "quote": m["quote"]}],
                    "rationale": "fixture: the exact-name capture's row",
                }
            )
        else:
            verdicts.append(
                {
                    "search_id": search["search_id"],
                    "status": "ambiguous",
                    "competing_candidate_ids": [c["candidate_id"] for c in search["candidates"]],
                    "rationale": "fixture: truncated",
                }
            )
    return {"assessments": verdicts}


def unique_only(context: dict[str, Any]) -> dict[str, Any]:
    """Select an exact-name candidate only where the controller marked the capture unique."""
    reply = select_exact(context)
    for verdict, search in zip(reply["assessments"], context["searches"], strict=True):
        exact = search.get("exact")
        if verdict["status"] == "selected" and not (exact and exact["unique"]):
            ids = [c["candidate_id"] for c in exact["candidates"]] if exact else []
            verdict.clear()
            verdict.update(
                search_id=search["search_id"],
                status="ambiguous",
                competing_candidate_ids=ids,
                rationale="fixture: the exact-name capture is not unique",
            )
    return reply


def imported_case(tmp_path: Path) -> tuple[Workspace, CasePackage]:
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, report_file(tmp_path, CASE, "Onyxia never takes off", BODY))
    return workspace, workspace.case(CASE)


def provider(package: CasePackage, assess: Any = unique_only) -> ScriptedProvider:
    case_doc = package.read_json("case.json")
    return ScriptedProvider(
        {
            "resolution_plan": [plan_reply(case_doc, SEARCHES)],
            "resolution_assessment": [from_stage_context(assess)],
            "interpretation": [from_stage_context(interpret)],
        }
    )


class CountingDb:
    """The real embedded world DB, counting queries; ``exact_down`` makes the exact-name query
    fail as an outage does (``RESEARCH_UNAVAILABLE``)."""

    def __init__(self, project: Any, exact_down: bool = False) -> None:
        from resources.world_db import WorldDatabase

        self.database = WorldDatabase.from_config(project)
        self.exact_down = exact_down
        self.queries: list[tuple[str, str]] = []

    def __call__(self) -> "CountingDb":
        return self

    def snapshot_binding(self) -> Any:
        return self.database.snapshot_binding()

    def contains_search(self, catalog: str, term: str, limit: int) -> Any:
        self.queries.append(("contains", term))
        return self.database.contains_search(catalog, term, limit)

    def identity_search(self, catalog: str, identity: int | str, term: str, limit: int) -> Any:
        self.queries.append(("identity", term))
        return self.database.identity_search(catalog, identity, term, limit)

    def exact_name_search(self, catalog: str, term: str, limit: int) -> Any:
        self.queries.append(("exact", term))
        if self.exact_down:
            raise ResearchUnavailable(
                ErrorCode.RESEARCH_UNAVAILABLE, "connection refused", backend="mysql"
            )
        return self.database.exact_name_search(catalog, term, limit)

    def fetch_by_identity(self, catalog: str, identity: int | str) -> Any:
        return self.database.fetch_by_identity(catalog, identity)

    def quest_relations(self, identities: Any, limit: int) -> Any:
        return self.database.quest_relations(identities, limit)

    def zone_markers(self, identities: Any, limit: int) -> Any:
        return self.database.zone_markers(identities, limit)

    def close(self) -> None:
        self.database.close()


def completed(tmp_path: Path, assess: Any = unique_only) -> tuple[CasePackage, CountingDb]:
    workspace, package = imported_case(tmp_path)
    project = project_config(tmp_path / "ws")
    db = CountingDb(project)
    report = run(workspace, CASE, project, provider(package, assess), open_db=db)
    assert report.stages[-1].status == "accepted", report
    return package, db


def frozen(package: CasePackage) -> FrozenRevision:
    return load_frozen(package, "0001")


def test_one_exact_query_per_truncated_search_and_every_check_passes(tmp_path: Path) -> None:
    package, db = completed(tmp_path)
    assert db.queries == [
        ("contains", "Onyxia"),
        ("exact", "Onyxia"),
        ("contains", "Tirion Fordring"),
        ("exact", "Tirion Fordring"),
    ]
    rev = frozen(package)
    captures = load_captures(rev)
    assert sorted(captures) == ["Q1", "Q1/exact_name", "Q2", "Q2/exact_name"]
    assert captures["Q1/exact_name"][1].completes == captures["Q1"][0]
    index = compute_candidate_index(rev, load_plan(rev))  # type: ignore[arg-type]
    onyxia, tirion = index.searches
    assert onyxia.truncated and onyxia.exact is not None and onyxia.exact.unique
    assert onyxia.exact.capture_alias == "F3" and onyxia.exact.candidate_ids == ["Q1-X1"]
    assert tirion.exact is not None and not tirion.exact.unique
    assert [c.identity for c in tirion.exact.candidates] == [1855, 20349]
    context = package.read_json(f"{ER}/context.json")
    assert [(n["identity"], n["capture_pointer"]) for n in context["selected"]] == [
        (10184, f"/entity_resolution/captures/{captures['Q1/exact_name'][0]}")
    ]
    assert [(f["alias"], f.get("completes")) for f in context["facts"]] == [
        ("F1", None),
        ("F2", None),
        ("F3", "F1"),
        ("F4", "F2"),
    ]
    assert [(d["term"], d["status"]) for d in context["unresolved"]] == [
        ("Tirion Fordring", "truncated")
    ]
    for _, spec in check_specs():
        outcome = evaluate_safely(spec.evaluate, rev)
        assert outcome.passed, (spec.name, outcome.findings)
    report = verify_revision(package, "0001")
    assert report.ok, report.findings


def test_a_selection_from_a_capture_that_is_not_unique_is_refused(tmp_path: Path) -> None:
    package, _ = completed(tmp_path)
    rev = frozen(package)
    plan, index = load_plan(rev), None
    assert plan is not None
    index = compute_candidate_index(rev, plan)
    context = {
        "searches": [
            {
                "search_id": s.search_id,
                "mentions": [p.mentions[0].model_dump()],
                "candidates": [],
                "exact": {
                    "capture_alias": s.exact.capture_alias,
                    "unique": s.exact.unique,
                    "candidates": [
                        {"candidate_id": cid, "capture_row": c.source_index}
                        for cid, c in zip(s.exact.candidate_ids, s.exact.candidates, strict=True)
                    ],
                },
            }
            for s, p in zip(index.searches, plan.searches, strict=True)
            if s.exact is not None
        ]
    }
    from vba_assets.domain.resolution.models import ResolutionAssessmentOutput

    greedy = ResolutionAssessmentOutput.model_validate(select_exact(context))
    case_doc = rev.case_doc()
    codes = [f.code for f in validate_assessment(greedy, index, plan, case_doc, rev.spec)]
    assert codes == [ErrorCode.ASSESSMENT_EXACT_NOT_UNIQUE]  # Tirion's X1: two entities
    # v5 never reads an exact-name capture: the same selections are truncated selections
    v5 = [f.code for f in validate_assessment(greedy, index, plan, case_doc, protocol(5))]
    assert v5 == [ErrorCode.ASSESSMENT_TRUNCATED_SELECTION] * 2


def test_the_correction_loop_turns_a_greedy_selection_into_ambiguous(tmp_path: Path) -> None:
    """The model selects Tirion's exact row first; the controller rejects it with
    ASSESSMENT_EXACT_NOT_UNIQUE and accepts the corrected reply."""
    workspace, package = imported_case(tmp_path)
    project = project_config(tmp_path / "ws")
    case_doc = package.read_json("case.json")
    scripted = ScriptedProvider(
        {
            "resolution_plan": [plan_reply(case_doc, SEARCHES)],
            "resolution_assessment": [
                from_stage_context(select_exact),
                from_stage_context(unique_only),
            ],
            "interpretation": [from_stage_context(interpret)],
        }
    )
    report = run(workspace, CASE, project, scripted, open_db=CountingDb(project))
    assert report.stages[-1].status == "accepted"
    rejected = package.read_json(f"{ER}/rejected/resolution_assessment-1.json")
    assert "ASSESSMENT_EXACT_NOT_UNIQUE" in str(rejected)
    rev = frozen(package)
    assessment = load_assessment(rev)
    assert assessment is not None
    assert [v.status for v in assessment.assessments] == ["selected", "ambiguous"]


def _findings(check: Any, rev: FrozenRevision) -> list[Finding]:
    outcome = evaluate_safely(check, rev)
    return outcome.findings


def test_capture_provenance_fails_on_a_forged_or_missing_exact_capture(tmp_path: Path) -> None:
    package, _ = completed(tmp_path)
    rev = frozen(package)
    captures = load_captures(rev)
    sha, exact = captures[capture_key("Q1", EXACT_NAME)]
    directory = package.path(rev.layout.captures_dir)
    (directory / f"{sha}.json").unlink()
    assert [f.code for f in _findings(check_capture_provenance, rev)] == [ErrorCode.CAPTURE_MISSING]
    forged = exact.model_copy(
        update={
            "completes": captures["Q2"][0],
            "result": exact.result.model_copy(
                update={
                    "sql": exact.result.sql.replace(" = ", " LIKE ", 1) + " ESCAPE '\\'",
                    "parameters": {**exact.result.parameters, "term": "Ony"},
                }
            ),
        }
    )
    package.write_object(rev.layout.captures_dir, forged.model_dump(mode="json"))
    codes = [f.code for f in _findings(check_capture_provenance, rev)]
    assert codes == [ErrorCode.CAPTURE_EXACT_DIFFERS, ErrorCode.CAPTURE_SQL_NOT_TEMPLATE]


def test_no_truncated_selection_fails_on_a_non_unique_exact_selection(tmp_path: Path) -> None:
    """The check's failing example: an assessment (tampered after acceptance) that selects
    Tirion's exact row although two entities carry the name."""
    package, _ = completed(tmp_path)
    rev = frozen(package)
    assert _findings(check_no_truncated_selection, rev) == []
    doc = package.read_json(rev.layout.assessment)
    index = compute_candidate_index(rev, load_plan(rev))  # type: ignore[arg-type]
    tirion = index.searches[1]
    assert tirion.exact is not None
    verdict = doc["assessment"]["assessments"][1]
    first = doc["assessment"]["assessments"][0]
    verdict.update(
        status="selected",
        candidate_id=tirion.exact.candidate_ids[0],
        capture=tirion.exact.capture_alias,
        capture_row=0,
        mention=first["mention"],
        evidence=first["evidence"],
        competing_candidate_ids=[],
    )
    path = package.path(rev.layout.assessment)
    from vba_assets.store import canonical_bytes

    path.write_bytes(canonical_bytes(doc))
    codes = [f.code for f in _findings(check_no_truncated_selection, rev)]
    assert codes == [ErrorCode.ASSESSMENT_EXACT_NOT_UNIQUE]


def test_an_outage_of_the_exact_query_blocks_and_resume_runs_only_what_is_missing(
    tmp_path: Path,
) -> None:
    workspace, package = imported_case(tmp_path)
    project = project_config(tmp_path / "ws")
    clock = Clock()
    scripted = provider(package)
    down = CountingDb(project, exact_down=True)
    with pytest.raises(ResearchUnavailable):
        run(workspace, CASE, project, scripted, open_db=down, clock=clock)
    assert down.queries == [("contains", "Onyxia"), ("exact", "Onyxia")]
    blocked = [e for e in package.read_events("0001") if e["event"] == "blocked"][-1]
    assert blocked["code"] == "RESEARCH_UNAVAILABLE" and blocked["stage"] == "resolution_captures"
    clock.advance(61)
    up = CountingDb(project)
    report = run(workspace, CASE, project, scripted, open_db=up, clock=clock)
    assert report.stages[-1].status == "accepted"
    assert up.queries == [  # Onyxia's truncated capture is reused, not queried again
        ("exact", "Onyxia"),
        ("contains", "Tirion Fordring"),
        ("exact", "Tirion Fordring"),
    ]
    assert verify_revision(package, "0001").ok
    kinds = [e.get("kind") for e in package.read_events("0001") if e["event"] == "captured"]
    assert kinds == [None, "exact_name", None, "exact_name"]


def test_a_capture_artifact_without_kind_keeps_its_bytes() -> None:
    """Protocol v1-v5 captures have no ``kind``/``completes`` key: their bytes are unchanged."""
    fields = CaptureArtifact.model_fields
    assert fields["kind"].default is None and fields["completes"].default is None


def test_a_v5_revision_runs_no_exact_query_and_resumes_unchanged_under_v6(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A revision frozen at protocol 5 keeps its rules: no exact-name query, the truncated
    search stays ambiguous; run again by this release (v6 current), it reuses every artifact
    (no query, same bytes) and verifies."""
    from vba_assets.pipeline import revision

    workspace, package = imported_case(tmp_path)
    project = project_config(tmp_path / "ws")
    monkeypatch.setattr(revision, "CURRENT_PROTOCOL_VERSION", 5)
    first = CountingDb(project)
    report = run(workspace, CASE, project, provider(package), open_db=first)
    assert report.stages[-1].status == "accepted"
    monkeypatch.undo()
    rev = frozen(package)
    assert rev.interpretation.protocol_version == 5
    assert first.queries == [("contains", "Onyxia"), ("contains", "Tirion Fordring")]
    assert sorted(load_captures(rev)) == ["Q1", "Q2"]
    context = package.read_json(f"{ER}/context.json")
    assert context["selected"] == [] and len(context["facts"]) == 2
    files = {p: p.read_bytes() for p in package.root.rglob("*.json")}
    again = CountingDb(project)
    run(workspace, CASE, project, provider(package), open_db=again)
    assert again.queries == []
    assert {p: p.read_bytes() for p in package.root.rglob("*.json")} == files
    assert verify_revision(package, "0001").ok


def test_vba_verify_accounts_for_the_exact_capture(tmp_path: Path) -> None:
    """A deleted exact-name capture is missing (its 'captured' event names it); an edited one
    fails its hash; either way the revision no longer verifies."""
    package, _ = completed(tmp_path)
    rev = frozen(package)
    sha, _ = load_captures(rev)[capture_key("Q1", EXACT_NAME)]
    path = package.path(rev.layout.capture(sha))
    original = path.read_bytes()
    path.write_bytes(original.replace(b"10184", b"10185"))
    edited = verify_revision(package, "0001")
    assert not edited.ok
    assert any(rev.layout.capture(sha) == f.artifact for f in edited.findings)
    path.unlink()
    deleted = verify_revision(package, "0001")
    assert not deleted.ok
    assert ErrorCode.PACKAGE_FILE_MISSING in {f.code for f in deleted.findings}
