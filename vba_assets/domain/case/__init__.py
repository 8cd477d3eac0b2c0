"""The case: ids, admission of a report, text normalization and the CaseBuilder (ARCHITECTURE 3, 5)."""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "builder",
    "ids",
    "report",
    "report_fields",
    "report_source",
    "text",
]
