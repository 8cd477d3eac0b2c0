"""Batched exact names (protocol v6, :mod:`vba_assets.domain.resolution.batched`): which unsearched
names become searches, how they are numbered, and that a protocol without them keeps its
``not_searched`` unknowns. The Dagster test is tests/dagster/test_batched_names.py."""

from typing import Any

from vba_assets.domain.catalog.world import CatalogRow, SearchResult, SnapshotBinding
from vba_assets.domain.limits import MAX_SEARCHES
from vba_assets.domain.resolution.batched import (
    MAX_BATCHED_NAMES,
    batched_origins,
    batched_searches,
    planned_searches,
)
from vba_assets.domain.resolution.context import build_candidate_index, build_resolution_context
from vba_assets.domain.resolution.models import (
    BATCHED_EXACT_NAME,
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)

TEXT = "No gossip: Marshal Dughan, Innkeeper Farley, Smith Argus, Corina Steele and Erma."
SNAPSHOT = SnapshotBinding(label="t", backend="sqlite", schema_fingerprint="0" * 64)


def _mention(quote: str) -> dict[str, Any]:
    start = TEXT.index(quote)
    return {"source": "S1", "quote": quote, "start": start, "end": start + len(quote)}


def _search(term: str, catalog: str = "creature_name") -> dict[str, Any]:
    return {
        "term": term,
        "catalog": catalog,
        "role": "affected_subject",
        "mentions": [_mention(term)],
    }


def _name(term: str, quote: str | None = None) -> dict[str, Any]:
    return {"term": term, "role": "affected_subject", "mentions": [_mention(quote or term)]}


def _plan(searches: list[dict[str, Any]], unsearched: list[dict[str, Any]]) -> ResolutionPlanOutput:
    return ResolutionPlanOutput.model_validate({"searches": searches, "unsearched": unsearched})


PLAN = _plan(
    [_search("Marshal Dughan", "creature_locale"), _search("Innkeeper Farley")],
    [_name("Smith Argus"), _name("Corina Steele"), _name("Erma")],
)


def test_unsearched_names_become_searches_after_the_plans_own() -> None:
    ids = [(sid, s.term, s.catalog) for sid, s in planned_searches(PLAN, batched=True)]
    assert ids == [
        ("Q1", "Marshal Dughan", "creature_locale"),
        ("Q2", "Innkeeper Farley", "creature_name"),
        ("Q3", "Smith Argus", "creature_locale"),
        ("Q4", "Corina Steele", "creature_locale"),
        ("Q5", "Erma", "creature_locale"),
    ]
    assert [sid for sid, _ in planned_searches(PLAN, batched=False)] == ["Q1", "Q2"]
    assert sorted(batched_origins(PLAN, batched=True)) == ["Q3", "Q4", "Q5"]  # Q1, Q2: the plan's
    batched = batched_searches(PLAN)
    assert [position for position, _ in batched] == [0, 1, 2]
    assert batched[0][1].mentions == PLAN.unsearched[0].mentions
    assert batched[0][1].role == "affected_subject"


def test_a_name_that_repeats_a_search_or_is_no_search_term_stays_unsearched() -> None:
    plan = _plan(
        [_search("Marshal Dughan")],
        [
            _name("marshal dughan", "Marshal Dughan"),  # the same term as Q1, folded
            _name(" Smith Argus", "Smith Argus"),  # outer whitespace
            _name("Corina\u200bSteele", "Corina Steele"),  # a zero-width space
            _name("Erma"),
            _name("ERMA", "Erma"),  # a repeat of the one before
        ],
    )
    assert [(p, s.term) for p, s in batched_searches(plan)] == [(3, "Erma")]
    assert batched_origins(plan, batched=True) == {"Q2": 3}
    assert batched_origins(plan, batched=False) == {}


def test_the_batch_is_bounded() -> None:
    names = [_name("Erma")] * (MAX_BATCHED_NAMES + 5)
    distinct = [{**n, "term": f"Erma{i}", "mentions": n["mentions"]} for i, n in enumerate(names)]
    # the term must occur in its quote for the plan rules; the batch itself needs no DB
    plan = _plan([_search("Marshal Dughan")], distinct)
    assert len(batched_searches(plan)) == MAX_BATCHED_NAMES
    crowded = _plan([_search("Marshal Dughan")] * (MAX_SEARCHES - 2), distinct)
    assert len(batched_searches(crowded)) == 2  # never more than MAX_SEARCHES searches in all
    assert batched_searches(_plan([], [_name("Erma")])) == []  # no search, no catalog


def _capture(search_id: str, term: str, rows: list[CatalogRow], batched: bool) -> CaptureArtifact:
    search = dict(planned_searches(PLAN, batched=True))[search_id]
    result = SearchResult(
        catalog=search.catalog,
        entity_type="creature",
        catalog_kind="name",
        term=term,
        sql="SELECT ...",
        parameters={"term": term, "row_limit": 9},
        snapshot=SNAPSHOT,
        row_limit=8,
        truncated=False,
        rows=rows,
        coverage_notes=["note"],
    )
    kind = BATCHED_EXACT_NAME if batched else None
    return CaptureArtifact(search_id=search_id, search=search, result=result, kind=kind)


def test_a_batched_search_selects_and_leaves_no_not_searched_unknown() -> None:
    terms = ["Marshal Dughan", "Innkeeper Farley", "Smith Argus", "Corina Steele", "Erma"]
    entries = [240, 295, 514, 54, 6749]
    captures = [
        (f"{n:064x}", _capture(f"Q{n}", term, [CatalogRow(identity=e, name=term)], n > 2))
        for n, (term, e) in enumerate(zip(terms, entries, strict=True), start=1)
    ]
    index = build_candidate_index(PLAN, captures, batched=True)
    assert [s.search_id for s in index.searches] == ["Q1", "Q2", "Q3", "Q4", "Q5"]
    assert [s.capture_alias for s in index.searches] == ["F1", "F2", "F3", "F4", "F5"]
    verdicts = [
        {
            "search_id": s.search_id,
            "status": "selected",
            "candidate_id": f"{s.search_id}-C1",
            "capture": s.capture_alias,
            "capture_row": 0,
            "mention": _mention(s.term),
            "evidence": [{"source": "S1", "quote": "No gossip"}],
            "rationale": "named in the list of creatures without gossip",
        }
        for s in index.searches
    ]
    assessment = ResolutionAssessmentOutput.model_validate({"assessments": verdicts})
    context = build_resolution_context(PLAN, index, assessment, 32, batched=True)
    assert [n.identity for n in context.selected] == entries
    assert context.unresolved == []
    # the same plan under a protocol without batched names: three not_searched unknowns
    older = build_candidate_index(PLAN, captures[:2])
    legacy = ResolutionAssessmentOutput.model_validate({"assessments": verdicts[:2]})
    unresolved = build_resolution_context(PLAN, older, legacy, 32).unresolved
    assert [(d.term, d.status) for d in unresolved] == [
        ("Smith Argus", "not_searched"),
        ("Corina Steele", "not_searched"),
        ("Erma", "not_searched"),
    ]
