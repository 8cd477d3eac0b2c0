"""Exact-name coverage (protocol v6) in the pure steps: the uniqueness test, the candidate index,
the assessment rules and the heuristic's selection, over real captures of the demo world DB."""

import hashlib
from typing import Any

import pytest

from resources.world_db import WorldDatabase
from tests.unit.test_heuristic_assessment import CATALOGS, case_doc, search
from vba_assets.domain.catalog.world import CatalogRow, SearchResult, SnapshotBinding
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.context import (
    build_candidate_index,
    exact_is_unique,
    search_ids,
)
from vba_assets.domain.resolution.models import (
    EXACT_NAME,
    CandidateIndex,
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.resolution.rules import validate_assessment
from vba_assets.domain.stage_context import assessment_stage_context
from vba_assets.errors import ErrorCode
from vba_assets.heuristic.assessment import assess_searches
from vba_assets.store import Workspace

V5, V6 = protocol(5), protocol(6)


def result(
    rows: list[tuple[int, str]], truncated: bool = False, kind: str = "name"
) -> SearchResult:
    return SearchResult(
        catalog="creature_name",
        entity_type="creature",
        catalog_kind=kind,
        term="Onyxia",
        sql="SELECT 1",
        parameters={},
        snapshot=SnapshotBinding(label="t", backend="sqlite", schema_fingerprint="0" * 64),
        row_limit=8,
        truncated=truncated,
        rows=[CatalogRow(identity=i, name=n) for i, n in rows],
        coverage_notes=["n"],
    )


@pytest.mark.parametrize(
    ("rows", "truncated", "unique"),
    [
        ([(10184, "Onyxia")], False, True),
        ([(10184, "ONYXIA")], False, True),  # the match tiers' normalization folds case
        ([(10184, "Onyxia"), (10184, "Onyxia")], False, True),  # one entity, several locales
        ([(10184, "Onyxia")], True, False),  # more rows matched than were captured
        ([(1855, "Onyxia"), (20349, "Onyxia")], False, False),  # two entities
        ([], False, False),
        ([(7, "Ónyxia")], False, False),  # equal for the collation, not for the match tiers
    ],
)
def test_an_exact_capture_is_unique_only_when_complete_with_one_entity_named_so(
    rows: list[tuple[int, str]], truncated: bool, unique: bool
) -> None:
    assert exact_is_unique("Onyxia", result(rows, truncated)) is unique


def resolve(
    case: dict[str, Any], plan: ResolutionPlanOutput, world: WorldDatabase, exact: bool
) -> tuple[ResolutionAssessmentOutput, CandidateIndex]:
    """Capture on the real DB (and, with ``exact``, complete every truncated capture as the v6
    captures stage does); index, assess with the heuristic."""
    captures, exacts = [], {}
    for search_id, proposed in zip(search_ids(plan), plan.searches, strict=True):
        found = world.contains_search(proposed.catalog, proposed.term, 8)
        capture = CaptureArtifact(search_id=search_id, search=proposed, result=found)
        digest = hashlib.sha256(capture.model_dump_json().encode()).hexdigest()
        captures.append((digest, capture))
        if exact and found.truncated:
            completing = CaptureArtifact(
                search_id=search_id,
                search=proposed,
                result=world.exact_name_search(proposed.catalog, proposed.term, 8),
                kind=EXACT_NAME,
                completes=digest,
            )
            exact_digest = hashlib.sha256(completing.model_dump_json().encode()).hexdigest()
            exacts[search_id] = (exact_digest, completing)
    index = build_candidate_index(plan, captures, exacts)
    return assess_searches(assessment_stage_context(case, plan, index), CATALOGS), index


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("ws"))


def onyxia_case(workspace: Workspace) -> tuple[dict[str, Any], ResolutionPlanOutput]:
    case = case_doc(
        workspace,
        "EXACT-1",
        "Onyxia does not take off",
        "In her lair Onyxia stays on the ground at 65% health.\n"
        "Tirion Fordring at Light's Hope Chapel has no gossip.",
    )
    plan = ResolutionPlanOutput(
        searches=[
            search(case, "Onyxia", "affected_subject", "creature_name"),
            search(case, "Tirion Fordring", "affected_subject", "creature_name"),
        ]
    )
    return case, plan


