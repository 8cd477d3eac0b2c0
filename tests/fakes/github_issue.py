"""A minimal GitHub REST issue object (the fields the mapping reads), for report-version tests."""

from typing import Any

REPO = "example-org/example-core"


def rest_issue(
    number: int,
    title: str,
    body: str,
    *,
    at: str = "2026-11-01T10:00:00Z",
    login: str = "player-one",
) -> dict[str, Any]:
    """Issue ``number`` of :data:`REPO`, created and updated at ``at`` by ``login``."""
    return {
        "id": 9000 + number,
        "node_id": f"I_kwDOexample{number}",
        "number": number,
        "title": title,
        "body": body,
        "user": {"login": login},
        "labels": [{"name": "bug"}],
        "created_at": at,
        "updated_at": at,
        "html_url": f"https://github.com/{REPO}/issues/{number}",
        "repository_url": f"https://api.github.com/repos/{REPO}",
    }
