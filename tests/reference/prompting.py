"""Requests, their items and their context manifests the plain way: everything rendered again.

The product renders a stage's pieces once, builds the request from their text and lays the items
out from the same pieces when asked; it renders each system prompt once per process; the recorder
reads only the dispatch records named with an earlier attempt. These functions do none of that:
each renders and reads everything, as the implementation before issue 14 did.
"""

from pydantic import BaseModel

from vba_assets.domain.llm.contract import DispatchRecord, ModelRequest, build_request
from vba_assets.domain.llm.schemas import provider_schema_text
from vba_assets.domain.prompting import layout as layout_module
from vba_assets.domain.prompting.items import ContextItem, correction_items
from vba_assets.domain.prompting.layout import (
    RenderedContext,
    RequestLayout,
    layout_of,
    output_model,
    stage_of,
    with_protocol,
)
from vba_assets.domain.prompting.manifest import ContextManifest, manifest_for_record
from vba_assets.domain.prompting.prompts import PromptSet
from vba_assets.domain.prompting.requests import RequestParams
from vba_assets.domain.protocol import ProtocolVersion, protocol
from vba_assets.pipeline.recorder import PackageRecorder


def plain_rendering(
    context: BaseModel, prompts: PromptSet, protocol_version: ProtocolVersion
) -> RenderedContext:
    """``context``'s pieces with its system pieces rendered afresh (no per-process cache)."""
    spec = protocol(protocol_version)
    prompt = layout_module._prompt_of(context)
    base_system = layout_module._render_system_pieces(prompts, prompt, spec)
    user = stage_of(context).pieces(context, spec.static_first)
    return RenderedContext(context, prompts, spec, base_system, user)


def plain_layout(
    context: BaseModel, prompts: PromptSet, protocol_version: ProtocolVersion, request: ModelRequest
) -> RequestLayout:
    """The layout of ``context``'s request, rendered afresh."""
    rendered = plain_rendering(context, prompts, protocol_version)
    return layout_of(rendered, request.output_schema_text(), request.schema_dialect)


def plain_request(
    context: BaseModel,
    prompts: PromptSet,
    protocol_version: ProtocolVersion,
    params: RequestParams,
) -> ModelRequest:
    """The stage request built from a fresh layout's texts, as before the builder kept its pieces."""
    context = with_protocol(context, protocol_version)
    model = output_model(context, protocol(protocol_version))
    rendered = plain_rendering(context, prompts, protocol_version)
    schema_json = provider_schema_text(model, dialect=params.dialect)
    layout = layout_of(rendered, schema_json, params.dialect)
    return build_request(
        stage_of(context).stage,
        protocol_version,
        layout.base_system,
        layout.user,
        model,
        model=params.model,
        max_tokens=params.max_tokens,
        temperature=params.temperature,
        stage_context=context.model_dump(mode="json"),
        dialect=params.dialect,
    )


def plain_items(request: ModelRequest, context: BaseModel, prompts: PromptSet) -> list[ContextItem]:
    """The items of ``request`` laid out afresh from ``context`` (its stage context read back)."""
    return plain_layout(context, prompts, request.protocol_version, request).items


def plain_manifest(
    recorder: PackageRecorder, record: DispatchRecord, items: list[ContextItem]
) -> ContextManifest:
    """``record``'s context manifest from every record of its stage (each one read)."""
    rejected = [
        r
        for r in recorder.records()
        if r.stage == record.stage and r.outcome == "rejected" and r.attempt < record.attempt
    ]
    rounds = correction_items(
        rejected, recorder.layout.relative(recorder.layout.rejected_dir(recorder.stage))
    )
    return manifest_for_record(record, [*items, *rounds], recorder._artifact_sha256)
