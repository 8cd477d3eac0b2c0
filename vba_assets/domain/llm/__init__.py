"""The provider-neutral model contract: requests, replies, records, schemas and the correction loop (ARCHITECTURE 8)."""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "call",
    "contract",
    "policy",
    "records",
    "replies",
    "schemas",
]
