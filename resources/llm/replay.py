"""The ``replay`` provider: answers from recorded dispatches, never from the network.

A reply is found by the exact request: the sha256 of the attempt's canonical neutral request
(stage, protocol version, system, messages including every correction round, output schema and
name, stage context, model parameters). Only recorded replies are replayed (accepted and rejected
attempts, so corrections replay exactly as they happened); provider faults are not. A request
with no recorded reply raises ``LLM_REPLAY_MISS`` naming the stage and the request hash: a replay
never falls back to a live call. This module opens no socket.
"""

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from resources.llm.base import ProviderOptions
from vba_assets.domain.llm.contract import (
    ChatMessage,
    DispatchRecord,
    ModelRequest,
    ProviderReply,
)
from vba_assets.errors import ConfigError, ErrorCode, ModelError, StoreError
from vba_assets.llm_config import LlmConfig

_RECORD_NAME = re.compile(r"^[a-z_]+-[0-9]+\.json$")


class ReplayProvider:
    """Replays recorded replies keyed by ``DispatchRecord.request_sha256``."""

    name = "replay"

    def __init__(self, records: Iterable[DispatchRecord]) -> None:
        self._by_request: dict[str, DispatchRecord] = {}
        for record in sorted(records, key=lambda r: (r.stage, r.attempt)):
            if record.reply() is not None:
                self._by_request.setdefault(record.request_sha256, record)

    @classmethod
    def from_config(cls, config: LlmConfig, options: ProviderOptions) -> "ReplayProvider":
        if options.replay_records is None:
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                f"{config.source}: provider: 'replay' answers from the recorded dispatches of a "
                "revision, and none were given",
                key="provider",
            )
        return cls(options.replay_records)

    @classmethod
    def from_directories(cls, *directories: Path) -> "ReplayProvider":
        """Load every ``<stage>-<n>.json`` dispatch record under ``directories``.

        Other files there (e.g. ``<stage>-<n>.manifest.json`` context manifests) are not records.
        """
        records: list[DispatchRecord] = []
        for directory in directories:
            for path in sorted(Path(directory).glob("*.json")):
                if not _RECORD_NAME.match(path.name):
                    continue
                try:
                    records.append(DispatchRecord.model_validate_json(path.read_bytes()))
                except ValidationError as exc:
                    raise StoreError(
                        ErrorCode.ARTIFACT_CORRUPT,
                        f"{path} is not a dispatch record: {exc.errors()[0]['msg']}",
                        path=str(path),
                    ) from None
        return cls(records)

    def __len__(self) -> int:
        return len(self._by_request)

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        """The body the recorded attempt sent, else the neutral request."""
        record = self._by_request.get(request.sha256(messages))
        return dict(record.request) if record else request.document(messages)

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        request_sha256 = request.sha256(messages)
        record = self._by_request.get(request_sha256)
        reply = record.reply() if record else None
        if reply is None:
            raise ModelError(
                ErrorCode.LLM_REPLAY_MISS,
                f"stage {request.stage}: no recorded reply for request sha256 {request_sha256} "
                f"({len(messages)} messages); replay never calls a model",
                stage=request.stage,
                request_sha256=request_sha256,
            )
        return reply
