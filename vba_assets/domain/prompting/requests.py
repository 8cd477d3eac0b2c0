"""Model requests of the three semantic stages and the items they are built from (ARCHITECTURE 6-8).

Per stage: a pure helper builds the stage context from frozen artifacts
(:func:`plan_stage_context`, :func:`assessment_stage_context`, :func:`interpretation_stage_context`
in :mod:`.stage_context`), a builder turns it into a
:class:`~vba_assets.domain.llm.contract.ModelRequest`, and a validator factory gives the
``validate`` callable of ``run_stage`` (schema first, then the stage's rules).

Request layout (what the model receives, in order):

1. ``system``: the versioned instructions of the stage, then its few-shot examples, each rendered
   exactly like a real request plus the accepted reply. Static for a prompt version. Protocol 4
   puts the data notice and the offsets note after the instructions and, for a schema dialect
   without a structured-output channel, the schema at the end.
2. The output schema (the tool / response schema, set by the provider from ``output_schema``).
3. One user message: the stage context, rendered canonically by :mod:`.render`.
   Protocol v2 and v3 append the schema; from protocol 4 it holds per-case data only, so the
   static prefix (definitions and system text) is as long as it can be.

The same inputs always give byte-identical requests; ``stage_context`` carries the structured
context for local providers. :func:`request_items` lists the labelled items a request is built
from (lifecycle, source, exact text) for its context manifest (:mod:`.manifest`); they come
from the same pieces as the request text, so they cannot drift from it.

Three modules; other code imports from this one:

* **Builders** are this module's: :class:`RequestParams`, ``build_*_request``,
  :func:`request_items` and :func:`request_items_for`.
* **Layout** is in :mod:`.layout`: a context's stage and output model, the system text with its
  few-shot examples, and the labelled layout the builders and the items share.
* **Validators** are in :mod:`.validators`: :func:`plan_validator`, :func:`assessment_validator`.
"""

import threading
from collections import OrderedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vba_assets.domain.llm.contract import ModelRequest, build_request
from vba_assets.domain.llm.schemas import SchemaDialect, provider_schema_text
from vba_assets.domain.prompting.items import ContextItem
from vba_assets.domain.prompting.layout import (
    ASSESSMENT_STAGE,
    INTERPRETATION_STAGE,
    OUTPUT_NAME_SOURCE,
    PLAN_STAGE,
    SCHEMA_HEADING_SOURCE,
    STAGE_CONTEXT_SOURCE,
    ExampleStage,
    RenderedContext,
    RequestLayout,
    example_stage,
    interpretation_prompt_name,
    layout_of,
    output_model,
    render_context,
    request_layout,
    stage_of,
    with_protocol,
)
from vba_assets.domain.prompting.pieces import text_of
from vba_assets.domain.prompting.prompts import PromptSet
from vba_assets.domain.prompting.validators import assessment_validator, plan_validator
from vba_assets.domain.protocol import ProtocolSpec, resolved
from vba_assets.domain.stage_context import (
    AssessmentStageContext,
    InterpretationStageContext,
    PlanStageContext,
)
from vba_assets.errors import ErrorCode, ModelError

#: Re-exported: callers import these from here (defined in .layout and .validators).
__all__ = [
    "ASSESSMENT_STAGE",
    "INTERPRETATION_STAGE",
    "OUTPUT_NAME_SOURCE",
    "PLAN_STAGE",
    "SCHEMA_HEADING_SOURCE",
    "STAGE_CONTEXT_SOURCE",
    "ExampleStage",
    "RequestLayout",
    "assessment_validator",
    "example_stage",
    "interpretation_prompt_name",
    "output_model",
    "plan_validator",
    "with_protocol",
]


