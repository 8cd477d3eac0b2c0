"""How a stage context becomes request text: its stage, its system text and the labelled layout.

The request builders (:mod:`.requests`) and the context manifest's items
(:func:`.requests.request_items`) both come from :func:`request_layout`, so what a manifest says a
request holds cannot drift from the request's text. Here:

* which stage, prompt and output model a stage context has (:func:`stage_of`,
  :func:`output_model`, :func:`with_protocol`);
* the system text: the versioned instructions and the few-shot examples, each rendered exactly like
  a real request of its stage (:func:`example_stage`), cached per locked prompt files;
* :func:`request_layout`: the system text and first message, with the labelled items in them;
  in two steps, :func:`render_context` (the pieces, what a builder sends) and :func:`layout_of`
  (the schema block and the items), so a built request's items need not render it again.

Separate from :mod:`.requests` (which exports the public names of this module) so the builders
read in a few lines and the layout rules read on their own.
"""

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel

from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.interpretation.models import (
    InterpretationOutput,
    InterpretationOutputV4,
    InterpretationOutputV5,
)
from vba_assets.domain.interpretation.rules import interpretation_validator
from vba_assets.domain.llm.contract import SCHEMA_HEADING
from vba_assets.domain.llm.schemas import NATIVE_DIALECTS, SchemaDialect
from vba_assets.domain.prompting.items import (
    FIELD_SLOT,
    SYSTEM_SLOT,
    ContextItem,
    message_slot,
    text_sha256,
)
from vba_assets.domain.prompting.pieces import Pieces, glue, items_of, part, text_of
from vba_assets.domain.prompting.prompts import PromptExample, PromptSet
from vba_assets.domain.prompting.render import (
    assessment_pieces,
    interpretation_pieces,
    plan_pieces,
    render_example,
    stage_notes,
    system_pieces,
)
from vba_assets.domain.prompting.validators import assessment_validator, plan_validator
from vba_assets.domain.protocol import ProtocolSpec, protocol, resolved
from vba_assets.domain.resolution.aliases import ResolutionContext
from vba_assets.domain.resolution.legacy import assessment_output_model, plan_output_model
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.stage_context import (
    AssessmentStageContext,
    InterpretationStageContext,
    PlanStageContext,
    assessment_stage_context,
    interpretation_stage_context,
    plan_stage_context,
)

SCHEMA_HEADING_SOURCE = "vba_assets/domain/llm/contract.py#SCHEMA_HEADING"
OUTPUT_NAME_SOURCE = "vba_assets/domain/llm/contract.py#build_request"
STAGE_CONTEXT_SOURCE = "ModelRequest.stage_context"

_Context = TypeVar("_Context", bound=BaseModel)

PLAN_STAGE = "resolution_plan"
ASSESSMENT_STAGE = "resolution_assessment"
INTERPRETATION_STAGE = "interpretation"


def interpretation_prompt_name(context: InterpretationStageContext) -> str:
    """``interpretation_resolved`` with F/N/D aliases, ``interpretation_unresolved`` without."""
    resolved = context.resolution is not None
    return "interpretation_resolved" if resolved else "interpretation_unresolved"


class ExampleStage(NamedTuple):
    """A few-shot example's stage context and the validator its reply must pass."""

    context: PlanStageContext | AssessmentStageContext | InterpretationStageContext
    validate: Callable[[Any], Any]


def example_stage(example: PromptExample, spec: ProtocolSpec) -> ExampleStage:
    """Rebuild an example's stage context from its frozen inputs, with its stage's validator
    under ``spec`` (the protocol the example's prompt version was written for)."""
    data = example.data
    case = data["case"]
    if example.prompt == PLAN_STAGE:
        catalogs = [CatalogConfig.model_validate(c) for c in data["catalogs"]]
        context: Any = plan_stage_context(case, catalogs, data["max_searches"])
        return ExampleStage(context, plan_validator(case, catalogs, data["max_searches"], spec))
    if example.prompt == ASSESSMENT_STAGE:
        plan = ResolutionPlanOutput.model_validate(data["plan"])
        index = CandidateIndex.model_validate(data["candidate_index"])
        # an example's candidate index is frozen as it was recorded: its searches are the
        # plan's own (the examples of prompt v5 predate the batched names of protocol v6)
        batched = len(index.searches) > len(plan.searches)
        context = assessment_stage_context(case, plan, index, batched)
        return ExampleStage(context, assessment_validator(case, plan, index, spec))
    resolution = data.get("resolution") if example.prompt == "interpretation_resolved" else None
    context = interpretation_stage_context(
        case, ResolutionContext.model_validate(resolution) if resolution else None
    )
    context = with_protocol(context, spec)
    return ExampleStage(context, interpretation_validator(context, spec))


