"""An exact account of what a model request holds, item by item (seed ``resolver-classifier``).

The request builders (:func:`vba_assets.domain.stage_requests.request_items`) list the labelled
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

Pure: stdlib and pydantic only.
"""

import hashlib
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple, get_args

from pydantic import BaseModel, ConfigDict

from vba_assets.domain.model_call import EMPTY_REPLY_PLACEHOLDER, correction_message
from vba_assets.domain.model_contract import DispatchRecord, TokenUsage, canonical_json
from vba_assets.errors import ErrorCode, ModelError

Lifecycle = Literal[
    "static", "per_revision", "per_case", "per_stage", "per_attempt", "provider_injected"
]
LIFECYCLES: tuple[str, ...] = get_args(Lifecycle)
#: Text that is the same for every case of a stage and provider, so a provider may cache it.
CACHEABLE = frozenset({"static", "provider_injected"})
TOKEN_ESTIMATOR = "ceil(chars / 4): an estimate, not a provider's tokenizer"
MANIFEST_SUFFIX = ".manifest.json"
SYSTEM_SLOT = "system"
FIELD_SLOT = "field"
_STAGE_DATA = "stage_context"
_SHAPE_KEYS = frozenset({"type", "role"})  # block keys that only give a block's shape


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def text_sha256(text: str) -> str:
    """sha256 of a text's UTF-8 bytes (the identity of a code constant or a rendered item)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def estimate_tokens(chars: int) -> int:
    """The manifests' token estimate: ``ceil(chars / 4)``."""
    return math.ceil(chars / 4)


def message_slot(index: int) -> str:
    """The slot of the conversation's ``index``-th message (0 is the stage's user message)."""
    return f"message:{index}"


class ContextItem(_Frozen):
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


class Placement(_Frozen):
    channel: str
    offset: int


class ManifestItem(_Frozen):
    name: str
    lifecycle: Lifecycle
    source: str
    source_sha256: str | None
    insertions: int
    chars: int  # of one insertion
    total_chars: int
    est_tokens: int
    placements: tuple[Placement, ...]


class ManifestChannel(_Frozen):
    """One text field of the sent body (``system``, ``messages[0].content``, ``tools[0].name``)."""

    channel: str
    slot: str
    role: str | None
    chars: int
    unaccounted_chars: int
    sha256: str


class ContextManifest(_Frozen):
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


# --- the text of a sent body ----------------------------------------------------------------------


class _Channel(NamedTuple):
    path: str
    slot: str
    role: str | None
    group: int  # reading order: 0 definitions, 1 system, 2 conversation, 3 structured stage data
    text: str


def _leaves(value: Any, path: str, group: int, out: list[_Channel]) -> None:
    """Structured data as channels: string leaves; schemas and stage data whole, as JSON."""
    key = path.rsplit(".", 1)[-1]
    if isinstance(value, dict | list) and (key.endswith("schema") or key == _STAGE_DATA):
        out.append(_Channel(path, FIELD_SLOT, None, group, canonical_json(value).decode()))
    elif isinstance(value, dict):
        for name in sorted(value):
            _leaves(value[name], f"{path}.{name}" if path else name, group, out)
    elif isinstance(value, list):
        for index, element in enumerate(value):
            _leaves(element, f"{path}[{index}]", group, out)
    else:
        text = value if isinstance(value, str) else canonical_json(value).decode()
        out.append(_Channel(path, FIELD_SLOT, None, group, text))


def _content(value: Any, path: str, slot: str, role: Any, group: int) -> list[_Channel]:
    """System text or a message's content: a string, or blocks with ``text`` (and fields)."""
    role = role if isinstance(role, str) else None
    if isinstance(value, str):
        return [_Channel(path, slot, role, group, value)]
    out: list[_Channel] = []
    for index, block in enumerate(value if isinstance(value, list) else [value]):
        where = f"{path}[{index}]"
        if not isinstance(block, dict):
            _leaves(block, where, group, out)
            continue
        if isinstance(block.get("text"), str):
            out.append(_Channel(f"{where}.text", slot, role, group, block["text"]))
        rest = {k: v for k, v in block.items() if k not in _SHAPE_KEYS | {"text"}}
        _leaves(rest, where, group, out)
    return out


