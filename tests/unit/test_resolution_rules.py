"""The controller's plan and assessment rules (ARCHITECTURE 6.1, 6.4), one rule at a time."""

from typing import Any

import pytest

from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.world import CatalogRow, SearchResult, SnapshotBinding
from vba_assets.domain.protocol import current_protocol
from vba_assets.domain.resolution.context import build_candidate_index, build_resolution_context
from vba_assets.domain.resolution.models import (
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.resolution.rules import (
    validate_assessment,
    validate_plan,
    words_beyond_names,
)
from vba_assets.errors import ErrorCode

#: The rules a new revision is judged by.
SPEC = current_protocol()

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
    issues = validate_plan(plan, CASE, CATALOGS, max_searches, SPEC)
    return [f"{i.code.value} {i.path}: {i.message}" for i in issues]


def test_a_grounded_plan_passes() -> None:
    assert plan_issues(search("Wild Wolpertinger", mention("Wild Wolpertinger"))) == []
    # the singular inside a plural, the name before a possessive, any case
    assert plan_issues(search("goldark", mention("Goldark's"))) == []


@pytest.mark.parametrize(
    ("searches", "expected"),
    [
        (
            [search("Wolpertinger King", mention("Wild Wolpertinger"))],
            "PLAN_TERM_NOT_IN_QUOTE /searches/0/term: term 'Wolpertinger King' does not occur in the cited quote",
        ),
        (
            [search("Wild Wolpertinger", mention("Wild Wolpertinger", start=1))],
            "CITATION_SPAN_MISMATCH /searches/0/mentions/0/quote: S2[1:18] is \" can't find the W\", not 'Wild Wolpertinger'",
        ),
        (
            [search("Wild Wolpertinger", {**mention("Wild Wolpertinger"), "end": 999})],
            "CITATION_SPAN_OUT_OF_RANGE /searches/0/mentions/0/end: span [17, 999) is outside S2",
        ),
        (
            [search("Wild", {"source": "S3", "quote": "Wild", "start": 0, "end": 4})],
            "CITATION_SOURCE_UNREADABLE /searches/0/mentions/0/source: source S3 is not readable",
        ),
        (
            [search("Wild", {"source": "S9", "quote": "Wild", "start": 0, "end": 4})],
            "CITATION_SOURCE_UNREADABLE /searches/0/mentions/0/source: source S9 does not exist",
        ),
        (
            [search("Wild", mention("Wild"), catalog="quest_template")],
            "PLAN_CATALOG_UNKNOWN /searches/0/catalog: unknown catalog",
        ),
        (
            [search("Wolpertinger", mention("Wild\u200bWolpertinger"))],
            "CITATION_INVISIBLE_CHARACTER /searches/0/mentions/0/quote: the span contains an invisible zero-width or bidi",
        ),
        (
            [search("Wild\u200bWolpertinger", mention("Wild\u200bWolpertinger"))],
            "PLAN_TERM_MALFORMED /searches/0/term: the term contains a zero-width or bidi",
        ),
        (
            [search(" Wild", mention(" Wild"))],
            "PLAN_TERM_MALFORMED /searches/0/term: a term is one line without outer whitespace",
        ),
        (
            [search("Wild", mention("Wild")), search("WILD", mention("Wild"))],
            "PLAN_DUPLICATE_SEARCH /searches/1/term: duplicate of /searches/0",
        ),
        (
            [search("Wild", mention("Wild")), search("Goldark", mention("Goldark"))],
            "PLAN_TOO_MANY_SEARCHES /searches: 2 searches proposed; at most 1",
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
    issues = validate_assessment(verdict(**fields), index, plan, CASE, SPEC)
    return [f"{i.code.value} {i.path}: {i.message}" for i in issues]


def test_a_cited_selection_passes_and_becomes_an_n_alias() -> None:
    assert assessment_issues(ROWS, **SELECT) == []
    plan, index = setup(ROWS)
    context = build_resolution_context(plan, index, verdict(**SELECT))
    assert [(n.alias, n.identity, n.capture_row) for n in context.selected] == [("N1", 23487, 0)]
    assert context.selected[0].role_label == "model_contextual_selection_not_causation"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"candidate_id": "Q1-C7"}, "ASSESSMENT_NOT_A_CANDIDATE /assessments/0/candidate_id"),
        ({"capture": "F2"}, "ASSESSMENT_WRONG_CAPTURE /assessments/0/capture: the capture of Q1"),
        ({"capture_row": 1}, "ASSESSMENT_WRONG_CAPTURE /assessments/0/capture_row: Q1-C1 is row 0"),
        ({"mention": mention("Goldark")}, "ASSESSMENT_MENTION_NOT_CITED /assessments/0/mention"),
        ({"evidence": []}, "ASSESSMENT_NO_EVIDENCE /assessments/0/evidence: a selection needs"),
        (
            {"evidence": [{"source": "S2", "quote": "Wild Wolpertinger"}]},
            "ASSESSMENT_NO_EVIDENCE /assessments/0/evidence: the evidence is only the name itself",
        ),
        (
            {"evidence": [{"source": "S2", "quote": "not in the report"}]},
            "CITATION_QUOTE_NOT_FOUND /assessments/0/evidence/0: quote not found verbatim",
        ),
    ],
)
def test_each_selection_rule(fields: dict[str, Any], expected: str) -> None:
    issues = assessment_issues(ROWS, **(SELECT | fields))
    assert any(expected in issue for issue in issues), issues