class _Stage(NamedTuple):
    stage: str
    output: type[BaseModel]
    pieces: Callable[[Any, bool], Pieces]  # (stage context, static_first)


_STAGES: dict[str, _Stage] = {
    "resolution_plan": _Stage(PLAN_STAGE, ResolutionPlanOutput, plan_pieces),
    "resolution_assessment": _Stage(
        ASSESSMENT_STAGE, ResolutionAssessmentOutput, assessment_pieces
    ),
    "interpretation_resolved": _Stage(
        INTERPRETATION_STAGE, InterpretationOutput, interpretation_pieces
    ),
    "interpretation_unresolved": _Stage(
        INTERPRETATION_STAGE, InterpretationOutput, interpretation_pieces
    ),
}


#: Rendered system pieces: static for one set of locked prompt files, prompt and protocol.
_SYSTEM_CACHE: dict[tuple[Any, ...], Pieces] = {}


def _system_pieces(prompts: PromptSet, prompt: str, spec: ProtocolSpec) -> Pieces:
    """Instructions and examples; an example's request is laid out as ``spec`` lays out real ones.

    The result depends only on the prompt files (identified by their locked sha256), the prompt
    and the protocol, so it is rendered once per process for each of them.
    """
    key = (prompts.version, tuple(sorted(prompts.files.items())), prompt, spec)
    cached = _SYSTEM_CACHE.get(key)
    if cached is None:
        cached = _SYSTEM_CACHE[key] = _render_system_pieces(prompts, prompt, spec)
    return list(cached)


def _render_system_pieces(prompts: PromptSet, prompt: str, spec: ProtocolSpec) -> Pieces:
    render = _STAGES[prompt].pieces
    folder = f"prompts/{prompts.version}"
    instructions = part(
        "instructions",
        "static",
        f"{folder}/{prompt}.md",
        prompts.instruction(prompt).rstrip("\n"),
        prompts.files.get(f"{prompt}.md"),
    )
    written_for = protocol(prompts.protocol_version)  # the protocol the examples were written for
    examples = [
        part(
            f"example:{example.path.rsplit('/', 1)[-1].removesuffix('.json')}",
            "static",
            f"{folder}/{example.path}",
            render_example(
                number,
                example.title,
                text_of(
                    render(
                        example_stage(example, written_for).context,
                        spec.static_first,
                    )
                ),
                example.data["output"],
            ),
            prompts.files.get(example.path),
        )
        for number, example in enumerate(prompts.examples_for(prompt), start=1)
    ]
    return system_pieces(instructions, examples, spec.static_first, stage_notes(prompt))


def _prompt_of(context: BaseModel) -> str:
    if isinstance(context, PlanStageContext):
        return "resolution_plan"
    if isinstance(context, AssessmentStageContext):
        return "resolution_assessment"
    if isinstance(context, InterpretationStageContext):
        return interpretation_prompt_name(context)
    raise TypeError(f"not a stage context: {type(context).__name__}")


def with_protocol(context: _Context, spec: ProtocolSpec | int) -> _Context:
    """``context`` as a request of protocol ``spec`` carries it: from protocol v4 an
    interpretation context names its protocol (so a local provider answers in that contract)."""
    if isinstance(context, InterpretationStageContext):
        spec = resolved(spec)
        if spec.complete_interpretation:
            return context.model_copy(update={"protocol_version": spec.version})
    return context


