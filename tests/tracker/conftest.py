"""Fixtures of the tracker sync tests: a fake GitHub over real HTTP, a tracker, a fake clock.

The token is the tracker canary (tests/providers.py): every test that syncs may be followed by a
grep of its workspace and Dagster instance for it (tests/tracker/test_tracker_secrets.py).
"""

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github_server import FakeGitHub
from tests.providers import TRACKER_CANARY
from vba_assets.config import TrackerConfig
from vba_assets.store import Workspace
from vba_assets.tracker.github_api import Clock

REPO = "example-org/example-core"
TOKEN_ENV = "VBA_TEST_GITHUB_TOKEN"


@dataclass
class FakeClock:
    """Wall time that only moves when the sync sleeps (each wait is kept)."""

    at: float = field(default_factory=time.time)
    waits: list[float] = field(default_factory=list)

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.at += seconds

    def clock(self) -> Clock:
        return Clock(now=lambda: self.at, sleep=self.sleep)


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    """The fake API, expecting the canary token, which the tracker's ``token_env`` holds."""
    monkeypatch.setenv(TOKEN_ENV, TRACKER_CANARY)
    with FakeGitHub(REPO, page_size=2) as server:
        server.token = TRACKER_CANARY
        yield server


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws")


def cases_bytes(root: Path) -> dict[str, bytes]:
    """Every file of the case packages but the import locks (they hold a pid and a time)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted((root / "cases").rglob("*"))
        if p.is_file() and ".import-locks" not in p.parts
    }


def tracker_config(url: str, **overrides: Any) -> TrackerConfig:
    values: dict[str, Any] = {
        "name": "core",
        "kind": "github",
        "repository": REPO,
        "api_url": url,
        "token_env": TOKEN_ENV,
    }
    return TrackerConfig.model_validate(values | overrides)


def seed(server: FakeGitHub) -> None:
    """Five issues and a pull request: #1-#3 bugs, #4 a pull request, #5 a comment, #6 unlabelled."""
    server.add_issue(1, "Hogger does not respawn", "Hogger in Elwynn Forest never came back.")
    server.add_issue(2, "Vendor sells nothing", "The vendor Bernie Heisten has an empty list.")
    server.add_issue(3, "Quest giver missing", "Marshal McBride is not at the abbey.")
    server.add_issue(4, "Fix spawn table", "A pull request.", pull_request={"url": "x"})
    server.add_issue(5, "Kobold stuck", "A kobold vermin is stuck in a wall.")
    server.add_comment(5, "Still stuck after the restart.")
    server.add_issue(6, "Typo in the docs", "A typo.", labels=["documentation"])


def project_toml(path: Path, workspace: Path, url: str, **tracker: Any) -> Path:
    """A project config file with one [[trackers]] block (the demo world DB)."""
    extra = "".join(f"{key} = {value!r}\n".replace("'", '"') for key, value in tracker.items())
    path.write_text(
        f'workspace = "{workspace}"\n'
        "[database]\n"
        'url = "embedded:demo"\n'
        'allowlist = ["creature_template", "creature_template_locale", "creature_queststarter",'
        ' "creature_questender", "creature_spawn_markers"]\n'
        'snapshot_label = "demo-wotlk-3.3.5"\n'
        "[[trackers]]\n"
        'name = "core"\n'
        'kind = "github"\n'
        f'repository = "{REPO}"\n'
        f'api_url = "{url}"\n'
        f'token_env = "{TOKEN_ENV}"\n' + extra,
        encoding="utf-8",
    )
    return path
