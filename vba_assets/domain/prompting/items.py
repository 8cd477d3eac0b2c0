"""The labelled pieces a model request is assembled from (seed ``resolver-classifier``).

A :class:`ContextItem` is one insertion of known text into a request: its lifecycle (how often
the text changes), its source artifact and the slot it was put in (``system``, ``message:<n>`` or
``field``). The request builders (:mod:`.stage_requests`, :mod:`.stage_render`) list the items of
the stage's own messages; :func:`correction_items` adds the per-attempt correction rounds.
:mod:`.context_manifest` locates them all in the sent body.

Pure: stdlib and pydantic only.
"""

import hashlib
from collections.abc import Sequence
from typing import Literal, get_args

from vba_assets.domain.base import StrictModel
from vba_assets.domain.llm.call import EMPTY_REPLY_PLACEHOLDER, correction_message
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.protocol import protocol

Lifecycle = Literal[
    "static", "per_revision", "per_case", "per_stage", "per_attempt", "provider_injected"
]
LIFECYCLES: tuple[str, ...] = get_args(Lifecycle)
#: Text that is the same for every case of a stage and provider, so a provider may cache it.
CACHEABLE = frozenset({"static", "provider_injected"})
SYSTEM_SLOT = "system"
FIELD_SLOT = "field"


def text_sha256(text: str) -> str:
    """sha256 of a text's UTF-8 bytes (the identity of a code constant or a rendered item)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def message_slot(index: int) -> str:
    """The slot of the conversation's ``index``-th message (0 is the stage's user message)."""
    return f"message:{index}"


class ContextItem(StrictModel):
    """One labelled piece of a request, with the exact text of one insertion.

    ``source`` names where the text comes from: ``prompts/<version>/...`` (package data, hashed in
    ``LOCK.json``), ``vba_assets/...py#NAME`` (code), ``case.json#/...`` (the case package) or a
    revision-relative artifact (``input.json``, ``entity-resolution/...``, ``rejected/...``) with a
    JSON pointer. ``source_sha256`` is that artifact's sha256 (filled in by whoever can read it).
    An item inserted twice is listed twice, with the same name and text.
    """

    name: str
    lifecycle: Lifecycle
    source: str
    source_sha256: str | None = None
    slot: str = ""
    text: str

    @property
    def artifact(self) -> str:
        """The source without its JSON pointer."""
        return self.source.split("#", 1)[0]


def correction_items(
    rejected: Sequence[DispatchRecord], rejected_dir: str, *, first_message: int = 1
) -> list[ContextItem]:
    """The correction rounds of an attempt, mirroring ``model_call.conversation``.

    Args:
        rejected: the stage's rejected records before this attempt, in attempt order.
        rejected_dir: revision-relative folder of their rejected artifacts (``rejected`` or
            ``entity-resolution/rejected``).
        first_message: the conversation index of the first round (after the stage's messages).
    """
    items: list[ContextItem] = []
    for number, record in enumerate(rejected):
        spec = protocol(record.protocol_version)
        artifact = f"{rejected_dir}/{record.stage}-{record.attempt}.json"
        reply = record.output_text or record.text or ""
        field = "output_text" if record.output_text else "text"
        index = first_message + 2 * number
        rounds = [
            ("reply", f"{artifact}#/{field}", reply if reply.strip() else EMPTY_REPLY_PLACEHOLDER),
            (
                "correction",
                f"{artifact}#/issues",
                correction_message(record.issues, spec, record.output_text),
            ),
        ]
        items += [
            ContextItem(
                name=f"{kind}:attempt-{record.attempt}",
                lifecycle="per_attempt",
                source=source,
                slot=message_slot(index + offset),
                text=text,
            )
            for offset, (kind, source, text) in enumerate(rounds)
        ]
    return items
