"""The frozen inputs of a revision (ARCHITECTURE 4): what it was started with, written once.

``input.json`` (:class:`InterpretationInput`) and ``entity-resolution/input.json``
(:class:`ResolutionInput`) are written by ``vba_assets.pipeline.revision.freeze_revision`` the
first time a revision runs, and only read afterwards: the protocol and prompt versions, the model
and its parameters, the policies, the catalogs and snapshot binding, and the clock anchor
(``reported_at`` with the reporter's offset). Every later run of the revision uses these values,
whatever the configuration says by then.
"""

from typing import Any, Literal

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.catalog.world import SnapshotBinding
from vba_assets.domain.llm.policy import RetryPolicy
from vba_assets.domain.llm.schemas import SchemaDialect
from vba_assets.domain.protocol import ProtocolVersion


class InterpretationInput(StrictModel):
    """``analysis/interpretations/<NNNN>/input.json``."""

    schema_version: Literal[1] = 1
    case_id: str
    revision: str
    case_sha256: str
    reported_at: str
    reported_at_offset: str | None
    protocol_version: ProtocolVersion
    prompt_version: str
    provider: str
    model: str
    parameters: dict[str, Any]
    schema_dialect: SchemaDialect
    retry: RetryPolicy
    max_invalid_responses: int
    entity_resolution: Literal["enabled", "disabled"]


class ResolutionInput(StrictModel):
    """``entity-resolution/input.json``: the frozen input and policy of one revision."""

    schema_version: Literal[1] = 1
    status: Literal["enabled", "disabled"]
    protocol_version: ProtocolVersion
    prompt_version: str
    case_sha256: str
    catalogs: list[dict[str, object]] = Field(description="The catalog configs, frozen.")
    snapshot: SnapshotBinding | None
    max_searches: int
    max_candidates: int
    max_invalid_responses: int
