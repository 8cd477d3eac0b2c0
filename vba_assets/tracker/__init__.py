"""Reports from issue trackers (ARCHITECTURE 15): a pure GitHub issue mapping and its imports."""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "comment",
    "github_api",
    "github_issues",
    "issue_import",
    "sync",
    "sync_state",
    "write_back",
]