class RequestParams(BaseModel):
    """The model parameters of a request (frozen per revision with the protocol version)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1)
    max_tokens: int = Field(ge=1, le=1_000_000)
    temperature: float | None = Field(default=None, ge=0, le=2)
    dialect: SchemaDialect = "json_schema"


# --- requests -------------------------------------------------------------------------------------


def _request(
    context: BaseModel,
    prompts: PromptSet,
    spec: ProtocolSpec,
    params: RequestParams,
) -> ModelRequest:
    context = with_protocol(context, spec)
    output = stage_of(context)
    model = output_model(context, spec)
    rendered = render_context(context, prompts, spec)
    request = build_request(  # the texts of the pieces; their items are listed only when asked for
        output.stage,
        spec,
        text_of(rendered.base_system),
        text_of(rendered.user),
        model,
        model=params.model,
        max_tokens=params.max_tokens,
        temperature=params.temperature,
        stage_context=context.model_dump(mode="json"),
        dialect=params.dialect,
    )
    _remember_rendered(request, rendered)
    return request


#: The rendered context of each request built recently, by the request's id; the
#: entry holds the request, so the id is not reused while it is remembered.
_RENDERED: "OrderedDict[int, tuple[ModelRequest, RenderedContext]]" = OrderedDict()
_RENDERED_LIMIT = 64
_RENDERED_LOCK = threading.Lock()


def _remember_rendered(request: ModelRequest, rendered: RenderedContext) -> None:
    with _RENDERED_LOCK:
        _RENDERED[id(request)] = (request, rendered)
        _RENDERED.move_to_end(id(request))
        while len(_RENDERED) > _RENDERED_LIMIT:
            _RENDERED.popitem(last=False)


def _rendered_for(
    request: ModelRequest, context: BaseModel, prompts: PromptSet
) -> RenderedContext | None:
    """What :func:`_request` rendered for this very ``request``, when it rendered ``context``
    (equal to the one read back from the request) with ``prompts`` under its protocol: the pieces
    :func:`request_layout` would render again. None otherwise."""
    entry = _RENDERED.get(id(request))
    if entry is None or entry[0] is not request:
        return None
    rendered = entry[1]
    same = (
        rendered.context == context
        and rendered.spec.version == request.protocol_version
        and (rendered.prompts is prompts or rendered.prompts == prompts)
    )
    return rendered if same else None


def build_plan_request(
    stage_context: PlanStageContext,
    prompts: PromptSet,
    spec: ProtocolSpec | int,
    params: RequestParams,
) -> ModelRequest:
    """Model call 1: propose grounded searches."""
    return _request(stage_context, prompts, resolved(spec), params)


def build_assessment_request(
    stage_context: AssessmentStageContext,
    prompts: PromptSet,
    spec: ProtocolSpec | int,
    params: RequestParams,
) -> ModelRequest:
    """Model call 2: assess every search's candidates."""
    return _request(stage_context, prompts, resolved(spec), params)


def build_interpretation_request(
    stage_context: InterpretationStageContext,
    prompts: PromptSet,
    spec: ProtocolSpec | int,
    params: RequestParams,
) -> ModelRequest:
    """Model call 3: the resolved prompt when ``resolution`` is set, the unresolved one otherwise."""
    return _request(stage_context, prompts, resolved(spec), params)


# --- context items --------------------------------------------------------------------------------


def request_items(
    stage_context: PlanStageContext | AssessmentStageContext | InterpretationStageContext,
    prompts: PromptSet,
    spec: ProtocolSpec | int,
    dialect: SchemaDialect = "json_schema",
) -> list[ContextItem]:
    """The labelled items the builder assembles this stage's request from, in request order.

    Placed items (slot ``system`` or ``message:0``) are listed once per insertion; field items
    (slot ``field``) are what a provider may carry besides the text (the schema, the output name,
    the structured stage context). Static items carry their sha256 (prompt files from the lock,
    code constants by their text); artifact hashes are left to the reader of the case package.
    """
    spec = resolved(spec)
    stage_context = with_protocol(stage_context, spec)
    output = output_model(stage_context, spec)
    schema_json = provider_schema_text(output, dialect=dialect)
    return request_layout(stage_context, prompts, spec, schema_json, dialect).items


_CONTEXTS: dict[str, type[BaseModel]] = {
    PLAN_STAGE: PlanStageContext,
    ASSESSMENT_STAGE: AssessmentStageContext,
    INTERPRETATION_STAGE: InterpretationStageContext,
}


def request_items_for(request: ModelRequest, prompts: PromptSet) -> list[ContextItem]:
    """:func:`request_items` of a built request, checked against the request's own text.

    Raises:
        ModelError: ``CONTEXT_MANIFEST_MISMATCH`` when the request was not built by this module
            from its stage context with ``prompts`` (another stage, prompt version or protocol).
    """
    context_type = _CONTEXTS.get(request.stage)
    if context_type is None:
        raise _not_built_here(request, f"stage {request.stage!r} has no request builder")
    try:
        context = context_type.model_validate(request.stage_context)
    except ValidationError:
        raise _not_built_here(request, "its stage_context is not a valid stage context") from None
    schema_json, dialect = request.output_schema_text(), request.schema_dialect
    rendered = _rendered_for(request, context, prompts)
    if rendered is not None:  # as built: the same pieces, not rendered again
        layout = layout_of(rendered, schema_json, dialect)
    else:
        spec = resolved(request.protocol_version)  # the record's version, resolved once here
        layout = request_layout(context, prompts, spec, schema_json, dialect)
    if (request.system, request.messages[0].content) != (layout.system, layout.message):
        raise _not_built_here(
            request,
            f"its text differs from what prompt version {prompts.version} and its stage "
            "context give",
        )
    return layout.items


def _not_built_here(request: ModelRequest, why: str) -> ModelError:
    return ModelError(
        ErrorCode.CONTEXT_MANIFEST_MISMATCH,
        f"stage {request.stage}: cannot list the items of this request: {why}",
        stage=request.stage,
    )
