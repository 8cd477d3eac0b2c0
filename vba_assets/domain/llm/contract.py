"""The model layer's data contract: requests and the provider that sends them.

A stage builds a :class:`ModelRequest` with :func:`build_request`; a :class:`Provider`
(``resources/llm``) sends it and returns a :class:`ProviderReply` or raises a
:class:`ProviderFault`; the correction loop (:mod:`vba_assets.domain.llm.call`) judges the reply
and records the attempt as a :class:`DispatchRecord` (never a secret). The neutral request of an
attempt is hashed over its RFC 8785 canonical JSON: that hash is the replay key, and the same
inputs always give the same bytes (protocol v1 and v2 alike).

The contract is three modules; other code imports all of it from this one:

* **Requests** are this module's: :class:`ModelRequest`, :func:`build_request`, the schema text
  the prompt shows, and the :class:`Provider` protocol.
* **Replies** are in :mod:`.replies`: :class:`ProviderReply`, :class:`ProviderFault`,
  :class:`TokenUsage` and :func:`model_validator_for` (schema, then a stage's rules).
* **Records** are in :mod:`.records`: :class:`DispatchRecord`, :class:`DispatchTiming` and
  :class:`RejectedRecord`, the artifacts of each attempt.

Only stdlib, pydantic and ``rfc8785`` (the canonical-JSON serializer) are used here: no IO.
"""

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, Self

from pydantic import BaseModel, Field, PrivateAttr

from vba_assets.domain.base import StrictModel
from vba_assets.domain.canonical import canonical_bytes, content_hash
from vba_assets.domain.llm.records import DispatchRecord, DispatchTiming, Outcome, RejectedRecord
from vba_assets.domain.llm.replies import (
    Finish,
    ProviderFault,
    ProviderReply,
    TokenUsage,
    issues_from_validation_error,
    json_pointer,
    model_validator_for,
)
from vba_assets.domain.llm.schemas import (
    NATIVE_DIALECTS,
    SchemaDialect,
    provider_schema,
    provider_schema_text,
)
from vba_assets.domain.protocol import ProtocolSpec, ProtocolVersion, protocol, resolved

#: Re-exported: callers import these from here; they are defined in .replies and .records.
__all__ = [
    "DispatchRecord",
    "DispatchTiming",
    "Finish",
    "Outcome",
    "ProviderFault",
    "ProviderReply",
    "RejectedRecord",
    "TokenUsage",
    "issues_from_validation_error",
    "json_pointer",
    "model_validator_for",
]

STAGE_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"
OUTPUT_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
#: Protocol v2 appends the output schema under this heading. Part of the frozen protocol.
SCHEMA_HEADING = "## Required output: one JSON object that validates against this JSON schema"


# --- requests -------------------------------------------------------------------------------------


class ChatMessage(StrictModel):
    """One provider-neutral chat turn; providers map it to their wire format."""

    role: Literal["user", "assistant"]
    content: str = Field(min_length=1)


