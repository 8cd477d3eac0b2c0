"""The three model requests of a revision, rebuilt from frozen artifacts only.

The same function builds the request a stage sends and the request replay verification rebuilds, so
a completed revision's requests can be compared byte for byte with its dispatch records.
"""

from typing import Any

from vba_assets.config import CatalogConfig
from vba_assets.domain.interpretation.rules import interpretation_validator
from vba_assets.domain.llm.contract import ModelRequest
from vba_assets.domain.prompting.prompts import load_prompt_set
from vba_assets.domain.prompting.requests import (
    RequestParams,
    assessment_validator,
    build_assessment_request,
    build_interpretation_request,
    build_plan_request,
    plan_validator,
)
from vba_assets.domain.prompting.stage_context import (
    assessment_stage_context,
    interpretation_stage_context,
    plan_stage_context,
)
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    ResolutionContext,
    ResolutionInput,
    ResolutionPlanOutput,
)
from vba_assets.pipeline.revision import RevisionEnv, interpretation_input


def frozen_catalog_configs(frozen: ResolutionInput) -> list[CatalogConfig]:
    return [CatalogConfig.model_validate(c) for c in frozen.catalogs]


def request_params(env: RevisionEnv) -> RequestParams:
    """The frozen model parameters of the revision (never the current config's)."""
    frozen = interpretation_input(env)
    return RequestParams(
        model=frozen.model,
        max_tokens=int(frozen.parameters.get("max_tokens") or env.llm.max_tokens),
        temperature=frozen.parameters.get("temperature"),
        dialect=frozen.schema_dialect,
    )


def plan_request(env: RevisionEnv, frozen: ResolutionInput) -> tuple[ModelRequest, Any]:
    """Model call 1's request and validator, rebuilt from frozen artifacts only."""
    case_doc = env.case_doc()
    catalogs = frozen_catalog_configs(frozen)
    context = plan_stage_context(case_doc, catalogs, frozen.max_searches)
    prompts = load_prompt_set(frozen.prompt_version)
    request = build_plan_request(context, prompts, frozen.protocol_version, request_params(env))
    return request, plan_validator(case_doc, catalogs, frozen.max_searches)


def assessment_request(
    env: RevisionEnv, frozen: ResolutionInput, plan: ResolutionPlanOutput, index: CandidateIndex
) -> tuple[ModelRequest, Any]:
    """Model call 2's request and validator, rebuilt from frozen artifacts only."""
    case_doc = env.case_doc()
    context = assessment_stage_context(case_doc, plan, index)
    prompts = load_prompt_set(frozen.prompt_version)
    request = build_assessment_request(
        context, prompts, frozen.protocol_version, request_params(env)
    )
    return request, assessment_validator(case_doc, plan, index)


def interpretation_request(
    env: RevisionEnv, resolution: ResolutionContext | None
) -> tuple[ModelRequest, Any]:
    """Model call 3's request and validator, rebuilt from frozen artifacts only."""
    frozen = interpretation_input(env)
    context = interpretation_stage_context(env.case_doc(), resolution)
    prompts = load_prompt_set(frozen.prompt_version)
    request = build_interpretation_request(
        context, prompts, frozen.protocol_version, request_params(env)
    )
    return request, interpretation_validator(context)