def output_model(context: BaseModel, spec: ProtocolSpec) -> type[BaseModel]:
    """The output schema a request carries under ``spec``: the plan's is the v1-v3 one
    (:mod:`vba_assets.domain.resolution.legacy`) until identity references (v4); the others
    are those of :func:`stage_of`."""
    if isinstance(context, PlanStageContext):
        return plan_output_model(spec.identity_references, spec.corrected_terms)
    if isinstance(context, AssessmentStageContext):  # v6: grounded tie-breaks
        return assessment_output_model(spec.grounded_tiebreaks)
    return stage_of(context).output


def stage_of(context: BaseModel) -> _Stage:
    """The stage of ``context``, with the output model of its protocol (v4: the complete
    interpretation contract, :class:`InterpretationOutputV4`)."""
    stage = _STAGES[_prompt_of(context)]
    if isinstance(context, InterpretationStageContext) and context.complete:
        bounded = resolved(context.protocol_version or 4).bounded_lists  # issue 30's limits
        return stage._replace(output=InterpretationOutputV5 if bounded else InterpretationOutputV4)
    return stage


class RequestLayout(NamedTuple):
    """What a request is built from: the system text before protocol 4's schema block, the user
    content before protocol 2's schema block, the whole system text and first message, and the
    labelled items in them."""

    base_system: str
    user: str
    system: str
    message: str
    items: list[ContextItem]


class RenderedContext(NamedTuple):
    """A stage context rendered under one prompt set and protocol: the pieces of the system text
    and of the user content, before any schema block (what :func:`layout_of` completes)."""

    context: BaseModel
    prompts: PromptSet
    spec: ProtocolSpec
    base_system: Pieces
    user: Pieces


def render_context(context: BaseModel, prompts: PromptSet, spec: ProtocolSpec) -> RenderedContext:
    """The system and user pieces of ``context``'s request (the builder sends their text)."""
    base_system = _system_pieces(prompts, _prompt_of(context), spec)
    user = stage_of(context).pieces(context, spec.static_first)
    return RenderedContext(context, prompts, spec, base_system, user)


def request_layout(
    context: BaseModel,
    prompts: PromptSet,
    spec: ProtocolSpec,
    schema_json: str,
    dialect: SchemaDialect | None,
) -> RequestLayout:
    return layout_of(render_context(context, prompts, spec), schema_json, dialect)


def layout_of(
    rendered: RenderedContext, schema_json: str, dialect: SchemaDialect | None
) -> RequestLayout:
    """:func:`request_layout` of a context already rendered."""
    context, base_system, user = rendered.context, rendered.base_system, rendered.user
    spec = rendered.spec
    stage = stage_of(context)
    schema_source = f"{stage.output.__module__.replace('.', '/')}.py#{stage.output.__name__}"
    heading_sha, schema_sha = text_sha256(SCHEMA_HEADING), text_sha256(schema_json)
    schema_pieces = [
        *part("schema_heading", "static", SCHEMA_HEADING_SOURCE, SCHEMA_HEADING, heading_sha),
        *glue("\n\n"),
        *part("output_schema", "static", schema_source, schema_json, schema_sha),
    ]
    message, system = list(user), list(base_system)
    if spec.schema_in_message:  # as build_request: the schema ends the user message
        message += [*glue("\n\n"), *schema_pieces]
    if spec.native_schema and dialect not in NATIVE_DIALECTS:  # as build_request: it ends
        system += [*glue("\n"), *schema_pieces, *glue("\n")]  # the system text (append_block)
    fields = [
        ("provider:output_schema", "provider_injected", schema_source, schema_json),
        ("provider:output_name", "provider_injected", OUTPUT_NAME_SOURCE, f"submit_{stage.stage}"),
        ("stage_context", "per_stage", STAGE_CONTEXT_SOURCE, _stage_data(context)),
    ]
    items = [*items_of(system, SYSTEM_SLOT), *items_of(message, message_slot(0))]
    items += [
        ContextItem(
            name=name,
            lifecycle=lifecycle,
            source=source,
            source_sha256=text_sha256(text),
            slot=FIELD_SLOT,
            text=text,
        )
        for name, lifecycle, source, text in fields
    ]
    return RequestLayout(
        text_of(base_system), text_of(user), text_of(system), text_of(message), items
    )


def _stage_data(context: BaseModel) -> str:
    """A stage context as the canonical JSON a neutral request carries in ``stage_context``."""
    return canonical_bytes(context.model_dump(mode="json")).decode("utf-8")
