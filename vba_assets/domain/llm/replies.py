"""What comes back from a provider and how it is judged: replies, faults and schema validation.

A :class:`~vba_assets.domain.llm.contract.Provider` answers a request with a :class:`ProviderReply`
or raises a :class:`ProviderFault`; :func:`model_validator_for` builds the ``validate`` callable
the correction loop (:mod:`vba_assets.domain.llm.call`) judges a reply's output with (the pydantic
schema first, then a stage's rules). Separate from :mod:`.contract` (what is sent) so a reader of
either side finds one concern per module; :mod:`.contract` still exports these names.

Only stdlib and pydantic are used here: no IO.
"""

from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import Field, ValidationError

from vba_assets.domain.base import StrictModel
from vba_assets.domain.findings import Finding
from vba_assets.errors import ErrorCode, ModelError

Finish = Literal[
    "complete", "incomplete", "refusal", "paused", "context_window_exceeded", "unknown"
]


class TokenUsage(StrictModel):
    input: int | None = None
    output: int | None = None
    cache_creation: int | None = None
    cache_read: int | None = None


class ProviderReply(StrictModel):
    """What one provider HTTP request returned (secrets already redacted by the provider)."""

    status_code: int = 200
    response_body: str = Field(description="The raw response body text.")
    output_text: str | None = Field(description="The structured output channel (tool input/JSON).")
    text: str | None = Field(default=None, description="Free text the model produced, if any.")
    stop_reason: str | None = Field(description="The provider's own stop/finish reason.")
    finish: Finish
    usage: TokenUsage = Field(default_factory=TokenUsage)
    request_id: str | None = None
    response_id: str | None = None
    provider_retries: int = 0


class ProviderFault(ModelError):
    """A provider request failed (HTTP status, timeout, connection). ``retryable`` decides."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        retryable: bool,
        kind: str = "http",
        status_code: int | None = None,
        retry_after_s: float | None = None,
        response_body: str | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(
            code,
            message,
            kind=kind,
            retryable=retryable,
            status_code=status_code,
            request_id=request_id,
        )
        self.retryable = retryable
        self.status_code = status_code
        self.retry_after_s = retry_after_s
        self.response_body = response_body
        self.request_id = request_id


def json_pointer(location: Sequence[str | int]) -> str:
    """A pydantic error location as an RFC 6901 JSON pointer (``""`` is the whole document)."""
    parts = (str(part).replace("~", "~0").replace("/", "~1") for part in location)
    return "".join(f"/{part}" for part in parts)


def issues_from_validation_error(exc: ValidationError) -> list[Finding]:
    """pydantic errors as ``LLM_OUTPUT_SCHEMA`` issues (message and location only, no input)."""
    return [
        Finding(
            code=ErrorCode.LLM_OUTPUT_SCHEMA,
            path=json_pointer(error["loc"]),
            message=error["msg"],
        )
        for error in exc.errors()
    ]


def model_validator_for(
    model_cls: type[Any], rules: Callable[[Any], list[Finding]] | None = None
) -> Callable[[Any], Any]:
    """A ``validate`` callable: the pydantic schema first, then the stage's own ``rules``."""

    def validate(data: Any) -> Any:
        try:
            value = model_cls.model_validate(data)
        except ValidationError as exc:
            return issues_from_validation_error(exc)
        found = rules(value) if rules else []
        return found or value

    return validate
