"""Reading a started revision: its frozen inputs and what they decide. Never writes.

:func:`load_frozen` gives a :class:`FrozenRevision`, the object checks, replay, previews and
``vba context show`` take. It answers "is entity resolution enabled", "which catalogs", "which
protocol", "which prompts" from the revision's own ``input.json`` files, never from the current
configuration. The only writer of those files is :func:`vba_assets.pipeline.revision.freeze_revision`.
"""

from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.frozen_inputs import InterpretationInput, ResolutionInput
from vba_assets.domain.prompting.prompts import PromptSet, load_prompt_set
from vba_assets.domain.prompting.requests import RequestParams
from vba_assets.domain.protocol import ProtocolSpec, protocol
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store import CasePackage
from vba_assets.store.layout import RevisionLayout
from vba_assets.store.versions import revision_case_json, revision_report_version

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class FrozenRevision:
    """One revision of a case package, read through its frozen inputs (loaded on first use).

    Accessing the inputs of a revision that was never started raises ``ARTIFACT_MISSING``; a
    malformed input raises ``ARTIFACT_CORRUPT`` naming the file (never a pydantic traceback).
    """

    package: CasePackage
    layout: RevisionLayout

    @property
    def case_id(self) -> str:
        return self.package.case_id

    @property
    def revision(self) -> str:
        return self.layout.revision

    @property
    def started(self) -> bool:
        """Whether the revision's interpretation input has been frozen."""
        return self.package.exists(self.layout.input)

    @cached_property
    def interpretation(self) -> InterpretationInput:
        """``input.json``."""
        return _read_model(self.package, self.layout.input, InterpretationInput, self.revision)

    @cached_property
    def resolution(self) -> ResolutionInput | None:
        """``entity-resolution/input.json``; None when it was not written (a crash before it)."""
        if not self.package.exists(self.layout.er_input):
            return None
        return _read_model(self.package, self.layout.er_input, ResolutionInput, self.revision)

    @property
    def resolution_enabled(self) -> bool:
        """Decided once, when the revision was frozen."""
        return self.interpretation.entity_resolution == "enabled"

    @property
    def catalogs(self) -> list[CatalogConfig]:
        """The catalogs frozen with the entity-resolution input (empty when disabled)."""
        frozen = self.resolution
        if frozen is None or frozen.status != "enabled":
            return []
        return [CatalogConfig.model_validate(catalog) for catalog in frozen.catalogs]

    @cached_property
    def spec(self) -> ProtocolSpec:
        """The protocol the revision was started with, resolved once from its frozen version and
        passed down to the request builders, validators and the model call."""
        return protocol(self.interpretation.protocol_version)

    @cached_property
    def prompts(self) -> PromptSet:
        return load_prompt_set(self.interpretation.prompt_version)

    @property
    def request_params(self) -> RequestParams:
        """The frozen model parameters (never the current config's)."""
        frozen = self.interpretation
        return RequestParams(
            model=frozen.model,
            max_tokens=int(frozen.parameters["max_tokens"]),
            temperature=frozen.parameters.get("temperature"),
            dialect=frozen.schema_dialect,
        )

    @cached_property
    def report_version(self) -> str:
        """The report version this revision freezes (its ``created`` event; ``0001`` without)."""
        return revision_report_version(self.package, self.revision)

    @cached_property
    def case_relpath(self) -> str:
        """The ``case.json`` of that version: ``case.json`` or ``reports/<VVVV>/case.json``."""
        return revision_case_json(self.package, self.revision)

    def case_doc(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.package.read_json(self.case_relpath)
        return doc


def load_frozen(package: CasePackage, revision: str) -> FrozenRevision:
    """The read-only view of ``revision`` of ``package`` (ids validated, nothing read yet)."""
    return FrozenRevision(package, RevisionLayout(revision))


def _read_model(package: CasePackage, relpath: str, model: type[M], revision: str) -> M:
    if not package.exists(relpath):
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} revision {revision} was never started ({relpath} does not "
            "exist); materialize resolution_plan (the first stage) first",
            case_id=package.case_id,
            revision=revision,
            missing=relpath,
        )
    try:
        return model.model_validate(package.read_json(relpath))
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "/".join(str(part) for part in error["loc"]) or "<root>"
        raise StoreError(
            ErrorCode.ARTIFACT_CORRUPT,
            f"case {package.case_id}: {relpath} is not a valid frozen input: {where}: "
            f"{error['msg']}",
            relpath=relpath,
        ) from None
