"""The controller's plan and assessment rules (ARCHITECTURE 6.1, 6.4), one rule at a time."""

from typing import Any

import pytest

from vba_assets.config import CatalogConfig
from vba_assets.domain.catalog.world import CatalogRow, SearchResult, SnapshotBinding
from vba_assets.domain.resolution.context import build_candidate_index, build_resolution_context
from vba_assets.domain.resolution.models import (
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.resolution.rules import validate_assessment, validate_plan
from vba_assets.errors import ErrorCode

BODY = "I can't find the Wild Wolpertinger for Goldark's quest. Wild\u200bWolpertinger too."
CASE: dict[str, Any] = {
    "sources": [
        {"alias": "S1", "readable": True, "text": "Wolpertinger missing"},
        {"alias": "S2", "readable": True, "text": BODY},
        {"alias": "S3", "readable": False, "text": None},
    ]
}
CATALOGS = [
    CatalogConfig(
        name="creature_name",
        entity_type="creature",
        table="creature_template",
        identity_column="entry",
        name_column="name",
    )
]


def mention(quote: str, source: str = "S2", start: int | None = None) -> dict[str, Any]:
    text = next(s["text"] for s in CASE["sources"] if s["alias"] == source) or ""
    begin = text.index(quote) if start is None else start
    return {"source": source, "quote": quote, "start": begin, "end": begin + len(quote)}


def search(term: str, *mentions: dict[str, Any], catalog: str = "creature_name") -> dict[str, Any]:
    return {
        "term": term,
        "catalog": catalog,
        "role": "affected_subject",
        "mentions": list(mentions),
    }


def plan_issues(*searches: dict[str, Any], max_searches: int = 4) -> list[str]:
    plan = ResolutionPlanOutput.model_validate({"searches": list(searches)})
    issues = validate_plan(plan, CASE, CATALOGS, max_searches)
    assert all(i.code is ErrorCode.LLM_OUTPUT_RULES for i in issues)
    return [f"{i.path}: {i.message}" for i in issues]


def test_a_grounded_plan_passes() -> None:
    assert plan_issues(search("Wild Wolpertinger", mention("Wild Wolpertinger"))) == []
    # the singular inside a plural, the name before a possessive, any case
    assert plan_issues(search("goldark", mention("Goldark's"))) == []


@pytest.mark.parametrize(
    ("searches", "expected"),
    [
        (
            [search("Wolpertinger King", mention("Wild Wolpertinger"))],
            "does not occur in the cited quote",
        ),
        (
            [search("Wild Wolpertinger", mention("Wild Wolpertinger", start=1))],
            "not 'Wild Wolpertinger'",
        ),
        ([search("Wild Wolpertinger", {**mention("Wild Wolpertinger"), "end": 999})], "outside S2"),
        (
            [search("Wild", {"source": "S3", "quote": "Wild", "start": 0, "end": 4})],
            "S3 is not readable",
        ),
        (
            [search("Wild", {"source": "S9", "quote": "Wild", "start": 0, "end": 4})],
            "S9 does not exist",
        ),
        ([search("Wild", mention("Wild"), catalog="quest_template")], "unknown catalog"),
        (
            [search("Wolpertinger", mention("Wild\u200bWolpertinger"))],
            "invisible zero-width or bidi",
        ),
        (
            [search("Wild\u200bWolpertinger", mention("Wild\u200bWolpertinger"))],
            "zero-width or bidi",
        ),
        ([search(" Wild", mention(" Wild"))], "one line without outer whitespace"),
        (
            [search("Wild", mention("Wild")), search("WILD", mention("Wild"))],
            "duplicate of /searches/0",
        ),
        (
            [search("Wild", mention("Wild")), search("Goldark", mention("Goldark"))],
            "2 searches proposed; at most 1",
        ),
    ],
)
def test_each_plan_rule(searches: list[dict[str, Any]], expected: str) -> None:
    issues = plan_issues(*searches, max_searches=1 if "at most 1" in expected else 4)
    assert any(expected in issue for issue in issues), issues


def test_the_plan_schema_has_no_place_for_sql_tables_or_urls() -> None:
    with pytest.raises(ValueError, match="Extra inputs"):
        ResolutionPlanOutput.model_validate(
            {"searches": [{**search("Wild", mention("Wild")), "table": "account"}]}
        )


# --- assessment ----------------------------------------------------------------------------------

SNAPSHOT = SnapshotBinding(label="t", backend="sqlite", schema_fingerprint="0" * 64)


def capture(term: str, names: list[tuple[int, str]], truncated: bool = False) -> CaptureArtifact:
    plan_search = search(term, mention(term))
    result = SearchResult(
        catalog="creature_name",
        entity_type="creature",
        catalog_kind="name",
        term=term,
        sql="SELECT ... LIKE ? ESCAPE '\\' ORDER BY ... LIMIT ?",
        parameters={"pattern": f"%{term}%"},
        snapshot=SNAPSHOT,
        row_limit=8,
        truncated=truncated,
        rows=[CatalogRow(identity=i, name=n) for i, n in names],
        elapsed_ms=1.0,
        coverage_notes=["scoped"],
    )
    return CaptureArtifact(search_id="Q1", search=plan_search, result=result)  # type: ignore[arg-type]


def setup(names: list[tuple[int, str]], truncated: bool = False) -> tuple[Any, Any]:
    cap = capture("Wild Wolpertinger", names, truncated)
    plan = ResolutionPlanOutput.model_validate({"searches": [cap.search.model_dump()]})
    return plan, build_candidate_index(plan, [("a" * 64, cap)])


def verdict(**fields: Any) -> ResolutionAssessmentOutput:
    base = {"search_id": "Q1", "rationale": "r"}
    return ResolutionAssessmentOutput.model_validate({"assessments": [base | fields]})


SELECT = {
    "status": "selected",
    "candidate_id": "Q1-C1",
    "capture": "F1",
    "capture_row": 0,
    "mention": mention("Wild Wolpertinger"),
    "evidence": [{"source": "S2", "quote": "I can't find the Wild Wolpertinger"}],
}
ROWS = [(23487, "Wild Wolpertinger"), (90001, "Wild Wolpertinger Kit")]  # both contain the term


def assessment_issues(
    rows: list[tuple[int, str]], truncated: bool = False, **fields: Any
) -> list[str]:
    plan, index = setup(rows, truncated)
    issues = validate_assessment(verdict(**fields), index, plan, CASE)
    return [f"{i.path}: {i.message}" for i in issues]


def test_a_cited_selection_passes_and_becomes_an_n_alias() -> None:
    assert assessment_issues(ROWS, **SELECT) == []
    plan, index = setup(ROWS)
    context = build_resolution_context(plan, index, verdict(**SELECT))
    assert [(n.alias, n.identity, n.capture_row) for n in context.selected] == [("N1", 23487, 0)]
    assert context.selected[0].role_label == "model_contextual_selection_not_causation"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"candidate_id": "Q1-C7"}, "is not a candidate of Q1"),
        ({"capture": "F2"}, "the capture of Q1 is F1"),
        ({"capture_row": 1}, "is row 0 of F1"),
        ({"mention": mention("Goldark")}, "cite one of the mentions of Q1"),
        ({"evidence": []}, "not a similar name"),
        ({"evidence": [{"source": "S2", "quote": "Wild Wolpertinger"}]}, "only the name itself"),
        ({"evidence": [{"source": "S2", "quote": "not in the report"}]}, "not found verbatim"),
    ],
)
def test_each_selection_rule(fields: dict[str, Any], expected: str) -> None:
    issues = assessment_issues(ROWS, **(SELECT | fields))
    assert any(expected in issue for issue in issues), issues