class ModelRequest(StrictModel):
    """Everything a stage asks of a model; byte-reproducible from the frozen revision input."""

    stage: str = Field(pattern=STAGE_PATTERN, description="e.g. 'resolution_plan'.")
    protocol_version: ProtocolVersion
    system: str
    messages: tuple[ChatMessage, ...] = Field(min_length=1)
    output_name: str = Field(pattern=OUTPUT_NAME_PATTERN, description="Tool / output name.")
    output_schema: dict[str, Any]
    stage_context: dict[str, Any] = Field(
        default_factory=dict,
        description="Structured stage data for local providers; real ones ignore it.",
    )
    model: str = Field(min_length=1)
    max_tokens: int = Field(ge=1, le=1_000_000)
    temperature: float | None = Field(default=None, ge=0, le=2)
    schema_dialect: SchemaDialect | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Protocol 4 on: the dialect of output_schema, which tells a provider how "
        "to send it (strict or not, in its own channel or already in the system text). Absent "
        "before protocol 4, so older requests keep their bytes.",
    )

    _hashes: dict[tuple[ChatMessage, ...] | None, str] = PrivateAttr(default_factory=dict)
    _schema_text: str | None = PrivateAttr(default=None)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy, with no remembered hash or schema text (an update changes what they hash)."""
        copied = super().model_copy(update=update, deep=deep)
        copied._hashes = {}
        copied._schema_text = None
        return copied

    @property
    def schema_in_prompt(self) -> bool:
        """Whether the prompt text already shows the output schema (v2/v3 in the message, v4 in
        the system text for a dialect without a structured-output channel)."""
        spec = protocol(self.protocol_version)
        if spec.native_schema:
            return self.schema_dialect not in NATIVE_DIALECTS
        return spec.schema_in_message

    def document(self, messages: Sequence[ChatMessage] | None = None) -> dict[str, Any]:
        """The provider-neutral request as JSON data, with ``messages`` for one attempt."""
        data = self.model_dump(mode="json")
        data["messages"] = [m.model_dump(mode="json") for m in (messages or self.messages)]
        return data

    def sha256(self, messages: Sequence[ChatMessage] | None = None) -> str:
        """Hash of the canonical request of one attempt: the replay key.

        Remembered per request and conversation (the model is frozen). Messages equal to the request's own (same type, equal strings) give
        the same document, so they share the hash of ``None``.
        """
        key = tuple(messages) if messages is not None else None
        if key == self.messages:
            key = None
        known = self._hashes.get(key)
        if known is None:
            known = self._hashes[key] = content_hash(self.document(messages))
        return known

    def output_schema_text(self) -> str:
        """:func:`schema_text` of ``output_schema``, remembered per request as :meth:`sha256`
        (:func:`build_request` gives it the text it made the prompt with)."""
        if self._schema_text is None:
            self._schema_text = schema_text(self.output_schema)
        return self._schema_text


def schema_text(schema: dict[str, Any]) -> str:
    """The canonical JSON text of a schema, as protocol v2 shows it to the model."""
    return canonical_bytes(schema).decode("utf-8")


def schema_block(schema: dict[str, Any]) -> str:
    """The schema as the prompt shows it: the fixed heading, a blank line, the canonical JSON."""
    return schema_text_block(schema_text(schema))


def schema_text_block(text: str) -> str:
    """:func:`schema_block` of a schema whose canonical ``text`` is already known."""
    return f"{SCHEMA_HEADING}\n\n{text}"


def append_block(text: str, block: str) -> str:
    """``text``, a blank line and ``block``; a text ending in a line break keeps it as the end.

    Protocol 4 appends the schema block to a system text that ends with ``\n``: the result is
    ``...\n\n<block>\n`` (one blank line between, a final line break as before).
    """
    if text.endswith("\n"):
        return f"{text}\n{block}\n"
    return f"{text}\n\n{block}"


def build_request(
    stage: str,
    spec: ProtocolSpec | int,
    system: str,
    user_content: str,
    output_model: type[BaseModel],
    *,
    model: str,
    max_tokens: int,
    temperature: float | None = None,
    output_name: str | None = None,
    stage_context: dict[str, Any] | None = None,
    dialect: SchemaDialect = "json_schema",
) -> ModelRequest:
    """Build the request of one stage: where the schema goes is the protocol's choice.

    v1: only in the provider's output channel. v2, v3: also at the end of the user message.
    v4 on: once, in the provider's structured-output channel when ``dialect`` has one
    (:data:`~vba_assets.domain.llm.schemas.NATIVE_DIALECTS`), else at the end of the system text
    (:func:`append_block`), so it belongs to the static prefix; the request names its dialect.

    The same arguments always give the same request bytes (:meth:`ModelRequest.sha256`), which is
    how a replay rebuilds the requests of a revision frozen at any protocol version.
    """
    spec = resolved(spec)
    schema = provider_schema(output_model, dialect=dialect)
    schema_json = provider_schema_text(output_model, dialect=dialect)  # that schema's text
    block = schema_text_block(schema_json)
    content = user_content
    if spec.schema_in_message:
        content = f"{user_content}\n\n{block}"
    if spec.native_schema and dialect not in NATIVE_DIALECTS:
        system = append_block(system, block)
    request = ModelRequest(
        stage=stage,
        protocol_version=spec.version,
        schema_dialect=dialect if spec.native_schema else None,
        system=system,
        messages=(ChatMessage(role="user", content=content),),
        output_name=output_name or f"submit_{stage}",
        output_schema=schema,
        stage_context=stage_context or {},
        model=model,
        max_tokens=max_tokens,
        temperature=temperature,
    )
    request._schema_text = schema_json  # output_schema is an equal copy of the schema
    return request


class Provider(Protocol):
    """One model provider. ``send`` makes exactly one request (no hidden retries)."""

    name: str

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        """The exact body this provider sends for ``messages`` (no credentials)."""
        ...

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        """Send one request; raise :class:`ProviderFault` on a provider failure."""
        ...
