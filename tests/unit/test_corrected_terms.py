"""Corrected search terms (protocol v6, issue 29 item 5): the controller's bound on a correction,
its refusals, the assessment rule of a corrected search, and protocols 1-5 unchanged.

Every case here is a made-up report; the expected findings follow from the documented measure
(:mod:`vba_assets.domain.resolution.corrections`), not from recorded output.
"""

from typing import Any

import pytest
from pydantic import ValidationError

from tests.unit.test_resolution_rules import CATALOGS, SNAPSHOT
from vba_assets.domain.catalog.world import CatalogRow, SearchResult
from vba_assets.domain.protocol import PROTOCOLS, RULES, current_protocol, protocol
from vba_assets.domain.resolution import legacy, legacy_v4
from vba_assets.domain.resolution.context import build_candidate_index
from vba_assets.domain.resolution.corrections import correction_refusal, edit_distance
from vba_assets.domain.resolution.models import (
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.resolution.rules import validate_assessment, validate_plan
from vba_assets.errors import ErrorCode

SPEC = current_protocol()
BODY = (
    "Onixya stays on the ground in phase two. Brtallus and zul jin too, and Hagar. "
    "Real Onyxia is fine. Onixya50% breaks."
)
CASE: dict[str, Any] = {"sources": [{"alias": "S1", "readable": True, "text": BODY}]}


def mention(quote: str, nth: int = 0) -> dict[str, Any]:
    start = -1
    for _ in range(nth + 1):
        start = BODY.index(quote, start + 1)
    return {"source": "S1", "quote": quote, "start": start, "end": start + len(quote)}


def corrected(term: str, quote: str, *more: dict[str, Any]) -> dict[str, Any]:
    cited = mention(quote)
    return {
        "term": term,
        "catalog": "creature_name",
        "role": "affected_subject",
        "mentions": [cited, *more],
        "corrected_from": cited,
    }


def codes(*searches: dict[str, Any], spec: Any = SPEC) -> list[tuple[str, str, str]]:
    plan = ResolutionPlanOutput.model_validate({"searches": list(searches)})
    return [(i.code.value, i.path, i.message) for i in validate_plan(plan, CASE, CATALOGS, 4, spec)]


@pytest.mark.parametrize(
    ("term", "quote"),
    [
        ("Onyxia", "Onixya"),  # two letters swapped: 2 edits of 6
        ("Brutallus", "Brtallus"),  # one letter left out
        ("Zul'jin", "zul jin"),  # only spacing and punctuation differ
    ],
)
def test_a_close_correction_is_accepted_without_the_literal_rule(term: str, quote: str) -> None:
    assert codes(corrected(term, quote)) == []
    # the same search without corrected_from breaks the literal rule (the old behaviour)
    literal = corrected(term, quote)
    del literal["corrected_from"]
    assert [c for c, _, _ in codes(literal)] == ["PLAN_TERM_NOT_IN_QUOTE"]


def test_a_correction_too_far_from_its_quote_is_refused() -> None:
    issues = codes(corrected("Ragnaros", "Onixya"))
    assert [(c, p) for c, p, _ in issues] == [("PLAN_CORRECTION_REFUSED", "/searches/0/term")]
    assert "too far" in issues[0][2] and "'Onixya'" in issues[0][2]
    assert "Hogger" in codes(corrected("Hogger", "Hagar"))[0][2]  # 2 edits of 5 letters: > 1/3


def test_a_quote_that_already_holds_the_term_is_refused() -> None:
    issues = codes(corrected("Onyxia", "Real Onyxia"))
    assert [(c, p) for c, p, _ in issues] == [("PLAN_CORRECTION_REFUSED", "/searches/0/term")]
    assert "already holds the term" in issues[0][2]


@pytest.mark.parametrize("term", ["Onyx%a", "Onyxi_", "Onyxia50", "Ony*ia"])
def test_a_term_with_a_wildcard_or_digit_is_refused(term: str) -> None:
    issues = codes(corrected(term, "Onixya50%"))
    assert [c for c, _, _ in issues] == ["PLAN_CORRECTION_REFUSED"]
    assert "letters, spaces, apostrophes and hyphens only" in issues[0][2]


def test_corrected_from_must_be_one_of_the_mentions() -> None:
    search = corrected("Onyxia", "Onixya")
    search["mentions"] = [mention("Onixya", 1)]  # the other occurrence
    issues = codes(search)
    assert [(c, p) for c, p, _ in issues] == [
        ("PLAN_CORRECTION_REFUSED", "/searches/0/corrected_from")
    ]


def test_other_mentions_hold_the_term_or_are_corrected_within_the_bound() -> None:
    ok = corrected("Onyxia", "Onixya", mention("Onyxia"), mention("Onixya", 1))
    assert codes(ok) == []
    far = corrected("Onyxia", "Onixya", mention("Brtallus"))
    assert [c for c, _, _ in codes(far)] == ["PLAN_TERM_NOT_IN_QUOTE"]


@pytest.mark.parametrize(
    ("left", "right", "distance"),
    [("onyxia", "onixya", 2), ("brutallus", "brtallus", 1), ("gruul", "grull", 1), ("ab", "ab", 0)],
)
def test_the_bounded_edit_distance(left: str, right: str, distance: int) -> None:
    assert edit_distance(left, right, 2) == distance
    assert edit_distance("onyxia", "ragnaros", 2) == 3  # past the bound


def test_the_first_letter_rule() -> None:
    assert correction_refusal("Gothik", "Gotic") is None  # 2 edits, same first letter
    assert correction_refusal("Gothik", "Kothic") is not None  # 2 edits, first letter changed
    assert correction_refusal("Gruul", "Kruul") is None  # 1 edit may change the first letter


def _index(rows: list[tuple[int, str]]) -> tuple[ResolutionPlanOutput, Any]:
    search = corrected("Onyxia", "Onixya")
    result = SearchResult(
        catalog="creature_name",
        entity_type="creature",
        catalog_kind="name",
        term="Onyxia",
        sql="SELECT ... LIKE ? ESCAPE '\\' ORDER BY ... LIMIT ?",
        parameters={"pattern": "%Onyxia%"},
        snapshot=SNAPSHOT,
        row_limit=8,
        truncated=False,
        rows=[CatalogRow(identity=i, name=n) for i, n in rows],
        elapsed_ms=1.0,
        coverage_notes=["scoped"],
    )
    plan = ResolutionPlanOutput.model_validate({"searches": [search]})
    cap = CaptureArtifact(search_id="Q1", search=plan.searches[0], result=result)
    return plan, build_candidate_index(plan, [("a" * 64, cap)])


def _select(candidate: str, row: int, evidence: str) -> ResolutionAssessmentOutput:
    return ResolutionAssessmentOutput.model_validate(
        {
            "assessments": [
                {
                    "search_id": "Q1",
                    "status": "selected",
                    "candidate_id": candidate,
                    "capture": "F1",
                    "capture_row": row,
                    "mention": mention("Onixya"),
                    "evidence": [{"source": "S1", "quote": evidence}],
                    "rationale": "r",
                }
            ]
        }
    )


def test_a_corrected_search_selects_only_a_candidate_named_exactly_the_term() -> None:
    plan, index = _index([(10184, "Onyxia"), (12756, "Lady Onyxia")])
    context = "Onixya stays on the ground in phase two"
    assert validate_assessment(_select("Q1-C1", 0, context), index, plan, CASE, SPEC) == []
    found = validate_assessment(_select("Q1-C2", 1, context), index, plan, CASE, SPEC)
    assert [i.code for i in found] == [ErrorCode.ASSESSMENT_CORRECTION_DISAGREES]
    # the misspelled quote alone is the name, not evidence
    bare = validate_assessment(_select("Q1-C1", 0, "Onixya"), index, plan, CASE, SPEC)
    assert [i.code for i in bare] == [ErrorCode.ASSESSMENT_NO_EVIDENCE]


def test_protocols_1_to_5_have_no_corrections() -> None:
    assert RULES[ErrorCode.PLAN_CORRECTION_REFUSED].since == 6
    assert RULES[ErrorCode.ASSESSMENT_CORRECTION_DISAGREES].since == 6
    assert [v for v, spec in PROTOCOLS.items() if spec.corrected_terms] == [6]
    for version in (4, 5):
        model = legacy.plan_output_model(True, protocol(version).corrected_terms)
        assert model is legacy_v4.ResolutionPlanOutput
        assert "corrected_from" not in str(model.model_json_schema())
        with pytest.raises(ValidationError):
            model.model_validate({"searches": [corrected("Onyxia", "Onixya")]})
    current = legacy.plan_output_model(True, SPEC.corrected_terms)
    assert "corrected_from" in str(current.model_json_schema())
    # v4-v5 schema: the same bytes as the current one without the v6 field and wording
    schema = legacy_v4.ResolutionPlanOutput.model_json_schema()
    now = ResolutionPlanOutput.model_json_schema()
    now_search = dict(now["$defs"]["ProposedSearch"])
    now_search["properties"] = {
        k: v for k, v in now_search["properties"].items() if k != "corrected_from"
    }
    del now_search["properties"]["term"]["description"]
    old_search = dict(schema["$defs"]["ProposedSearch"])
    old_search["properties"] = dict(old_search["properties"])
    old_search["properties"]["term"] = {
        k: v for k, v in old_search["properties"]["term"].items() if k != "description"
    }
    assert old_search == now_search
