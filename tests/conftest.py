"""Session-wide test hygiene: no API keys or tracker tokens, no network beyond loopback, a shared world-DB cache."""

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.providers import API_KEY_VARS, TRACKER_TOKEN_VARS

REPO = Path(__file__).resolve().parents[1]

# The demo world DB is content-addressed by its packaged data, so one build serves every test run.
os.environ.setdefault("VBA_CACHE_DIR", str(REPO / ".cache" / "worlddb"))
for _var in (*API_KEY_VARS, *TRACKER_TOKEN_VARS):  # every key and token variable (providers.py)
    os.environ.pop(_var, None)

_real_connect = socket.socket.connect


def _loopback_only_connect(self: socket.socket, address: object) -> object:
    """Refuse any TCP/UDP connection that is not to a loopback address (or a unix socket)."""
    if self.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
        host = str(address[0])
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback:
            raise ConnectionRefusedError(f"tests may only connect to loopback, not {host!r}")
    return _real_connect(self, address)  # type: ignore[arg-type]


socket.socket.connect = _loopback_only_connect  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _no_api_keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for var in (*API_KEY_VARS, *TRACKER_TOKEN_VARS):
        monkeypatch.delenv(var, raising=False)
    yield


#: In CI these prerequisites are installed by .ci/run: a skip for them means a broken install.
_CI_REQUIRED = (
    "chromium",
    "mariadbd",
    "VBA_TEST_PROJECT_CONFIG",
    "VBA_TEST_CASE_PACKAGE",
)  # not ../shared/data: the project runs on a fresh clone without it (the derivation check skips)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """With CI=true, a skip caused by a missing prerequisite fails instead of passing quietly."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if os.environ.get("CI") != "true" or not report.skipped:
        return
    reason = (
        str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    )
    if any(word in reason for word in _CI_REQUIRED):
        report.outcome = "failed"
        report.longrepr = f"CI requires this test to run, but it was skipped: {reason}"
