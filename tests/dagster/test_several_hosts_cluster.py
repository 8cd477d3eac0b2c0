"""The several-host deployment simulated on one machine (a harness, no tests of its own).

Used by ``tests/dagster/test_several_hosts.py`` and ``bench/several_hosts.py``. Each "host" is a
process group with a working folder, a ``DAGSTER_HOME``, a cache folder and a compute-log folder
of its own; what they share is PostgreSQL (one database per simulation) and an S3 server on
loopback (moto in server mode, ``moto_server``), reached through :class:`CountingProxy`, which
counts every request and its bytes by method and key prefix.

* the control host: ``make serve``'s deployment (:mod:`vba_assets.defs.serve`: code server,
  webserver, daemon) with ``deploy/dagster.several-hosts.yaml`` as its instance;
* run worker hosts: ``python -m vba_assets.defs.run_worker`` (:class:`RunWorker`), which can be
  killed (SIGKILL of its whole process group: the host is gone) and started again.

Ports come from 127.0.0.1:9150-9199 (this project's range for the simulation).
"""

import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import dagster as dg

from tests.conftest import REPO
from tests.dagster.test_several_hosts_s3 import BUCKET, STORE_PREFIX, port_in_range
from tests.e2e.dagster_dev import DagsterDev, wait_for
from tests.e2e.graphql import TERMINAL_RUN_STATUSES, DagsterGraphQL, JobRef
from tests.providers import API_KEY_VARS
from vba_assets.config import load_project_config
from vba_assets.defs.concurrency import MODEL_POOL, WORLD_DB_POOL
from vba_assets.defs.partitions import partition_key, register
from vba_assets.defs.run_worker import celery_urls
from vba_assets.defs.sensors import SENSOR_NAME
from vba_assets.intake import import_report
from vba_assets.pipeline.blocked import blocked_revisions
from vba_assets.pipeline.registry import STAGE_SPECS
from vba_assets.store import Workspace
from vba_assets.store.opening import open_workspace

#: The instance file's values a simulation shortens (the deploy file's are for production).
MAX_RUNTIME_S = 150
MONITOR_POLL_S = 5
FREE_SLOTS_S = 10
CLEARED_ENV = (
    "VBA_PROJECT_CONFIG",
    "VBA_LLM_CONFIG",
    "VBA_WORKSPACE",
    "VBA_CACHE_DIR",
    "DAGSTER_HOME",
    "AWS_PROFILE",
    *API_KEY_VARS,
)


def instance_yaml(max_runtime_s: int = MAX_RUNTIME_S) -> str:
    """``deploy/dagster.several-hosts.yaml`` with the simulation's shorter monitoring times."""
    text = (REPO / "deploy" / "dagster.several-hosts.yaml").read_text(encoding="utf-8")
    for old, new in (
        ("max_runtime_seconds: 3600", f"max_runtime_seconds: {max_runtime_s}"),
        ("poll_interval_seconds: 30", f"poll_interval_seconds: {MONITOR_POLL_S}"),
        (
            "free_slots_after_run_end_seconds: 60",
            f"free_slots_after_run_end_seconds: {FREE_SLOTS_S}",
        ),
    ):
        assert old in text, f"deploy/dagster.several-hosts.yaml no longer has {old!r}"
        text = text.replace(old, new)
    return text


def project_toml(folder: Path, working_copy: Path, endpoint: str | None) -> Path:
    """A project config (the CI catalogs on the embedded demo world DB) whose case packages are
    in the bucket under :data:`STORE_PREFIX` with ``working_copy`` as this host's working copy,
    or (``endpoint`` None) in ``working_copy`` alone: the local store."""
    text = (REPO / "config" / "project.mariadb-ci.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^url = .*$", 'url = "embedded:demo"', text, count=1)
    text = re.sub(r"(?m)^password_env = .*$", "", text)
    if endpoint is None:
        text = re.sub(r"(?m)^workspace = .*$", f'workspace = "{working_copy}"', text)
    else:
        text = re.sub(r"(?m)^workspace = .*$", "", text)
        text += (
            f'\n[workspace]\npath = "{working_copy}"\nurl = "s3://{BUCKET}/{STORE_PREFIX}"\n'
            f'endpoint_url = "{endpoint}"\nregion = "us-east-1"\n'
            'access_key_id_env = "AWS_ACCESS_KEY_ID"\n'
            'secret_access_key_env = "AWS_SECRET_ACCESS_KEY"\n'
        )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "project.toml"
    path.write_text(text, encoding="utf-8")
    return path


