"""An exact account of what a model request holds, item by item (seed ``resolver-classifier``).

The request builders (:func:`vba_assets.domain.prompting.requests.request_items`) list the labelled
:class:`ContextItem` s a request is assembled from, each with a lifecycle, a source artifact and the
exact text of one insertion. :func:`context_manifest` locates them in the body a provider actually
sent (``DispatchRecord.request``), so a manifest describes the sent bytes:

* The body's **text**: the system text and every message's content, plus the structured fields
  (tools, ``tool_choice``, ``response_format``, a neutral request's ``output_schema`` and
  ``stage_context``): string leaves as their characters, schemas and the stage context as RFC 8785
  canonical JSON. Scalar parameters (model, max_tokens, ...) are not text. A body holds no header,
  so a manifest never holds a credential.
* **Placed** items (slot ``system`` or ``message:<n>``) are found in order, each after the previous
  one of its slot; one that is not there is an error (``CONTEXT_MANIFEST_MISMATCH``). **Field**
  items (slot ``field``) are found wherever they occur in the structured fields and may be absent
  (a ``json_object`` provider sends no schema). A structured leaf that no item covers becomes a
  ``provider_injected`` item of its own (tool description, ``tool_choice``, ``cache_control``...).
* Every character no item covers is **unaccounted** template glue: the item sizes times their
  insertions plus the unaccounted characters make the total.
* Sizes are characters (code points); tokens are an **estimate**, ``ceil(chars / 4)``, not any
  provider's tokenizer. The provider's own usage, when reported, is kept beside it.
* The **static prefix** is the text before the first item that is neither ``static`` nor
  ``provider_injected``, in the order a provider assembles a prompt: tool and format definitions,
  system text, the conversation, then structured stage data (read only by local providers).
  Provider prompt caching can apply to that prefix.
* The **exact account** (protocol v4, ``ProtocolSpec.request_account``; seed
  ``resolver-classifier``'s context table): which conversation history the request includes
  (:class:`HistoryAccount`: none, or the correction rounds of the stage's earlier rejected
  attempts, each with its messages) and that nothing is mutated by callbacks
  (:class:`CallbackAccount`: no hook adds, changes or removes an item between the builder and the
  provider). Manifests of earlier protocols have neither field (absent, not null), so their bytes
  stay as they were recorded.

The item vocabulary (:class:`ContextItem`, lifecycles, slots, :func:`correction_items`) lives in
:mod:`.context_items`, reading and locating in the sent body in :mod:`.context_location`; their
public names are re-exported here. Pure: stdlib and pydantic only.
"""

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import SerializerFunctionWrapHandler, model_serializer

from vba_assets.domain.base import StrictModel
from vba_assets.domain.llm.contract import DispatchRecord, TokenUsage
from vba_assets.domain.prompting.items import (
    CACHEABLE,
    FIELD_SLOT,
    LIFECYCLES,
    ContextItem,
    Lifecycle,
    text_sha256,
)
from vba_assets.domain.prompting.location import (
    BodyChannel,
    LocatedItems,
    body_channels,
    manifest_mismatch,
)
from vba_assets.domain.protocol import protocol

TOKEN_ESTIMATOR = "ceil(chars / 4): an estimate, not a provider's tokenizer"
MANIFEST_SUFFIX = ".manifest.json"


def estimate_tokens(chars: int) -> int:
    """The manifests' token estimate: ``ceil(chars / 4)``."""
    return math.ceil(chars / 4)


class Placement(StrictModel):
    channel: str
    offset: int


class ManifestItem(StrictModel):
    name: str
    lifecycle: Lifecycle
    source: str
    source_sha256: str | None
    insertions: int
    chars: int  # of one insertion
    total_chars: int
    est_tokens: int
    placements: tuple[Placement, ...]


class ManifestChannel(StrictModel):
    """One text field of the sent body (``system``, ``messages[0].content``, ``tools[0].name``)."""

    channel: str
    slot: str
    role: str | None
    chars: int
    unaccounted_chars: int
    sha256: str


#: The one statement a v4 manifest makes about callbacks (the builder is the only writer).
NO_CALLBACKS = (
    "Nothing is mutated by callbacks: the request is built once, by code, from the revision's "
    "frozen artifacts; no before/after-model, tool or agent callback adds, changes or removes an "
    "item between the builder and the provider, and a reply is only read, never edited."
)


class HistoryRound(StrictModel):
    """One correction round in the conversation: the rejected reply and the correction after it."""

    attempt: int
    reply_message: int
    correction_message: int
    rejected: str  # the rejected record (revision-relative) the two messages are copied from


