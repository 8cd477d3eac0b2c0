"""The ``validate`` callables of the two resolution stages for the correction loop (ARCHITECTURE 6).

:func:`plan_validator` and :func:`assessment_validator` check a reply against the stage's output
schema, then against its rules (:mod:`vba_assets.domain.resolution.rules`); the interpretation's
is :func:`vba_assets.domain.interpretation.rules.interpretation_validator`. Separate from the
request builders (:mod:`.requests`, which also exports them) because judging a reply is not
building a request; the few-shot examples (:mod:`.layout`) are judged by the same validators.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.llm.contract import model_validator_for
from vba_assets.domain.protocol import ProtocolSpec
from vba_assets.domain.resolution.legacy import (
    as_current_assessment,
    as_current_plan,
    assessment_output_model,
    plan_output_model,
)
from vba_assets.domain.resolution.models import CandidateIndex, ResolutionPlanOutput
from vba_assets.domain.resolution.rules import validate_assessment, validate_plan


def plan_validator(
    case_doc: Mapping[str, Any],
    catalogs: Sequence[CatalogConfig],
    max_searches: int,
    spec: ProtocolSpec,
) -> Callable[[Any], Any]:
    """``validate`` for model call 1: the plan schema of ``spec`` (:func:`.layout.output_model`),
    then the plan rules of ``spec``; an accepted plan is always a current
    :class:`~vba_assets.domain.resolution.models.ResolutionPlanOutput`."""
    schema = model_validator_for(plan_output_model(spec.identity_references, spec.corrected_terms))

    def validate(data: Any) -> Any:
        value = schema(data)
        if isinstance(value, list):
            return value
        plan = as_current_plan(value)
        return validate_plan(plan, case_doc, catalogs, max_searches, spec) or plan

    return validate


def assessment_validator(
    case_doc: Mapping[str, Any],
    plan: ResolutionPlanOutput,
    candidate_index: CandidateIndex,
    spec: ProtocolSpec,
) -> Callable[[Any], Any]:
    """``validate`` for model call 2: the schema of ``spec`` (v6: with grounded tie-breaks),
    then the assessment rules of ``spec``; an accepted assessment is always a current
    :class:`~vba_assets.domain.resolution.models.ResolutionAssessmentOutput`."""
    schema = model_validator_for(assessment_output_model(spec.grounded_tiebreaks))

    def validate(data: Any) -> Any:
        value = schema(data)
        if isinstance(value, list):
            return value
        assessment = as_current_assessment(value)
        return validate_assessment(assessment, candidate_index, plan, case_doc, spec) or assessment

    return validate
