"""What the correction loop records of each attempt: dispatch records, their timing, rejections.

Every attempt of a model call is written as a :class:`DispatchRecord` (never a secret); a rejected
reply also as a :class:`RejectedRecord`. Separate from :mod:`.contract` (the request) and
:mod:`.replies` (the reply) because these are the artifacts the store publishes and replay reads;
:mod:`.contract` still exports these names.
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.findings import Finding
from vba_assets.domain.llm.replies import Finish, ProviderReply, TokenUsage
from vba_assets.domain.protocol import ProtocolVersion

Outcome = Literal["accepted", "rejected", "provider_error", "retry_pending"]


class RejectedRecord(StrictModel):
    """``rejected/<stage>-<n>.json``: a rejected reply with its body, finish and error codes."""

    stage: str
    attempt: int
    request_sha256: str
    stop_reason: str | None
    finish: Finish | None
    response_body: str | None
    output_text: str | None
    text: str | None
    issues: tuple[Finding, ...]


class DispatchTiming(StrictModel):
    """When one attempt was sent and how long it took: recorded beside the record, not in it."""

    started_at: datetime
    elapsed_ms: float


class DispatchRecord(StrictModel):
    """``dispatches/<stage>-<n>.json``: one model request and what came of it. Never a secret.

    ``record_version`` 1 (protocol v1/v2) holds ``started_at`` and ``elapsed_ms``; version 2
    (protocol v3 on) holds no wall-clock value: its timing is in the ``dispatched``/``rejected``
    event of ``events.jsonl`` (:class:`DispatchTiming`), so the same request and reply give the
    same bytes on any day.
    """

    record_version: Literal[1, 2] = 1
    stage: str
    attempt: int = Field(ge=1, description="1-based, per stage, across invocations.")
    provider: str
    model: str
    parameters: dict[str, Any]
    protocol_version: ProtocolVersion
    output_name: str
    base_request_sha256: str = Field(description="Hash of the stage request before corrections.")
    request_sha256: str = Field(description="Hash of this attempt's neutral request (replay key).")
    request: dict[str, Any] = Field(description="The exact body sent to the provider.")
    started_at: datetime | None = Field(default=None, exclude_if=lambda value: value is None)
    elapsed_ms: float | None = Field(default=None, exclude_if=lambda value: value is None)
    outcome: Outcome
    status_code: int | None = None
    response_body: str | None = None
    output_text: str | None = None
    text: str | None = None
    stop_reason: str | None = None
    finish: Finish | None = None
    usage: TokenUsage | None = None
    request_id: str | None = None
    response_id: str | None = None
    provider_retries: int = 0
    issues: tuple[Finding, ...] = ()
    error: dict[str, Any] | None = None
    retry_in_s: float | None = None
    retry_at: datetime | None = None

    def rejected_record(self) -> RejectedRecord | None:
        """The rejected-response artifact of this attempt, or None if it was not rejected."""
        if self.outcome != "rejected":
            return None
        return RejectedRecord(
            stage=self.stage,
            attempt=self.attempt,
            request_sha256=self.request_sha256,
            stop_reason=self.stop_reason,
            finish=self.finish,
            response_body=self.response_body,
            output_text=self.output_text,
            text=self.text,
            issues=self.issues,
        )

    def reply(self) -> ProviderReply | None:
        """The provider reply this record holds (accepted or rejected), for replay and reuse."""
        if self.outcome not in ("accepted", "rejected") or self.finish is None:
            return None
        return ProviderReply(
            status_code=self.status_code or 200,
            response_body=self.response_body or "",
            output_text=self.output_text,
            text=self.text,
            stop_reason=self.stop_reason,
            finish=self.finish,
            usage=self.usage or TokenUsage(),
            request_id=self.request_id,
            response_id=self.response_id,
            provider_retries=self.provider_retries,
        )

    def summary(self) -> dict[str, Any]:
        """A short JSON-safe line for error details."""
        return {
            "attempt": self.attempt,
            "outcome": self.outcome,
            "finish": self.finish,
            "status_code": self.status_code,
            "codes": [issue.code.value for issue in self.issues],
        }