class HistoryAccount(StrictModel):
    """What conversation history the request includes (protocol v4)."""

    included: Literal["none", "correction_rounds"]
    rounds: tuple[HistoryRound, ...]
    statement: str


class CallbackAccount(StrictModel):
    """What callbacks did to the request (protocol v4): nothing."""

    mutated_by_callbacks: Literal[False] = False
    callbacks: tuple[str, ...] = ()
    statement: str = NO_CALLBACKS


#: Fields protocol v4 added; absent (not null) from a manifest of an earlier protocol.
_ACCOUNT_FIELDS = ("history", "callbacks")


class ContextManifest(StrictModel):
    """``dispatches/<stage>-<n>.manifest.json``: what one sent request held, item by item."""

    manifest_version: Literal[1] = 1
    stage: str
    attempt: int
    outcome: str
    provider: str
    model: str
    protocol_version: int
    request_sha256: str
    token_estimator: str = TOKEN_ESTIMATOR
    channels: tuple[ManifestChannel, ...]
    items: tuple[ManifestItem, ...]
    chars_by_lifecycle: dict[str, int]
    unaccounted_chars: int
    total_chars: int
    total_est_tokens: int
    static_prefix_chars: int
    static_prefix_share: float
    first_non_static: str | None
    provider_usage: TokenUsage | None
    history: HistoryAccount | None = None
    callbacks: CallbackAccount | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_account(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in _ACCOUNT_FIELDS:
            if data.get(key) is None:
                data.pop(key, None)
        return data


def history_account(items: Sequence[ContextItem]) -> HistoryAccount:
    """The conversation history a request's items include: the correction rounds
    (``reply:attempt-<n>`` and ``correction:attempt-<n>`` items, :func:`correction_items`)."""
    rounds: dict[int, dict[str, Any]] = {}
    for item in items:
        kind, _, attempt = item.name.partition(":attempt-")
        if (
            kind in ("reply", "correction")
            and attempt.isdigit()
            and item.slot.startswith("message:")
        ):
            entry = rounds.setdefault(int(attempt), {"attempt": int(attempt)})
            entry[f"{kind}_message"] = int(item.slot.split(":", 1)[1])
            entry["rejected"] = item.artifact
    listed = tuple(
        HistoryRound.model_validate(entry)
        for _, entry in sorted(rounds.items())
        if {"reply_message", "correction_message"} <= entry.keys()
    )
    if not listed:
        statement = (
            "No conversation history: the request is the stage's own messages only (system text "
            "and one user message); no earlier stage, turn or session is included."
        )
    else:
        statement = (
            f"The conversation history is the {len(listed)} correction round(s) of this stage's "
            "earlier rejected attempts, each the rejected reply (assistant) and the controller's "
            "correction (user), copied from their rejected records; nothing else (no earlier "
            "stage, turn or session) is included."
        )
    return HistoryAccount(
        included="correction_rounds" if listed else "none", rounds=listed, statement=statement
    )


# --- the manifest ---------------------------------------------------------------------------------


def context_manifest(record: DispatchRecord, items: Sequence[ContextItem]) -> ContextManifest:
    """The manifest of the request ``record`` sent, with ``items`` located in its body.

    Raises:
        ModelError: ``CONTEXT_MANIFEST_MISMATCH`` when a placed item is not in the sent text in
            its builder's order, or one name is listed with two different texts.
    """
    merged: dict[str, ContextItem] = {}
    for item in items:
        known = merged.setdefault(item.name, item)
        if (known.text, known.lifecycle, known.source) != (item.text, item.lifecycle, item.source):
            raise manifest_mismatch(
                record, f"item {item.name!r} is listed with two different texts"
            )
    channels = body_channels(record.request)
    located = LocatedItems(channels)
    located.place_in_order(record, [i for i in items if i.slot != FIELD_SLOT])
    located.place_fields([i for i in merged.values() if i.slot == FIELD_SLOT])
    merged |= {added.name: added for added in located.provider_items(record.provider)}
    placed: dict[str, list[tuple[int, int]]] = {name: [] for name in merged}
    for index, spans in enumerate(located.spans):
        for start, _, name in sorted(spans):
            placed[name].append((index, start))
    order = sorted(merged, key=lambda n: placed[n][0] if placed[n] else (len(channels), 0))
    listed = [_manifest_item(merged[n], placed[n], channels) for n in order]
    total = sum(len(c.text) for c in channels)
    unaccounted = total - sum(located.covered(i) for i in range(len(channels)))
    by_lifecycle = {k: sum(i.total_chars for i in listed if i.lifecycle == k) for k in LIFECYCLES}
    prefix, first = _static_prefix(located, merged)
    return ContextManifest(
        stage=record.stage,
        attempt=record.attempt,
        outcome=record.outcome,
        provider=record.provider,
        model=record.model,
        protocol_version=record.protocol_version,
        request_sha256=record.request_sha256,
        channels=tuple(
            ManifestChannel(
                channel=c.path,
                slot=c.slot,
                role=c.role,
                chars=len(c.text),
                unaccounted_chars=len(c.text) - located.covered(i),
                sha256=text_sha256(c.text),
            )
            for i, c in enumerate(channels)
        ),
        items=tuple(listed),
        chars_by_lifecycle=by_lifecycle | {"unaccounted": unaccounted},
        unaccounted_chars=unaccounted,
        total_chars=total,
        total_est_tokens=estimate_tokens(total),
        static_prefix_chars=prefix,
        static_prefix_share=round(prefix / total, 4) if total else 0.0,
        first_non_static=first,
        provider_usage=record.usage,
        **_account(record, items),
    )


def _account(record: DispatchRecord, items: Sequence[ContextItem]) -> dict[str, Any]:
    """The history and callback account of a protocol that has one (v4 on), else nothing."""
    if not protocol(record.protocol_version).request_account:
        return {}
    return {"history": history_account(items), "callbacks": CallbackAccount()}


def _manifest_item(
    item: ContextItem, placed: list[tuple[int, int]], channels: Sequence[BodyChannel]
) -> ManifestItem:
    chars = len(item.text)
    return ManifestItem(
        name=item.name,
        lifecycle=item.lifecycle,
        source=item.source,
        source_sha256=item.source_sha256,
        insertions=len(placed),
        chars=chars,
        total_chars=chars * len(placed),
        est_tokens=estimate_tokens(chars * len(placed)),
        placements=tuple(Placement(channel=channels[c].path, offset=o) for c, o in placed),
    )


def _static_prefix(located: LocatedItems, items: dict[str, ContextItem]) -> tuple[int, str | None]:
    """Characters read before the first non-cacheable item, and that item's name."""
    prefix = 0
    for index, channel in enumerate(located.channels):
        for start, _, name in sorted(located.spans[index]):
            if items[name].lifecycle not in CACHEABLE:
                return prefix + start, name
        prefix += len(channel.text)
    return prefix, None


# --- the recorder's entry point ------------------------------------------------------------------


def manifest_for_record(
    record: DispatchRecord,
    items: Sequence[ContextItem],
    artifact_sha256: Callable[[str], str | None] | None = None,
) -> ContextManifest:
    """The manifest of ``record``, with unknown source hashes filled by ``artifact_sha256``.

    ``artifact_sha256`` maps an item's artifact (its source without the pointer) to the sha256 of
    that artifact's bytes, or None when it cannot be read.
    """
    if artifact_sha256 is not None:
        known: dict[str, str | None] = {}
        for item in items:
            if item.source_sha256 is None and item.artifact not in known:
                known[item.artifact] = artifact_sha256(item.artifact)
        items = [
            i
            if i.source_sha256 is not None
            else i.model_copy(update={"source_sha256": known[i.artifact]})
            for i in items
        ]
    return context_manifest(record, items)


def manifest_relpath(record_relpath: str) -> str:
    """``.../dispatches/<stage>-<n>.json`` -> ``.../dispatches/<stage>-<n>.manifest.json``."""
    return record_relpath.removesuffix(".json") + MANIFEST_SUFFIX


def account_lines(manifest: ContextManifest) -> list[str]:
    """The history and callback account as readable lines (``vba context show``, previews)."""
    if manifest.history is None or manifest.callbacks is None:
        return [
            f"history and callbacks: not stated (protocol v{manifest.protocol_version} manifests "
            "predate the account; their requests were built the same way, without callbacks)"
        ]
    history = manifest.history
    lines = [f"history: {history.included}: {history.statement}"]
    lines += [
        f"  round of attempt {r.attempt}: messages[{r.reply_message}] rejected reply, "
        f"messages[{r.correction_message}] correction (from {r.rejected})"
        for r in history.rounds
    ]
    callbacks = manifest.callbacks
    state = "mutated by callbacks" if callbacks.mutated_by_callbacks else "nothing mutated"
    lines.append(f"callbacks: {state}: {callbacks.statement}")
    return lines