def test_a_truncated_search_cannot_select_and_becomes_a_truncated_d_alias() -> None:
    assert any("truncated" in i for i in assessment_issues(ROWS, truncated=True, **SELECT))
    plan, index = setup(ROWS, truncated=True)
    ambiguous = verdict(status="ambiguous", competing_candidate_ids=["Q1-C1", "Q1-C2"])
    assert validate_assessment(ambiguous, index, plan, CASE) == []
    context = build_resolution_context(plan, index, ambiguous)
    assert [(d.alias, d.status) for d in context.unresolved] == [("D1", "truncated")]


def test_ambiguous_and_no_match_rules() -> None:
    assert (
        assessment_issues(ROWS, status="ambiguous", competing_candidate_ids=["Q1-C1", "Q1-C2"])
        == []
    )
    assert any("names the candidates" in i for i in assessment_issues(ROWS, status="ambiguous"))
    assert any(
        "not candidates" in i
        for i in assessment_issues(ROWS, status="ambiguous", competing_candidate_ids=["Q1-C9"])
    )
    assert any(
        "selects no candidate" in i
        for i in assessment_issues(ROWS, status="no_match", candidate_id="Q1-C1")
    )
    assert assessment_issues([], status="no_match") == []


def test_every_search_is_assessed_exactly_once() -> None:
    plan, index = setup(ROWS)
    twice = ResolutionAssessmentOutput.model_validate(
        {"assessments": [{"search_id": "Q1", "status": "no_match", "rationale": "r"}] * 2}
    )
    assert any("assessed twice" in i.message for i in validate_assessment(twice, index, plan, CASE))
    none = ResolutionAssessmentOutput.model_validate({"assessments": []})
    assert any("missing ['Q1']" in i.message for i in validate_assessment(none, index, plan, CASE))
    unknown = ResolutionAssessmentOutput.model_validate(
        {"assessments": [{"search_id": "Q2", "status": "no_match", "rationale": "r"}]}
    )
    assert any(
        "unknown search Q2" in i.message for i in validate_assessment(unknown, index, plan, CASE)
    )
