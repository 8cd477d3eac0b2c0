"""Limits that cannot contradict each other (issue 30): the schema caps are the limits' constants,
and a resolution context past MAX_UNRESOLVED records the rest as not examined (protocol v5)."""

import pytest

from tests.unit.test_interpretation_contract import _crowded_context
from vba_assets.domain.interpretation.models import (
    InterpretationOutput,
    InterpretationOutputV4,
    InterpretationOutputV5,
    interpretation_output_model,
)
from vba_assets.domain.interpretation.rules import validate_interpretation
from vba_assets.domain.interpretation.rules_v4 import clarification_targets
from vba_assets.domain.limits import (
    MAX_AFFECTED_SUBJECTS,
    MAX_CLARIFICATION_CHARS,
    MAX_CONTEXT_ENTITIES,
    MAX_SEARCHES,
    MAX_TIME_REFERENCES,
    MAX_UNKNOWNS,
    MAX_UNKNOWNS_V4,
    MAX_UNRESOLVED,
    contradictions,
    not_examined_reason,
)
from vba_assets.domain.prompting.layout import with_protocol
from vba_assets.domain.protocol import PROTOCOLS, protocol
from vba_assets.domain.resolution.context import build_resolution_context
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.errors import ErrorCode
from vba_assets.heuristic.interpretation import interpret_case


def test_no_limit_contradicts_another() -> None:
    assert contradictions() == []
    assert MAX_UNKNOWNS >= MAX_UNRESOLVED + MAX_TIME_REFERENCES
    assert MAX_CONTEXT_ENTITIES >= MAX_SEARCHES


def _max_items(model: type[InterpretationOutput], field: str) -> int:
    return int(model.model_json_schema()["properties"][field]["maxItems"])


def test_the_schema_caps_are_the_limits() -> None:
    assert _max_items(InterpretationOutputV5, "unknowns") == MAX_UNKNOWNS
    assert _max_items(InterpretationOutputV4, "unknowns") == MAX_UNKNOWNS_V4 == 32  # as released
    for model in (InterpretationOutput, InterpretationOutputV4, InterpretationOutputV5):
        assert _max_items(model, "affected_subjects") == MAX_AFFECTED_SUBJECTS
        assert _max_items(model, "context_entities") == MAX_CONTEXT_ENTITIES
        assert _max_items(model, "time_references") == MAX_TIME_REFERENCES
    models = {v: interpretation_output_model(s.complete_interpretation, s.bounded_lists)
              for v, s in PROTOCOLS.items()}  # fmt: skip
    assert models == {
        1: InterpretationOutput,
        2: InterpretationOutput,
        3: InterpretationOutput,
        4: InterpretationOutputV4,
        5: InterpretationOutputV5,
        6: InterpretationOutputV5,
    }


def _plan(names: int) -> ResolutionPlanOutput:
    """A plan that searches nothing and leaves ``names`` names unsearched (mentions are not
    checked against a text here)."""
    unsearched = [
        {
            "term": f"n{i}",
            "role": "affected_subject",
            "mentions": [{"source": "S2", "quote": f"n{i}", "start": 0, "end": len(f"n{i}")}],
        }
        for i in range(names)
    ]
    return ResolutionPlanOutput.model_validate({"searches": [], "unsearched": unsearched})


def test_names_past_the_limit_are_not_examined_only_when_bounded() -> None:
    plan = _plan(MAX_UNRESOLVED + 3)
    index = CandidateIndex(searches=[])
    assessment = ResolutionAssessmentOutput(assessments=[])
    bounded = build_resolution_context(plan, index, assessment, MAX_UNRESOLVED)
    assert [d.alias for d in bounded.unresolved] == [f"D{i}" for i in range(1, MAX_UNRESOLVED + 1)]
    assert [n.term for n in bounded.not_examined] == [f"n{i}" for i in range(32, 35)]
    assert {n.reason for n in bounded.not_examined} == {not_examined_reason(MAX_UNRESOLVED)}
    assert bounded.not_examined[0].pointer.endswith(f"/unsearched/{MAX_UNRESOLVED}")
    unbounded = build_resolution_context(plan, index, assessment)  # protocols 1-4
    assert len(unbounded.unresolved) == MAX_UNRESOLVED + 3 and unbounded.not_examined == []
    assert "not_examined" not in unbounded.model_dump(mode="json")  # v4 bytes unchanged


@pytest.mark.parametrize("subjects", [4, 16])
def test_a_clarification_about_many_subjects_can_be_met_from_protocol_5(subjects: int) -> None:
    """``subjects`` truncated affected subjects of eight candidates each: protocol 4 asks for
    every id in 500 characters (no reply can meet it past a few subjects); protocol 5 asks for the
    subjects whose listing fits its budget, and the heuristic's question meets it."""
    crowded = _crowded_context(subjects, "Wild Wolpertinger")
    v4 = interpret_case(crowded)
    v4_codes = {f.code for f in validate_interpretation(v4, crowded, protocol(4))}
    assert (ErrorCode.INTERPRETATION_CLARIFICATION_CANDIDATES in v4_codes) == (subjects > 4)
    bounded = with_protocol(crowded, 5)
    output = interpret_case(bounded)
    assert isinstance(output, InterpretationOutputV5)
    assert validate_interpretation(output, bounded, protocol(5)) == []
    question = output.ambiguity.clarification_question or ""
    assert len(question) <= MAX_CLARIFICATION_CHARS and question.endswith("?")
    listed = [e.ref for e in output.affected_subjects if e.ref]
    required = clarification_targets(bounded, listed, bounded=True)
    assert 1 <= len(required) <= subjects
    assert all(str(i) in question for d in required for i in d.candidate_identities[:8])