def body_channels(body: dict[str, Any]) -> list[_Channel]:
    """Every text channel of a sent body, in the order a provider assembles the prompt."""
    channels: list[_Channel] = []
    conversation = 0
    for key in sorted(body, key=lambda k: (k != "tools", k)):
        value = body[key]
        if key == "system":
            channels += _content(value, "system", SYSTEM_SLOT, "system", 1)
        elif key == "messages" and isinstance(value, list):
            for index, message in enumerate(m for m in value if isinstance(m, dict)):
                role, path = message.get("role"), f"messages[{index}]"
                is_system = role in ("system", "developer")
                slot = SYSTEM_SLOT if is_system else message_slot(conversation)
                conversation += 0 if is_system else 1
                group = 1 if is_system else 2
                channels += _content(message.get("content"), f"{path}.content", slot, role, group)
                rest = {k: v for k, v in message.items() if k not in _SHAPE_KEYS | {"content"}}
                _leaves(rest, path, group, channels)
        elif isinstance(value, dict | list):
            _leaves(value, key, 3 if key == _STAGE_DATA else 0, channels)
    return sorted(channels, key=lambda c: c.group)  # stable within a group


# --- locating items -------------------------------------------------------------------------------


def _mismatch(record: DispatchRecord, message: str, **detail: Any) -> ModelError:
    return ModelError(
        ErrorCode.CONTEXT_MANIFEST_MISMATCH,
        f"stage {record.stage} attempt {record.attempt}: {message}",
        stage=record.stage,
        attempt=record.attempt,
        **detail,
    )


class _Located:
    """The spans ``(start, end, item name)`` items occupy in each channel."""

    def __init__(self, channels: Sequence[_Channel]) -> None:
        self.channels = channels
        self.spans: list[list[tuple[int, int, str]]] = [[] for _ in channels]

    def free(self, channel: int, start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e, _ in self.spans[channel])

    def covered(self, channel: int) -> int:
        return sum(e - s for s, e, _ in self.spans[channel])

    def place_in_order(self, record: DispatchRecord, items: Sequence[ContextItem]) -> None:
        """Each placed item after the previous one of its slot, within one channel."""
        cursors: dict[str, tuple[int, int]] = {}
        for item in items:
            slot = [i for i, c in enumerate(self.channels) if c.slot == item.slot]
            position, offset = cursors.get(item.slot, (0, 0))
            while position < len(slot):
                found = self.channels[slot[position]].text.find(item.text, offset)
                if found >= 0:
                    end = found + len(item.text)
                    self.spans[slot[position]].append((found, end, item.name))
                    cursors[item.slot] = (position, end)
                    break
                position, offset = position + 1, 0
            else:
                raise _mismatch(
                    record,
                    f"item {item.name!r} ({len(item.text)} characters from {item.source}) is not "
                    f"in the sent {item.slot} text where the builder put it",
                    item=item.name,
                    slot=item.slot,
                )

    def place_fields(self, items: Sequence[ContextItem]) -> None:
        """Field items wherever they occur in structured fields: longest first, no overlap."""
        for item in sorted(items, key=lambda i: -len(i.text)):
            for index, channel in enumerate(self.channels):
                start = channel.text.find(item.text) if channel.slot == FIELD_SLOT else -1
                while item.text and start >= 0:
                    end = start + len(item.text)
                    if self.free(index, start, end):
                        self.spans[index].append((start, end, item.name))
                    start = channel.text.find(item.text, start + 1)

    def provider_items(self, provider: str) -> list[ContextItem]:
        """A structured leaf no item covers is what the provider itself added."""
        added = []
        for index, channel in enumerate(self.channels):
            if channel.slot == FIELD_SLOT and channel.text and not self.spans[index]:
                name = f"provider:{channel.path}"
                added.append(
                    ContextItem(
                        name=name,
                        lifecycle="provider_injected",
                        source=f"provider:{provider}",
                        source_sha256=text_sha256(channel.text),
                        slot=FIELD_SLOT,
                        text=channel.text,
                    )
                )
                self.spans[index].append((0, len(channel.text), name))
        return added


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
            raise _mismatch(record, f"item {item.name!r} is listed with two different texts")
    channels = body_channels(record.request)
    located = _Located(channels)
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
    )


def _manifest_item(
    item: ContextItem, placed: list[tuple[int, int]], channels: Sequence[_Channel]
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


def _static_prefix(located: _Located, items: dict[str, ContextItem]) -> tuple[int, str | None]:
    """Characters read before the first non-cacheable item, and that item's name."""
    prefix = 0
    for index, channel in enumerate(located.channels):
        for start, _, name in sorted(located.spans[index]):
            if items[name].lifecycle not in CACHEABLE:
                return prefix + start, name
        prefix += len(channel.text)
    return prefix, None


# --- per-attempt items and the recorder's entry point ---------------------------------------------


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
        artifact = f"{rejected_dir}/{record.stage}-{record.attempt}.json"
        reply = record.output_text or record.text or ""
        field = "output_text" if record.output_text else "text"
        index = first_message + 2 * number
        rounds = [
            ("reply", f"{artifact}#/{field}", reply if reply.strip() else EMPTY_REPLY_PLACEHOLDER),
            ("correction", f"{artifact}#/issues", correction_message(record.issues)),
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
