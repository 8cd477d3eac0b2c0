"""The interpretation: its output contract, dates and the rules that check it (ARCHITECTURE 7)."""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "causal",
    "date_phrases",
    "date_resolution",
    "dates",
    "grounding",
    "models",
    "rules",
    "rules_v4",
]
