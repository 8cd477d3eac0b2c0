"""Entity resolution: plan and assessment outputs, their rules, the candidate index and F/N/D context (ARCHITECTURE 6)."""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "aliases",
    "assessment_rules",
    "batched",
    "captures",
    "citations",
    "context",
    "corrections",
    "legacy",
    "legacy_v4",
    "links",
    "merging",
    "models",
    "relation_facts",
    "rules",
    "same_names",
    "tiebreaks",
    "written_ids",
    "zone_facts",
]
