"""The world catalogs: search results, name matching and ranking, the lookup tool (ARCHITECTURE 6.2-6.3, 11)."""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "gazetteer",
    "identity_digits",
    "identity_lookup",
    "lookup",
    "lookup_result",
    "matching",
    "names",
    "search_key",
    "settings",
    "suggestions",
    "world",
]
