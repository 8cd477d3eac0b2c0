"""The three model requests of a revision, rebuilt from its frozen artifacts only.

The same function builds the request a stage sends, the request replay verification rebuilds and
the one ``vba context show`` lists, so a completed revision's requests can be compared byte for byte
with its dispatch records. Each returns the request and the ``validate`` callable of its stage,
under the revision's frozen protocol.
"""

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from vba_assets.domain.interpretation.rules import interpretation_validator
from vba_assets.domain.llm.contract import ModelRequest
from vba_assets.domain.prompting.requests import (
    assessment_validator,
    build_assessment_request,
    build_interpretation_request,
    build_plan_request,
    plan_validator,
)
from vba_assets.domain.resolution.aliases import ResolutionContext
from vba_assets.domain.resolution.models import CandidateIndex, ResolutionPlanOutput
from vba_assets.domain.stage_context import (
    InterpretationStageContext,
    assessment_stage_context,
    interpretation_stage_context,
    plan_stage_context,
)
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.pipeline.artifacts import load_candidate_index, load_plan, load_resolution_context
from vba_assets.pipeline.frozen_revision import FrozenRevision

Validate = Callable[[Any], Any]
BuiltRequest = tuple[ModelRequest, Validate]


def _resolution(rev: FrozenRevision) -> Any:
    frozen = rev.resolution
    if frozen is None or frozen.status != "enabled":
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{rev.case_id} revision {rev.revision}: entity resolution is not enabled",
        )
    return frozen


def plan_request(rev: FrozenRevision) -> BuiltRequest:
    """Model call 1's request and validator."""
    frozen = _resolution(rev)
    case_doc, catalogs = rev.case_doc(), rev.catalogs
    context = plan_stage_context(case_doc, catalogs, frozen.max_searches)
    request = build_plan_request(context, rev.prompts, rev.spec, rev.request_params)
    return request, plan_validator(case_doc, catalogs, frozen.max_searches, rev.spec)


def assessment_request(
    rev: FrozenRevision, plan: ResolutionPlanOutput, index: CandidateIndex
) -> BuiltRequest:
    """Model call 2's request and validator, for the accepted plan and its candidate index."""
    case_doc = rev.case_doc()
    context = assessment_stage_context(case_doc, plan, index, rev.spec.batched_exact_names)
    request = build_assessment_request(context, rev.prompts, rev.spec, rev.request_params)
    return request, assessment_validator(case_doc, plan, index, rev.spec)


def interpretation_stage(
    rev: FrozenRevision, resolution: ResolutionContext | None
) -> InterpretationStageContext:
    """The interpretation's stage context; from protocol v4 on it also names the competing
    candidates of every unresolved identity (from the candidate index), so a clarification can."""
    index = (
        load_candidate_index(rev)
        if resolution is not None and rev.spec.complete_interpretation
        else None
    )
    return interpretation_stage_context(rev.case_doc(), resolution, index)


def interpretation_request(
    rev: FrozenRevision, resolution: ResolutionContext | None
) -> BuiltRequest:
    """Model call 3's request and validator (the resolved prompt when ``resolution`` is set)."""
    context = interpretation_stage(rev, resolution)
    request = build_interpretation_request(context, rev.prompts, rev.spec, rev.request_params)
    return request, interpretation_validator(context, rev.spec)


def interpretation_context(rev: FrozenRevision) -> ResolutionContext | None:
    """The F/N/D context the interpretation is built on (None when resolution is disabled).

    Raises:
        StoreError: ``ARTIFACT_MISSING`` when resolution is enabled but has no accepted context.
    """
    if not rev.resolution_enabled:
        return None
    context = load_resolution_context(rev)
    if context is None:
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"{rev.case_id} revision {rev.revision}: entity resolution is enabled but has no "
            "accepted assessment yet; materialize resolution_assessment first",
            missing=rev.layout.context,
        )
    return context


#: The files a stage's request is built from (its request is a pure function of their bytes).
def _request_inputs(rev: FrozenRevision, stage: Stage) -> tuple[str, ...]:
    layout = rev.layout
    frozen = (rev.case_relpath, layout.input, layout.er_input)
    if stage is Stage.RESOLUTION_PLAN:
        return frozen
    if stage is Stage.RESOLUTION_ASSESSMENT:
        return (*frozen, layout.plan, layout.candidates)
    return (*frozen, layout.plan, layout.candidates, layout.context)


_BUILT: "OrderedDict[tuple[Any, ...], BuiltRequest]" = OrderedDict()
_BUILT_LIMIT = 64


def rebuild_request(rev: FrozenRevision, stage: Stage) -> BuiltRequest:
    """The request of a model stage, rebuilt from the accepted artifacts before it.

    A stage and its checks rebuild the same request; the result is remembered per process, keyed
    by the sha256 of every file it is built from.

    Raises:
        StoreError: ``ARTIFACT_MISSING`` when an artifact the request is built from is missing.
    """
    package = rev.package
    key = (
        stage,
        tuple(
            package.artifact_ref(path).sha256 if package.exists(path) else None
            for path in _request_inputs(rev, stage)
        ),
    )
    built = _BUILT.get(key)
    if built is None:
        built = _BUILT[key] = _rebuild_request(rev, stage)
        if len(_BUILT) > _BUILT_LIMIT:
            _BUILT.popitem(last=False)
    return built


def _rebuild_request(rev: FrozenRevision, stage: Stage) -> BuiltRequest:
    if stage is Stage.RESOLUTION_PLAN:
        return plan_request(rev)
    if stage is Stage.RESOLUTION_ASSESSMENT:
        plan, index = load_plan(rev), load_candidate_index(rev)
        if plan is None or index is None:
            raise StoreError(
                ErrorCode.ARTIFACT_MISSING,
                f"{stage.value}: no accepted plan and candidate index to rebuild its request from",
            )
        return assessment_request(rev, plan, index)
    if stage is Stage.INTERPRETATION:
        return interpretation_request(rev, interpretation_context(rev))
    raise ValueError(f"{stage.value} sends no model request")
