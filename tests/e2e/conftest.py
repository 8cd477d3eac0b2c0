"""Fixtures for the end-to-end tests: a real ``dagster dev`` on a throwaway workspace, and Chromium.

``dagster_ui`` (module): what ``make run`` does, in temporary folders: a DAGSTER_HOME with
``deploy/dagster.local.yaml`` (queued runs, one run per revision, pools) and the pool limits set
with ``dagster instance concurrency set``, the packaged samples imported with ``vba demo
--workspace``, then ``dg dev --host 127.0.0.1 --port <free port>`` started from the repository root
with the embedded default config (``VBA_WORKSPACE`` points at the temporary workspace, so nothing
touches ``./vba-workspace``). The server stops as soon as the module is done, so it does not load
the machine while the rest of the suite runs.

``settled`` (module): waits (bounded) until the inbox sensor registered every sample partition
and every run it requested has finished.

``browser`` (module): headless Chromium over DevTools; skipped when ``/usr/bin/chromium`` is missing.
"""

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.e2e.chromium import CHROMIUM, Chromium
from tests.e2e.dagster_dev import DagsterDev, dagster_executable, free_port
from tests.e2e.graphql import DagsterGraphQL, LocationLoadError
from tests.e2e.settle import Settled, wait_until_settled
from tests.e2e.verify import sample_case_ids
from tests.providers import API_KEY_VARS
from vba_assets.defs.concurrency import MODEL_POOL, WORLD_DB_POOL
from vba_assets.defs.sensors import FIRST_REVISION
from vba_assets.store import Workspace
from vba_assets.worlddata.build import ensure_demo_database

#: Bounds for a 2-core machine: the server starts in ~10 s and the samples settle in well under
#: a minute; the margins absorb a loaded CI runner without letting a hang run forever.
SERVER_START_TIMEOUT_S = 120.0
SETTLE_TIMEOUT_S = 180.0
#: The pool limits `make run` sets by default (MODEL_CALLS=4, DB_QUERIES=2).
POOL_LIMITS = {MODEL_POOL: 4, WORLD_DB_POOL: 2}

#: Configuration that must not leak from the developer's shell into the server under test.
_CLEARED_ENV = (
    "VBA_PROJECT_CONFIG",
    "VBA_LLM_CONFIG",
    "VBA_WORKSPACE",
    "DAGSTER_HOME",
    *API_KEY_VARS,
)


@dataclass(frozen=True)
class DagsterUI:
    """The running server and what it was started on."""

    server: DagsterDev
    client: DagsterGraphQL
    workspace: Workspace
    dagster_home: Path
    sample_case_ids: list[str]

    @property
    def base_url(self) -> str:
        return self.server.base_url


def server_environment(workspace: Path, dagster_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED_ENV}
    env.update(
        DAGSTER_HOME=str(dagster_home),
        VBA_WORKSPACE=str(workspace),
        PYTHONUNBUFFERED="1",
    )
    return env


@pytest.fixture(scope="module")
def dagster_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DagsterUI]:
    root = tmp_path_factory.mktemp("e2e")
    workspace_dir = root / "workspace"
    dagster_home = root / "dagster-home"
    dagster_home.mkdir()
    shutil.copy(REPO / "deploy" / "dagster.local.yaml", dagster_home / "dagster.yaml")
    env = server_environment(workspace_dir, dagster_home)
    for pool, limit in POOL_LIMITS.items():  # what `make run` does with MODEL_CALLS, DB_QUERIES
        subprocess.run(
            [str(dagster_executable()), "instance", "concurrency", "set", pool, str(limit)],
            cwd=root,
            env=env,
            check=True,
            capture_output=True,
            timeout=120,
        )

    ensure_demo_database()  # what `make demo` does first; shared cache ($VBA_CACHE_DIR)
    demo = subprocess.run(
        [sys.executable, "-m", "vba_assets.cli", "demo", "--workspace", str(workspace_dir)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert demo.returncode == 0, f"vba demo failed:\n{demo.stdout}\n{demo.stderr}"
    workspace = Workspace(workspace_dir)
    expected = sample_case_ids()
    assert workspace.case_ids() == expected, demo.stdout

    server = DagsterDev(REPO, env, root / "dagster-dev.log", free_port(), workspace_yaml=None)
    with server:
        server.wait_until_serving(SERVER_START_TIMEOUT_S)
        print(f"\ndg dev on {server.base_url}, log {server.log_path}")
        yield DagsterUI(
            server=server,
            client=DagsterGraphQL(server.base_url),
            workspace=workspace,
            dagster_home=dagster_home,
            sample_case_ids=expected,
        )


@pytest.fixture(scope="module")
def settled(dagster_ui: DagsterUI) -> Settled:
    try:
        return wait_until_settled(
            dagster_ui.client,
            dagster_ui.sample_case_ids,
            FIRST_REVISION,
            SETTLE_TIMEOUT_S,
            diagnostics=lambda: f"dagster dev log tail:\n{dagster_ui.server.log_tail()}",
        )
    except (LocationLoadError, TimeoutError) as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is missing: install the Debian 'chromium' package")
    root = tmp_path_factory.mktemp("chromium")
    with Chromium(root / "profile", root / "chromium.log") as chromium:
        yield chromium


@pytest.fixture(scope="module")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pytest tmp dir, or ``$VBA_E2E_SCREENSHOTS`` to keep them (pytest prunes old tmp dirs;
    CI sets it to ``ci-artifacts/screenshots``, which the run leaves behind)."""
    keep = os.environ.get("VBA_E2E_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        return Path(keep)
    return tmp_path_factory.mktemp("ui-screenshots")
