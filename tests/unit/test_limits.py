"""Limits that cannot contradict each other (issue 30): the schema caps are the limits' constants,
and a resolution context past MAX_UNRESOLVED records the rest as not examined (protocol v5)."""

from vba_assets.domain.interpretation.models import (
    InterpretationOutput,
    InterpretationOutputV4,
    InterpretationOutputV5,
    interpretation_output_model,
)
from vba_assets.domain.limits import (
    MAX_AFFECTED_SUBJECTS,
    MAX_CONTEXT_ENTITIES,
    MAX_SEARCHES,
    MAX_TIME_REFERENCES,
    MAX_UNKNOWNS,
    MAX_UNKNOWNS_V4,
    MAX_UNRESOLVED,
    contradictions,
    not_examined_reason,
)
from vba_assets.domain.protocol import PROTOCOLS
from vba_assets.domain.resolution.context import build_resolution_context
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)


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