def test_the_heuristic_selects_the_unique_exact_row_citing_the_exact_capture(
    workspace: Workspace, world: WorldDatabase
) -> None:
    case, plan = onyxia_case(workspace)
    assessment, index = resolve(case, plan, world, exact=True)
    assert validate_assessment(assessment, index, plan, case, V6) == []
    onyxia, tirion = assessment.assessments
    exact = index.searches[0].exact
    assert exact is not None and index.searches[0].truncated
    assert onyxia.status == "selected" and onyxia.capture == exact.capture_alias == "F3"
    assert index.searches[0].candidate(onyxia.candidate_id).identity == 10184  # type: ignore[union-attr]
    assert "exact unique name under truncation" in onyxia.rationale
    assert tirion.status == "ambiguous"
    competing = [index.searches[1].candidate(c) for c in tirion.competing_candidate_ids]
    assert sorted(c.identity for c in competing if c is not None) == [1855, 20349]


def test_without_the_exact_capture_a_truncated_search_stays_ambiguous(
    workspace: Workspace, world: WorldDatabase
) -> None:
    """What protocol v5 does (no exact-name query): the rule that a truncated capture cannot
    select still holds, and a selection of the truncated capture's own row is refused under v6."""
    case, plan = onyxia_case(workspace)
    assessment, index = resolve(case, plan, world, exact=False)
    assert "exact" not in index.model_dump(mode="json")["searches"][0]  # v1-v5 bytes unchanged
    assert [v.status for v in assessment.assessments] == ["ambiguous", "ambiguous"]
    _, with_exact = resolve(case, plan, world, exact=True)
    own = with_exact.searches[0]
    first = own.candidates[0]
    chosen = assessment.assessments[0].model_copy(
        update={
            "status": "selected",
            "candidate_id": own.candidate_ids[0],
            "capture": own.capture_alias,
            "capture_row": first.source_index,
            "mention": plan.searches[0].mentions[0],
            "competing_candidate_ids": [],
        }
    )
    greedy = assessment.model_copy(update={"assessments": [chosen, assessment.assessments[1]]})
    codes = [f.code for f in validate_assessment(greedy, with_exact, plan, case, V6)]
    assert ErrorCode.ASSESSMENT_TRUNCATED_SELECTION in codes


def test_an_exact_capture_must_complete_its_own_search(
    workspace: Workspace, world: WorldDatabase
) -> None:
    """The index refuses an exact-name capture that names another capture than its search's."""
    _, plan = onyxia_case(workspace)
    proposed = plan.searches[0]
    own = CaptureArtifact(
        search_id="Q1", search=proposed, result=world.contains_search("creature_name", "Onyxia", 8)
    )
    forged = CaptureArtifact(
        search_id="Q1",
        search=proposed,
        result=world.exact_name_search("creature_name", "Onyxia", 8),
        kind=EXACT_NAME,
        completes="f" * 64,
    )
    single = ResolutionPlanOutput(searches=[proposed])
    with pytest.raises(ValueError, match="does not complete"):
        build_candidate_index(single, [("a" * 64, own)], {"Q1": ("b" * 64, forged)})
    good = forged.model_copy(update={"completes": "a" * 64})
    index = build_candidate_index(single, [("a" * 64, own)], {"Q1": ("b" * 64, good)})
    assert index.searches[0].exact is not None and index.searches[0].exact.unique


@pytest.mark.parametrize(
    ("text", "term", "named"),
    [
        ("In her lair Onyxia stays on the ground.", "Onyxia", True),
        ("Onyxia's Lair: Onyxia never lands.", "Onyxia", True),
        ("Trash before the boss does not respawn.", "Trash", False),  # a common word
        ("Orthal the Steward has no loot.", "Steward", False),  # a common word
        ("the teleporter does nothing", "teleporter", False),  # never written as a name
        ("The Scryers do not sell anything.", "Scryer", False),  # part of a longer word
        ("My Scryer friend gets his quest.", "Scryer", False),  # after a determiner: a kind
        ("Kill Onyxia, then loot.", "Onyxia", True),
    ],
)
def test_the_heuristic_selects_only_terms_written_as_names(
    text: str, term: str, named: bool
) -> None:
    from vba_assets.domain.resolution.models import MentionCitation
    from vba_assets.domain.stage_context import SearchView
    from vba_assets.heuristic.exact_coverage import written_as_name

    start = text.index(term)
    view = SearchView(
        search_id="Q1",
        term=term,
        catalog="creature_name",
        role="affected_subject",
        mentions=[MentionCitation(source="S2", quote=term, start=start, end=start + len(term))],
        capture_alias="F1",
        truncated=True,
        candidates=[],
    )
    assert written_as_name(view, {"S2": text}, "en") is named
