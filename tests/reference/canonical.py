"""Canonical JSON the plain way: convert every value, then let ``rfc8785`` serialize it."""

from typing import Any

import rfc8785

from vba_assets.domain.canonical import to_json_value


def plain_canonical_bytes(obj: Any) -> bytes:
    """RFC 8785 bytes of ``obj`` as before the C-encoder path: the checking walk converts it
    (models dumped, enums as their values; an unserializable value raises ``StoreError`` naming
    its JSON pointer), then the ``rfc8785`` package writes it."""
    return bytes(rfc8785.dumps(to_json_value(obj)))
