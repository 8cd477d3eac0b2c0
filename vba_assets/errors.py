"""The one error-code enum and the typed exceptions that carry it.

Exceptions are split by fault, so a caller can decide what to do without parsing messages:

* :class:`InputError`: the caller's data is wrong (a report, an id, a query). Fix the input.
* :class:`ConfigError`: the operator's configuration is wrong. Fix the config file.
* :class:`StoreError`: the case package refuses a write (append-only, lock, corruption).
* :class:`ResearchUnavailable`: the world database cannot be reached or timed out. Retry later.
* :class:`ReadOnlyViolation`: something tried to write through a read-only connection.
* :class:`ModelError`: a model provider failed or its replies stayed invalid.

Every exception carries an :class:`ErrorCode` and a ``detail`` dict of JSON-safe data. Messages never
contain secrets; anything that could hold one is redacted before it gets here.
"""

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """Stable machine-readable codes. Values are persisted in artifacts: never rename one."""

    # identities
    INVALID_CASE_ID = "INVALID_CASE_ID"
    INVALID_REVISION = "INVALID_REVISION"
    INVALID_PACKAGE_ID = "INVALID_PACKAGE_ID"
    INVALID_PARTITION_KEY = "INVALID_PARTITION_KEY"
    INVALID_STAGE = "INVALID_STAGE"

    # report admission (ARCHITECTURE 5)
    REPORT_UNREADABLE = "REPORT_UNREADABLE"
    REPORT_MALFORMED = "REPORT_MALFORMED"
    REPORT_MISSING_FIELD = "REPORT_MISSING_FIELD"
    REPORT_INVALID_FIELD = "REPORT_INVALID_FIELD"
    REPORT_NOT_UTF8 = "REPORT_NOT_UTF8"
    REPORT_TOO_LARGE = "REPORT_TOO_LARGE"
    REPORT_CONTROL_CHARACTERS = "REPORT_CONTROL_CHARACTERS"
    REPORT_EMPTY = "REPORT_EMPTY"
    CASE_ALREADY_IMPORTED = "CASE_ALREADY_IMPORTED"

    # configuration
    CONFIG_INVALID = "CONFIG_INVALID"
    CONFIG_NOT_FOUND = "CONFIG_NOT_FOUND"
    PROMPT_VERSION_UNKNOWN = "PROMPT_VERSION_UNKNOWN"
    PROMPT_LOCK_MISMATCH = "PROMPT_LOCK_MISMATCH"

    # artifact store (ARCHITECTURE 4)
    ARTIFACT_CONFLICT = "ARTIFACT_CONFLICT"
    ARTIFACT_CORRUPT = "ARTIFACT_CORRUPT"
    ARTIFACT_MISSING = "ARTIFACT_MISSING"
    ARTIFACT_PATH_INVALID = "ARTIFACT_PATH_INVALID"
    ARTIFACT_UNSERIALIZABLE = "ARTIFACT_UNSERIALIZABLE"
    REVISION_LOCKED = "REVISION_LOCKED"
    REVISION_FROZEN = "REVISION_FROZEN"
    REVISION_UNKNOWN = "REVISION_UNKNOWN"

    # world database (ARCHITECTURE 10)
    CATALOG_UNKNOWN = "CATALOG_UNKNOWN"
    RESEARCH_QUERY_INVALID = "RESEARCH_QUERY_INVALID"
    TABLE_NOT_ALLOWLISTED = "TABLE_NOT_ALLOWLISTED"
    IDENTIFIER_NOT_IN_SCHEMA = "IDENTIFIER_NOT_IN_SCHEMA"
    READ_ONLY_VIOLATION = "READ_ONLY_VIOLATION"
    RESEARCH_UNAVAILABLE = "RESEARCH_UNAVAILABLE"
    ENTITY_RESOLUTION_BINDING_CHANGED = "ENTITY_RESOLUTION_BINDING_CHANGED"
    WORLD_DATA_INVALID = "WORLD_DATA_INVALID"

    # lookup tool (ARCHITECTURE 11)
    LOOKUP_NO_WORD_CHARACTERS = "LOOKUP_NO_WORD_CHARACTERS"
    LOOKUP_NO_MATCH = "LOOKUP_NO_MATCH"
    LOOKUP_INVALID_REQUEST = "LOOKUP_INVALID_REQUEST"

    # model layer (ARCHITECTURE 8)
    LLM_OUTPUT_SCHEMA = "LLM_OUTPUT_SCHEMA"
    LLM_OUTPUT_RULES = "LLM_OUTPUT_RULES"
    LLM_INVALID_JSON = "LLM_INVALID_JSON"
    LLM_INCOMPLETE_OUTPUT = "LLM_INCOMPLETE_OUTPUT"
    LLM_REFUSAL = "LLM_REFUSAL"
    LLM_CONTEXT_WINDOW_EXCEEDED = "LLM_CONTEXT_WINDOW_EXCEEDED"
    LLM_PAUSED = "LLM_PAUSED"
    LLM_PROVIDER_ERROR = "LLM_PROVIDER_ERROR"
    LLM_PROVIDER_RETRY_PENDING = "LLM_PROVIDER_RETRY_PENDING"
    LLM_MAX_DISPATCHES = "LLM_MAX_DISPATCHES"
    LLM_REPLAY_MISS = "LLM_REPLAY_MISS"
    LLM_AUTH = "LLM_AUTH"
    LLM_REQUEST_CHANGED = "LLM_REQUEST_CHANGED"
    ENTITY_RESOLUTION_INVALID_RESPONSES = "ENTITY_RESOLUTION_INVALID_RESPONSES"
    INTERPRETATION_INVALID_RESPONSES = "INTERPRETATION_INVALID_RESPONSES"
    CONTEXT_MANIFEST_MISMATCH = "CONTEXT_MANIFEST_MISMATCH"

    # quality evaluation (vba eval)
    EVAL_DATASET_INVALID = "EVAL_DATASET_INVALID"
    EVAL_BASELINE_INVALID = "EVAL_BASELINE_INVALID"
    EVAL_OUTPUT_CONFLICT = "EVAL_OUTPUT_CONFLICT"


class VbaError(Exception):
    """Base class: a message for people, a code and JSON-safe detail for machines."""

    def __init__(self, code: ErrorCode, message: str, **detail: Any) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
        self.detail: dict[str, Any] = detail

    def to_json(self) -> dict[str, Any]:
        """The error as it is written into events and blocked artifacts."""
        return {"code": self.code.value, "message": self.message, "detail": self.detail}


class InputError(VbaError):
    """The caller's data is wrong: a report, an id, a query."""


class ConfigError(VbaError):
    """The operator's configuration is wrong; ``detail['key']`` names the key."""


class StoreError(VbaError):
    """The case-package store refused an operation (append-only, lock, corruption)."""


class ResearchUnavailable(VbaError):
    """The world database is unreachable or a statement timed out. Retry after ``retry_at``."""


class ReadOnlyViolation(VbaError):
    """A write, ATTACH or other non-read operation was attempted on the world database."""


class ModelError(VbaError):
    """A model provider failed, or its replies stayed invalid after the correction budget."""
