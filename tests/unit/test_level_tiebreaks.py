"""The ``level`` tie-break (issue 29 item 4, protocol v6): the only row of a name above level 1
beside level-1 script copies.

The demo world DB holds four rows named "Sindragosa": 36853 (level 83, the boss players fight)
and 28499, 32446, 37755 (level 1, encounter dummies and cosmetic doubles); and two "Illidan
Stormrage" rows of level 73 (22917, 23467), which the level tells nothing apart. The reports are
made up; the captures are recorded by the real adapter. The heuristic verdicts test quality (which
entity the fact tells apart, and that none is chosen where it tells nothing), the forged verdicts
test the controller's refusal.
"""

from typing import Any

from resources.world_db import WorldDatabase
from tests.unit.test_zone_tiebreaks import (
    codes,
    context,
    demo,
    exact_index,
    heuristic,
    identity_of,
    sources,
)
from tests.unit.test_zone_tiebreaks import contains_index as zone_contains_index
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    CaptureArtifact,
    ResolutionPlanOutput,
)
from vba_assets.domain.resolution.tiebreaks import level_fact
from vba_assets.errors import ErrorCode

__all__ = ["demo"]  # the module-scoped demo DB fixture, imported for pytest

SINDRAGOSA = "Sindragosa"
BOSS_BODY = f"{SINDRAGOSA} does not cast Frost Breath in phase two, she only uses Blistering Cold."
ILLIDAN = "Illidan Stormrage"
ILLIDAN_BODY = f"{ILLIDAN} does not fly up in phase two, he stays in the middle of the room."


def contains_index(
    demo: WorldDatabase, body: str, term: str
) -> tuple[ResolutionPlanOutput, CandidateIndex, CaptureArtifact]:
    """A complete contains capture (row limit 16) with its tie facts, as the controller records it."""
    return zone_contains_index(demo, body, term, row_limit=16)


def test_the_one_row_above_level_1_is_selected_and_the_controller_accepts_it(
    demo: WorldDatabase,
) -> None:
    plan, index, _ = contains_index(demo, BOSS_BODY, SINDRAGOSA)
    assert not index.searches[0].truncated
    verdict = heuristic(BOSS_BODY, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    assert identity_of(index, verdict.candidate_id) == 36853
    assert verdict.tiebreak.fact == "level"
    assert verdict.tiebreak.span == verdict.mention
    assert codes(verdict, plan, index, BOSS_BODY) == []


def test_the_level_breaks_a_tie_inside_the_exact_name_capture(demo: WorldDatabase) -> None:
    plan, index, exact = exact_index(demo, BOSS_BODY, SINDRAGOSA)
    assert len({row.identity for row in exact.result.rows}) == 4
    verdict = heuristic(BOSS_BODY, plan, index)
    assert verdict.status == "selected" and verdict.tiebreak is not None
    assert verdict.tiebreak.fact == "level"
    assert str(verdict.candidate_id).startswith("Q1-X")
    assert codes(verdict, plan, index, BOSS_BODY) == []


def test_two_rows_above_level_1_stay_ambiguous(demo: WorldDatabase) -> None:
    plan, index, _ = contains_index(demo, ILLIDAN_BODY, ILLIDAN)
    verdict = heuristic(ILLIDAN_BODY, plan, index)
    assert verdict.status == "ambiguous" and verdict.tiebreak is None
    forged = _forged(index, plan, ILLIDAN_BODY, 22917)
    assert codes(forged, plan, index, ILLIDAN_BODY) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]


def _forged(
    index: CandidateIndex, plan: ResolutionPlanOutput, body: str, identity: int, **span: Any
) -> dict[str, Any]:
    """A selection of ``identity`` with a 'level' tie-break citing its own mention (or ``span``)."""
    search = index.searches[0]
    (chosen,) = [c for c in search.candidates if c.identity == identity]
    mention = plan.searches[0].mentions[0].model_dump()
    ((alias, text),) = [(a, t) for a, t in sources(body).items() if t == body]
    return {
        "search_id": "Q1",
        "status": "selected",
        "candidate_id": search.candidate_ids[search.candidates.index(chosen)],
        "capture": "F1",
        "capture_row": chosen.source_index,
        "mention": mention,
        "evidence": [{"source": alias, "quote": text}],
        "rationale": "the level",
        "tiebreak": {"fact": "level", "span": {**mention, **span}},
    }


def test_the_controller_refuses_a_script_copy_and_a_span_that_is_not_the_mention(
    demo: WorldDatabase,
) -> None:
    plan, index, _ = contains_index(demo, BOSS_BODY, SINDRAGOSA)
    assert codes(_forged(index, plan, BOSS_BODY, 36853), plan, index, BOSS_BODY) == []
    copy = _forged(index, plan, BOSS_BODY, 28499)
    assert codes(copy, plan, index, BOSS_BODY) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]
    start = BOSS_BODY.index("Frost Breath")
    elsewhere = _forged(
        index, plan, BOSS_BODY, 36853, quote="Frost Breath", start=start, end=start + 12
    )
    assert codes(elsewhere, plan, index, BOSS_BODY) == [ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED]
    assert context(BOSS_BODY, plan, index).searches[0].term == SINDRAGOSA


def test_level_fact_reads_maxlevel_only() -> None:
    copies = {1: {"maxlevel": 83}, 2: {"maxlevel": 1}, 3: {"maxlevel": 1}}
    assert level_fact(1, copies) is None
    assert level_fact(2, copies) is not None  # a copy is never told apart by its level
    assert (
        level_fact(1, {**copies, 4: {"maxlevel": 60}})
        == "4 of that name are not level-1 script copies"
    )
    assert level_fact(1, {1: {"maxlevel": 83}, 2: {"maxlevel": None}}) is not None
