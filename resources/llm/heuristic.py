"""The ``heuristic`` provider: a deterministic local baseline of the three model stages.

It is the default of the embedded demo (``make run`` works end to end with no API key) and the
baseline that real models are measured against. It is not a language model and says so: every
reply is labelled provider ``heuristic``, model ``vba-heuristic``, its version and the name index
it reads (:data:`HEURISTIC_VERSION` and ``names-<format>-<sha12>``, in ``response_id`` together
with a hash of the output), stop reason ``end_turn``, zero token usage and no request id. The body
is the JSON output itself.

It answers from ``request.stage`` and the structured ``request.stage_context`` and never parses the
prompt text (:mod:`vba_assets.heuristic`):

* ``resolution_plan``: :func:`~vba_assets.heuristic.planning.plan_searches`, with the
  gazetteer step reading the versioned name index of the packaged world data
  (:mod:`resources.llm.heuristic_index`), never the world database: a plan depends only on the
  request and the index its reply names, so replay and verification never need the database
  (no unrecorded read). ``HeuristicProvider(catalogs, None)`` skips that step (a weaker plan from
  capitalization and phrase cues only);
* ``resolution_assessment``:
  :func:`~vba_assets.heuristic.assessment.assess_searches`;
* ``interpretation``: :func:`~vba_assets.heuristic.interpretation.interpret_case`.

Same request, same index -> same bytes (no clock, no randomness, ordered iteration). A correction
round gets the same answer again: the heuristic cannot learn from the validation errors, so a
rejected heuristic reply exhausts the stage's budget, honestly. A stage it does not know, or a
stage context that does not validate, is a non-retryable provider fault (recorded by the
correction loop). No socket is opened here.
"""

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from resources.llm.base import ProviderOptions
from resources.llm.heuristic_index import packaged_index_label, packaged_name_index
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.llm.contract import (
    ChatMessage,
    ModelRequest,
    ProviderFault,
    ProviderReply,
    TokenUsage,
)
from vba_assets.domain.protocol import protocol
from vba_assets.domain.stage_context import (
    AssessmentStageContext,
    InterpretationStageContext,
    PlanStageContext,
)
from vba_assets.errors import ErrorCode
from vba_assets.heuristic.assessment import assess_searches
from vba_assets.heuristic.interpretation import interpret_case
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.planning import plan_searches
from vba_assets.llm_config import LlmConfig

PROVIDER_NAME = "heuristic"
HEURISTIC_MODEL = "vba-heuristic"
HEURISTIC_VERSION = "heuristic-11"
STOP_REASON = "end_turn"


def _fault(message: str, kind: str, **detail: Any) -> ProviderFault:
    fault = ProviderFault(ErrorCode.LLM_PROVIDER_ERROR, message, retryable=False, kind=kind)
    fault.detail.update(detail)
    return fault


ContextT = TypeVar("ContextT", bound=BaseModel)


def _stage_context(request: ModelRequest, model: type[ContextT]) -> ContextT:
    """The request's structured stage context, or a non-retryable fault naming the problem."""
    try:
        return model.model_validate(request.stage_context)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "/".join(str(part) for part in error["loc"]) or "<root>"
        raise _fault(
            f"stage {request.stage}: the request's stage_context is not a valid {request.stage} "
            f"context ({where}: {error['msg']}); the heuristic reads only structured stage data",
            "stage_context",
            stage=request.stage,
        ) from None


class HeuristicProvider:
    """Answers the resolution and interpretation stages deterministically, without a model."""

    name = PROVIDER_NAME

    def __init__(
        self,
        catalogs: Sequence[CatalogConfig],
        index: Callable[[], NameIndex] | NameIndex | None,
        index_label: str | None = None,
    ) -> None:
        """
        Args:
            catalogs: the operator catalogs (their ``helper_name_patterns`` keep technical
                entries out of selections).
            index: the name index of the planner's gazetteer step, or a function that builds it
                on first use; None skips that step (a weaker plan from capitalization and phrase
                cues only).
            index_label: the index's label when ``index`` is a function (named in every reply
                without building the index); default: the built index's own label.
        """
        self._catalogs = tuple(catalogs)
        self._index = index
        if isinstance(index, NameIndex):
            index_label = index.label
        self._label = index_label or ("no-index" if index is None else None)

    @classmethod
    def from_config(cls, config: LlmConfig, options: ProviderOptions) -> "HeuristicProvider":
        """The registry factory: catalogs and the packaged name index (built on first use)."""
        return cls(options.catalogs, packaged_name_index, packaged_index_label())

    def _name_index(self) -> NameIndex | None:
        if self._index is None or isinstance(self._index, NameIndex):
            return self._index
        self._index = self._index()
        return self._index

    @property
    def label(self) -> str:
        """``heuristic-11+names-3-<sha12>``: the heuristic's version (which names the pinned word
        lists it reads, :data:`~vba_assets.heuristic.common_words.WORD_LIST`) and the
        index it reads."""
        if self._label is None:
            index = self._name_index()
            self._label = index.label if index is not None else "no-index"
        return f"{HEURISTIC_VERSION}+{self._label}"

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        """Nothing goes over a wire: the neutral request is what the heuristic reads."""
        return request.document(messages)

    def answer(self, request: ModelRequest) -> BaseModel:
        """The stage's output model for ``request`` (the same for every correction round)."""
        stage = request.stage
        if stage == "resolution_plan":
            corrected = protocol(request.protocol_version).corrected_terms  # v6
            plan_context = _stage_context(request, PlanStageContext)
            return plan_searches(plan_context, self._name_index(), corrected)
        if stage == "resolution_assessment":
            context = _stage_context(request, AssessmentStageContext)
            tiebreaks = protocol(request.protocol_version).grounded_tiebreaks  # v6
            return assess_searches(context, self._catalogs, tiebreaks)
        if stage == "interpretation":
            return interpret_case(_stage_context(request, InterpretationStageContext))
        raise _fault(
            f"stage {stage!r} is not one the heuristic provider answers "
            "(resolution_plan, resolution_assessment, interpretation)",
            "unsupported_stage",
            stage=stage,
        )

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        """One deterministic answer, labelled as the heuristic's."""
        output = self.answer(request).model_dump(mode="json")
        body = json.dumps(output, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
        return ProviderReply(
            status_code=200,
            response_body=body,
            output_text=body,
            text=None,
            stop_reason=STOP_REASON,
            finish="complete",
            usage=TokenUsage(input=0, output=0, cache_creation=0, cache_read=0),
            request_id=None,
            response_id=f"{HEURISTIC_MODEL}/{self.label}/{digest}",
            provider_retries=0,
        )
