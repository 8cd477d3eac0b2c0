"""What bounds a model call and where its attempts go (ARCHITECTURE 8).

The correction loop (:func:`vba_assets.domain.llm.call.run_stage`) is driven by a persisted
:class:`StagePolicy` (invalid replies allowed, the exhaustion code, the :class:`RetryPolicy` of
provider faults), spends one unit of the invocation's :class:`DispatchBudget` per request, writes
every attempt to a :class:`DispatchRecorder` and ends in a :class:`StageOutcome` or
:class:`StageExhausted`. Pure: no IO.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.llm.contract import DispatchRecord, DispatchTiming
from vba_assets.errors import ErrorCode, ModelError

T = TypeVar("T")


# --- where attempts go ----------------------------------------------------------------------------


class DispatchRecorder(Protocol):
    """Where dispatch records go (the case package; a list in tests) and come back from."""

    def record(self, record: DispatchRecord, timing: DispatchTiming) -> None:
        """Keep ``record``, and ``timing`` beside it (never inside a protocol v3 record)."""
        ...

    def history(self, stage: str) -> Sequence[DispatchRecord]:
        """Every record of ``stage`` so far, in attempt order (for resume)."""
        ...


@dataclass
class InMemoryRecorder:
    """A :class:`DispatchRecorder` that keeps records in a list."""

    records: list[DispatchRecord] = field(default_factory=list)
    timings: list[DispatchTiming] = field(default_factory=list)

    def record(self, record: DispatchRecord, timing: DispatchTiming) -> None:
        self.records.append(record)
        self.timings.append(timing)

    def history(self, stage: str) -> Sequence[DispatchRecord]:
        return [r for r in self.records if r.stage == stage]


def next_attempt_number(history: Sequence[DispatchRecord]) -> int:
    return max((r.attempt for r in history), default=0) + 1


# --- policies -------------------------------------------------------------------------------------


class RetryPolicy(StrictModel):
    """Retries of provider faults (408/409/429/5xx/529, timeouts, connection errors)."""

    max_retries: int = Field(default=4, ge=0, le=20, description="Consecutive faults retried.")
    backoff_base_s: float = Field(default=2.0, gt=0, le=600)
    backoff_cap_s: float = Field(default=60.0, gt=0, le=3600)
    max_wait_s: float = Field(
        default=60.0, ge=0, le=3600, description="Longer waits end the invocation (retry pending)."
    )

    def delay_s(self, fault_number: int, retry_after_s: float | None) -> float:
        """Seconds before retry ``fault_number`` (1-based): the server's wait, else backoff."""
        if retry_after_s is not None:
            return max(0.0, retry_after_s)
        return float(min(self.backoff_cap_s, self.backoff_base_s * 2 ** (fault_number - 1)))


class StagePolicy(StrictModel):
    max_invalid_responses: int = Field(default=3, ge=1, le=10)
    exhaustion_code: ErrorCode = ErrorCode.ENTITY_RESOLUTION_INVALID_RESPONSES
    retry: RetryPolicy = Field(default_factory=RetryPolicy)


@dataclass
class DispatchBudget:
    """Bounds the model requests of one invocation; shared by every stage of that invocation."""

    max_dispatches: int
    used: int = 0

    def take(self, stage: str, attempt: int) -> None:
        if self.used >= self.max_dispatches:
            raise ModelError(
                ErrorCode.LLM_MAX_DISPATCHES,
                f"stage {stage}: the invocation reached max_dispatches={self.max_dispatches}; "
                "run it again to continue",
                stage=stage,
                attempt=attempt,
                max_dispatches=self.max_dispatches,
            )
        self.used += 1


# --- how a stage ends -----------------------------------------------------------------------------


class StageExhausted(ModelError):
    """Every allowed reply was invalid; ``records`` holds every attempt of the stage."""

    def __init__(
        self, code: ErrorCode, message: str, records: Sequence[DispatchRecord], **detail: Any
    ) -> None:
        super().__init__(code, message, **detail)
        self.records = list(records)


@dataclass(frozen=True)
class StageOutcome(Generic[T]):
    value: T
    accepted: DispatchRecord
    records: tuple[DispatchRecord, ...] = ()
    reused: bool = False
