"""The case: ids, admission of a report, text normalization and the CaseBuilder (ARCHITECTURE 3, 5)."""
