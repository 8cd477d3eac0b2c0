"""Where the items of a request sit in the body a provider actually sent.

:func:`body_channels` reads a sent body (``DispatchRecord.request``) as text channels: the system
text and every message's content, plus the structured fields (tools, ``tool_choice``,
``response_format``, a neutral request's ``output_schema`` and ``stage_context``): string leaves as
their characters, schemas and the stage context as RFC 8785 canonical JSON. :class:`LocatedItems`
finds the :class:`~vba_assets.domain.prompting.items.ContextItem` s in those channels: placed items
in their builder's order, field items anywhere, and any uncovered structured leaf as an item the
provider added. :mod:`.context_manifest` turns the result into the manifest and its totals.

Pure: stdlib and pydantic only.
"""

from collections.abc import Sequence
from typing import Any, NamedTuple

from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.prompting.items import (
    FIELD_SLOT,
    SYSTEM_SLOT,
    ContextItem,
    message_slot,
    text_sha256,
)
from vba_assets.errors import ErrorCode, ModelError

_STAGE_DATA = "stage_context"
_SHAPE_KEYS = frozenset({"type", "role"})  # block keys that only give a block's shape


# --- the text of a sent body ----------------------------------------------------------------------


class BodyChannel(NamedTuple):
    path: str
    slot: str
    role: str | None
    group: int  # reading order: 0 definitions, 1 system, 2 conversation, 3 structured stage data
    text: str


def _leaves(value: Any, path: str, group: int, out: list[BodyChannel]) -> None:
    """Structured data as channels: string leaves; schemas and stage data whole, as JSON."""
    key = path.rsplit(".", 1)[-1]
    if isinstance(value, dict | list) and (key.endswith("schema") or key == _STAGE_DATA):
        out.append(BodyChannel(path, FIELD_SLOT, None, group, canonical_bytes(value).decode()))
    elif isinstance(value, dict):
        for name in sorted(value):
            _leaves(value[name], f"{path}.{name}" if path else name, group, out)
    elif isinstance(value, list):
        for index, element in enumerate(value):
            _leaves(element, f"{path}[{index}]", group, out)
    else:
        text = value if isinstance(value, str) else canonical_bytes(value).decode()
        out.append(BodyChannel(path, FIELD_SLOT, None, group, text))


def _content(value: Any, path: str, slot: str, role: Any, group: int) -> list[BodyChannel]:
    """System text or a message's content: a string, or blocks with ``text`` (and fields)."""
    role = role if isinstance(role, str) else None
    if isinstance(value, str):
        return [BodyChannel(path, slot, role, group, value)]
    out: list[BodyChannel] = []
    for index, block in enumerate(value if isinstance(value, list) else [value]):
        where = f"{path}[{index}]"
        if not isinstance(block, dict):
            _leaves(block, where, group, out)
            continue
        if isinstance(block.get("text"), str):
            out.append(BodyChannel(f"{where}.text", slot, role, group, block["text"]))
        rest = {k: v for k, v in block.items() if k not in _SHAPE_KEYS | {"text"}}
        _leaves(rest, where, group, out)
    return out


def body_channels(body: dict[str, Any]) -> list[BodyChannel]:
    """Every text channel of a sent body, in the order a provider assembles the prompt."""
    channels: list[BodyChannel] = []
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


def manifest_mismatch(record: DispatchRecord, message: str, **detail: Any) -> ModelError:
    """``CONTEXT_MANIFEST_MISMATCH`` for ``record``: the items do not describe what it sent."""
    return ModelError(
        ErrorCode.CONTEXT_MANIFEST_MISMATCH,
        f"stage {record.stage} attempt {record.attempt}: {message}",
        stage=record.stage,
        attempt=record.attempt,
        **detail,
    )


class LocatedItems:
    """The spans ``(start, end, item name)`` items occupy in each channel."""

    def __init__(self, channels: Sequence[BodyChannel]) -> None:
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
                raise manifest_mismatch(
                    record,
                    f"item {item.name!r} ({len(item.text)} characters from {item.source}) is not "
                    f"in the sent {item.slot} text where the builder put it",
                    item=item.name,
                    slot=item.slot,
                )

    def place_fields(self, items: Sequence[ContextItem]) -> None:
        """Field items wherever they occur in structured fields: longest first, no overlap.

        A ``provider_injected`` item is also found in text no placed item covers: a provider
        that sends the schema in the system text instead of its own field (the ``json_object``
        fallback of a protocol 4 request) injected it there.
        """
        for item in sorted(items, key=lambda i: -len(i.text)):
            for index, channel in enumerate(self.channels):
                searched = channel.slot == FIELD_SLOT or item.lifecycle == "provider_injected"
                start = channel.text.find(item.text) if searched else -1
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