def base_env(pg_database: str, s3_endpoint: str) -> dict[str, str]:
    """The environment every host has: PostgreSQL, the Celery URLs, the bucket, AWS keys."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
    env.update(DAGSTER_PG_DB=pg_database, PYTHONUNBUFFERED="1", PYTHONPATH=str(REPO))
    broker, backend = celery_urls(env)
    env.update(
        DAGSTER_CELERY_BROKER_URL=broker,
        DAGSTER_CELERY_BACKEND_URL=backend,
        VBA_S3_BUCKET=BUCKET,
        VBA_S3_ENDPOINT_URL=s3_endpoint,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )
    return env


def host_env(
    env: dict[str, str], folder: Path, yaml_text: str, *, local_store: Path | None = None
) -> dict[str, str]:
    """``env`` for a host whose private folders are under ``folder`` (created here): its
    DAGSTER_HOME, cache, compute-log staging folder, and project config: the case packages in
    the bucket with a working copy of its own, or in ``local_store``, one local workspace that
    all hosts share (the comparison run of ``bench/several_hosts.py``)."""
    if local_store is None:
        project = project_toml(folder, folder / "working-copy", env["VBA_S3_ENDPOINT_URL"])
    else:
        project = project_toml(folder, local_store, None)
    home = folder / "dagster-home"
    home.mkdir(parents=True)
    (home / "dagster.yaml").write_text(yaml_text, encoding="utf-8")
    cache = folder / "cache"
    source_cache = Path(os.environ.get("VBA_CACHE_DIR") or Path.home() / ".cache" / "vba-assets")
    if source_cache.is_dir():  # a copy, not a shared path: saves each host the 6 s build
        shutil.copytree(source_cache, cache)
    return {
        **env,
        "DAGSTER_HOME": str(home),
        "VBA_COMPUTE_LOG_DIR": str(folder / "compute-logs"),
        "VBA_CACHE_DIR": str(cache),
        "VBA_PROJECT_CONFIG": str(project),
    }


class ControlHost(DagsterDev):
    """``python -m vba_assets.defs.serve`` (code server, webserver, daemon): the control host."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(folder, env, folder / "serve.log", port_in_range(), None)
        self.grpc_port = port_in_range()

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "vba_assets.defs.serve",
            "--port",
            str(self.port),
            "--grpc-port",
            str(self.grpc_port),
        ]


class RunWorker(DagsterDev):
    """``python -m vba_assets.defs.run_worker`` in a folder of its own: one run worker host."""

    def __init__(self, name: str, folder: Path, env: dict[str, str], concurrency: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(folder, env, folder / "worker.log", 0, None)
        self.name = name
        self.concurrency = concurrency
        self.starts = 0

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "vba_assets.defs.run_worker",
            "--name",
            self.name,
            "--concurrency",
            str(self.concurrency),
        ]

    def start(self) -> "RunWorker":
        self.starts += 1
        super().start()
        return self

    def ready(self) -> bool:
        """True once this start of the worker consumes (Celery logs ``<name> ready.``)."""
        if self.exited() is not None:
            raise RuntimeError(f"{self.name} exited: {self.log_tail()}")
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return False
        return text.count(f"{self.name} ready.") >= self.starts

    def kill(self) -> None:
        """SIGKILL of the worker's whole process group: the host is gone, nothing cleans up."""
        process = self._process
        assert process is not None
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        self._process = None


START_TIMEOUT_S = 240.0
BACKFILL_TIMEOUT_S = 900.0
SETTLE_S = 240.0
POOL_LIMIT = 2
IN_PROGRESS = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


