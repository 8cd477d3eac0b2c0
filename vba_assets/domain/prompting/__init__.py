"""Prompts and requests: versioned prompt files, rendering, context manifests (ARCHITECTURE 7-8)."""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "items",
    "layout",
    "location",
    "manifest",
    "pieces",
    "prompts",
    "render",
    "requests",
    "search_pieces",
    "validators",
]