@pytest.mark.parametrize(
    ("quote", "left"),
    [
        ("Wild Wolpertinger!", []),
        ("[b]Wild Wolpertinger[/b]", []),  # formatting tags are no words of the report
        ("[color=#ff0000]WILD wolpertinger[/color]", []),
        ("<strong>Wild Wolpertinger</strong><br/>", []),
        ("[i]Wild Wolpertinger[/i] is missing", ["is", "missing"]),
        ("[url=https://www.wowhead.com/npc=23487]Wild Wolpertinger[/url]", None),  # the id counts
    ],
)
def test_words_beyond_the_names(quote: str, left: list[str] | None) -> None:
    found = words_beyond_names(quote, ["Wild Wolpertinger"])
    assert found == left if left is not None else "23487" in found


def test_a_truncated_search_cannot_select_and_becomes_a_truncated_d_alias() -> None:
    assert [i.split(" ")[0] for i in assessment_issues(ROWS, truncated=True, **SELECT)] == [
        "ASSESSMENT_TRUNCATED_SELECTION"
    ]
    plan, index = setup(ROWS, truncated=True)
    ambiguous = verdict(status="ambiguous", competing_candidate_ids=["Q1-C1", "Q1-C2"])
    assert validate_assessment(ambiguous, index, plan, CASE, SPEC) == []
    context = build_resolution_context(plan, index, ambiguous)
    assert [(d.alias, d.status) for d in context.unresolved] == [("D1", "truncated")]


def test_ambiguous_and_no_match_rules() -> None:
    assert (
        assessment_issues(ROWS, status="ambiguous", competing_candidate_ids=["Q1-C1", "Q1-C2"])
        == []
    )
    assert assessment_issues(ROWS, status="ambiguous") == [
        "ASSESSMENT_STATUS_FIELDS /assessments/0/competing_candidate_ids: 'ambiguous' names the "
        "candidates that remain possible"
    ]
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
    assert any(
        (i.code, i.message) == (ErrorCode.ASSESSMENT_DUPLICATE_SEARCH, "Q1 is assessed twice")
        for i in validate_assessment(twice, index, plan, CASE, SPEC)
    )
    none = ResolutionAssessmentOutput.model_validate({"assessments": []})
    assert any(
        i.code is ErrorCode.ASSESSMENT_MISSING_SEARCH and "missing ['Q1']" in i.message
        for i in validate_assessment(none, index, plan, CASE, SPEC)
    )
    unknown = ResolutionAssessmentOutput.model_validate(
        {"assessments": [{"search_id": "Q2", "status": "no_match", "rationale": "r"}]}
    )
    assert any(
        "unknown search Q2" in i.message
        for i in validate_assessment(unknown, index, plan, CASE, SPEC)
    )