@dataclass
class Simulation:
    """A running simulation: the hosts, the instance and workspace as this process sees them."""

    env: dict[str, str]
    control: ControlHost
    workers: list[RunWorker]
    instance: dg.DagsterInstance
    client: DagsterGraphQL
    workspace: Workspace

    def import_and_backfill(self, reports: list[Path], title: str) -> tuple[list[str], str]:
        """Import ``reports`` into the shared store, register them, backfill them (GraphQL)."""
        case_ids = [import_report(self.workspace, path).case_id for path in reports]
        register(self.instance, [(case_id, "0001") for case_id in case_ids])
        keys = sorted(partition_key(case_id, "0001") for case_id in case_ids)
        assets = [spec.name for spec in STAGE_SPECS]
        return keys, self.client.launch_asset_backfill(assets, keys, title=title)

    def runs(self, backfill_id: str) -> list[dg.DagsterRun]:
        return list(
            self.instance.get_runs(filters=dg.RunsFilter(tags={"dagster/backfill": backfill_id}))
        )

    def wait_until_settled(self, backfill_id: str, keys: list[str]) -> list[str]:
        """Wait for the backfill and every run to end; the partitions neither materialized nor
        blocked then (a relaunch by ``relaunch_lost_runs`` is waited for, within SETTLE_S)."""

        def finished() -> bool:
            status = self.client.backfill(backfill_id)["status"]
            return status not in ("REQUESTED", "CANCELING", "FAILING") and all(
                run.status.value in TERMINAL_RUN_STATUSES for run in self.runs(backfill_id)
            )

        wait_for("the backfill finished", finished, BACKFILL_TIMEOUT_S, self.control)
        assets = [dg.AssetKey(spec.name) for spec in STAGE_SPECS]

        def unsettled() -> list[str]:
            done = [self.instance.get_materialized_partitions(asset) for asset in assets]
            blocked = {block.partition_key for block in blocked_revisions(self.workspace)}
            lost = [k for k in keys if k not in blocked and not all(k in d for d in done)]
            pending = self.instance.get_runs(filters=dg.RunsFilter(statuses=IN_PROGRESS), limit=1)
            return keys if pending else lost

        settle_by = time.monotonic() + SETTLE_S
        while unsettled() and time.monotonic() < settle_by:
            time.sleep(2.0)
        return unsettled()


@contextmanager
def simulation(
    folder: Path,
    pg_database: str,
    s3_endpoint: str,
    *,
    workers: int = 2,
    concurrency: int = 1,
    local_store: Path | None = None,
) -> Iterator[Simulation]:
    """The control host and ``workers`` run worker hosts, serving; the inbox sensor stopped.

    This process's environment becomes the control host's while the simulation runs (the
    instance and the project config it reads)."""
    env = base_env(pg_database, s3_endpoint)
    yaml_text = instance_yaml()
    control_env = host_env(env, folder / "control", yaml_text, local_store=local_store)
    saved = dict(os.environ)
    os.environ.update(control_env)
    try:
        instance = dg.DagsterInstance.get()  # creates the schema in the fresh database
        for pool in (MODEL_POOL, WORLD_DB_POOL):
            instance.event_log_storage.set_concurrency_slots(pool, POOL_LIMIT)
        hosts = [
            RunWorker(
                f"w{n}@sim-host-{n}",
                folder / f"worker{n}",
                host_env(env, folder / f"worker{n}", yaml_text, local_store=local_store),
                concurrency,
            )
            for n in range(1, workers + 1)
        ]
        control = ControlHost(folder / "control", control_env)
        with ExitStack() as stack:
            stack.enter_context(control)
            for host in hosts:
                stack.enter_context(host)
            control.wait_until_serving(START_TIMEOUT_S)
            for host in hosts:
                wait_for(f"{host.name} ready", host.ready, START_TIMEOUT_S, host)
            client = DagsterGraphQL(control.base_url, timeout_s=120.0)
            job = cast(JobRef, wait_for("the code location loaded",
                       lambda: client.find_job("interpret_cases"), START_TIMEOUT_S, control))  # fmt: skip
            # the inbox sensor off: it would request runs of its own for the imported cases
            wait_for("a first inbox sensor tick", lambda: client.sensor_ticks(job, SENSOR_NAME),
                     START_TIMEOUT_S, control)  # fmt: skip
            assert client.stop_sensor(job, SENSOR_NAME) == "STOPPED"
            workspace = open_workspace(load_project_config(Path(control_env["VBA_PROJECT_CONFIG"])))
            yield Simulation(env, control, hosts, instance, client, workspace)
    finally:
        os.environ.clear()
        os.environ.update(saved)
