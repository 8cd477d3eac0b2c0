"""The Dagster deployment each throughput measurement serves (``bench/throughput.py``).

A fresh ``DAGSTER_HOME`` per measurement: a ``dagster.yaml`` like ``deploy/dagster.local.yaml``
(queued run coordinator, ``max_concurrent_runs`` = the concurrency, one run per partition, op pools
with both pool limits = the concurrency), optionally on the PostgreSQL storage of
``deploy/dagster.yaml`` (``DAGSTER_PG_*``, one database per measurement), and a ``workspace.yaml``
loading either our graph or the trivial one.
"""

import os
import subprocess
import sys
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]

INSTANCE_YAML = """\
run_coordinator:
  module: dagster.core.run_coordinator
  class: QueuedRunCoordinator
  config:
    dequeue_interval_seconds: 1
    dequeue_use_threads: true
    dequeue_num_workers: {concurrency}
concurrency:
  runs:
    max_concurrent_runs: {concurrency}
    tag_concurrency_limits:
      - key: dagster/partition
        value:
          applyLimitPerUniqueValue: true
        limit: 1
  pools:
    granularity: op
    default_limit: {concurrency}
telemetry:
  enabled: false
"""


def _deployed_postgres_storage() -> str:
    """The storage part of ``deploy/dagster.yaml``: PostgreSQL, with the deployment's event log
    storage (its pool slot fix, :mod:`vba_assets.defs.instance_storage`)."""
    deployed = yaml.safe_load((REPO / "deploy" / "dagster.yaml").read_text(encoding="utf-8"))
    storages = ("run_storage", "event_log_storage", "schedule_storage")
    return str(yaml.safe_dump({key: deployed[key] for key in storages}, sort_keys=False))


POSTGRES_STORAGE = _deployed_postgres_storage()


def write_workspace_yaml(path: Path, graph: str) -> Path:
    module, directory = (
        ("vba_assets.defs.simulation", REPO)
        if graph == "ours"
        else ("throughput_defs", REPO / "bench")
    )
    path.write_text(
        "load_from:\n  - python_module:\n"
        f"      module_name: {module}\n      attribute: defs\n"
        f"      working_directory: {directory}\n      location_name: {graph}\n",
        encoding="utf-8",
    )
    return path


def dagster_cli(args: Sequence[str], env: dict[str, str]) -> None:
    subprocess.run(
        [str(Path(sys.executable).with_name("dagster")), *args],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )


def _pg_connection() -> Any:
    import psycopg2

    connection = psycopg2.connect(
        host=os.environ["DAGSTER_PG_HOST"],
        port=int(os.environ["DAGSTER_PG_PORT"]),
        user=os.environ["DAGSTER_PG_USER"],
        password=os.environ["DAGSTER_PG_PASSWORD"],
        dbname=os.environ["DAGSTER_PG_DB"],
    )
    connection.autocommit = True
    return connection


def create_database(name: str) -> str:
    # closing(), not the connection's own `with`: since psycopg2 2.9 that opens a transaction block
    # even in autocommit mode, and CREATE/DROP DATABASE refuse to run in one
    with closing(_pg_connection()) as connection, connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cursor.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_database(name: str) -> None:
    with closing(_pg_connection()) as connection, connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
