"""Several hosts sharing only PostgreSQL and the bucket (issue 31 item 4), simulated on one machine.

The deployment is ``deploy/dagster.several-hosts.yaml`` (README "Several hosts"), with the
harness of :mod:`tests.dagster.test_several_hosts_cluster`:

* an S3 server on loopback (``moto_server``), the bucket versioned, behind a counting proxy;
* PostgreSQL (one fresh database): Dagster's storage, the Celery broker (kombu's SQLAlchemy
  transport) and the Celery result backend;
* the control host: ``make serve``'s code server, webserver and daemon, its own DAGSTER_HOME;
* two run worker hosts (``python -m vba_assets.defs.run_worker``), each with its own working
  folder, DAGSTER_HOME, cache and compute-log folders: no path of one is known to another.

20 cases (the 7 samples and 13 copies with new case ids; the ``heuristic`` provider, the embedded
demo world DB, no API key) are imported, registered and backfilled through the webserver's
GraphQL API. Once worker 1 is executing a run (its task ``STARTED`` in the result backend) and
other runs are still to come, worker 1's whole process group is SIGKILLed (the host is gone) and
it is started again.

Asserted, from the instance, the result backend and the bucket: every partition ends with all
six assets materialized or a block recorded in its case package; the run the kill interrupted
failed and was retried (``run_retries`` after ``run_monitoring.max_runtime_seconds``) or
relaunched; both workers executed runs; every package verifies (``vba verify``); no key of the
bucket was written twice with different bytes (the bucket keeps every version); step logs of a
run are read from the bucket by the control host's instance; and every asset of every case has
the same data version as a local-store run of the same cases in this process
(``dg.materialize``, ephemeral instance). The figure is printed as one JSON line (``pytest -s``).
Nothing is timed.

Needs PostgreSQL (``eval "$(bash deploy/postgres_setup.sh)"``; CI runs it) and ``moto_server``
(the dev extra).
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import cast

import dagster as dg
import psycopg2
import pytest

from tests.dagster.support import GRAPH, generate_reports
from tests.dagster.test_several_hosts_cluster import (
    BUCKET,
    ControlHost,
    RunWorker,
    base_env,
    fake_credentials,
    host_env,
    instance_yaml,
    s3_server,
)
from tests.e2e.dagster_dev import wait_for
from tests.e2e.graphql import TERMINAL_RUN_STATUSES, DagsterGraphQL, JobRef
from vba_assets.defs.concurrency import MODEL_POOL, WORLD_DB_POOL
from vba_assets.defs.partitions import partition_key, register
from vba_assets.defs.relaunch import RELAUNCH_TAG
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.sensors import SENSOR_NAME
from vba_assets.intake import import_report
from vba_assets.pipeline.blocked import blocked_revisions
from vba_assets.pipeline.registry import STAGE_SPECS
from vba_assets.store import Workspace
from vba_assets.worlddata.build import ensure_demo_database

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

CASES = 20
POOL_LIMIT = 2
START_TIMEOUT_S = 240.0
BACKFILL_TIMEOUT_S = 900.0
SETTLE_S = 240.0
RETRY_NUMBER_TAG = "dagster/retry_number"
CELERY_TASK_TAG = "dagster-celery/task_id"
IN_PROGRESS = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


def _task_workers(env: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Celery task id -> (state, worker name), from the result backend's table."""
    connection = psycopg2.connect(
        host=env["DAGSTER_PG_HOST"],
        port=int(env["DAGSTER_PG_PORT"]),
        user=env["DAGSTER_PG_USER"],
        password=env["DAGSTER_PG_PASSWORD"],
        dbname=env["DAGSTER_PG_DB"],
    )
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass('celery_taskmeta') IS NOT NULL")
            if not cursor.fetchone()[0]:
                return {}
            cursor.execute("SELECT task_id, status, worker FROM celery_taskmeta")
            return {task: (status, worker or "") for task, status, worker in cursor.fetchall()}
    finally:
        connection.close()


def _data_versions(instance: dg.DagsterInstance, keys: list[str]) -> dict[str, dict[str, str]]:
    """partition -> asset -> the data version of its newest materialization."""
    versions: dict[str, dict[str, str]] = {}
    for spec in STAGE_SPECS:
        for key in keys:
            records = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=dg.AssetKey(spec.name), asset_partitions=[key]),
                limit=1,
            ).records
            if records:
                materialization = records[0].asset_materialization
                assert materialization is not None
                versions.setdefault(key, {})[spec.name] = materialization.tags[
                    "dagster/data_version"
                ]
    return versions


def _local_store_versions(
    reports: list[Path], folder: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, dict[str, str]]:
    """The same cases through the same graph in this process, on a local workspace."""
    local = Workspace(folder)
    local.root.mkdir(parents=True)
    monkeypatch.setenv("VBA_WORKSPACE", str(local.root))
    monkeypatch.delenv("VBA_PROJECT_CONFIG", raising=False)
    keys = [partition_key(import_report(local, path).case_id, "0001") for path in reports]
    resources = {
        "project": ProjectResource(),
        "world_db": WorldDatabaseResource(),
        "llm": LlmResource(),
    }
    with dg.DagsterInstance.ephemeral() as instance:
        register(instance, [tuple(key.split("|")) for key in keys])  # type: ignore[misc]
        for key in keys:
            result = dg.materialize(
                GRAPH, partition_key=key, instance=instance, resources=resources,
                raise_on_error=False,
            )  # fmt: skip
            assert result.success or blocked_revisions(local), key
        return _data_versions(instance, sorted(keys))


def test_several_hosts_backfill_with_a_worker_killed_loses_nothing(
    tmp_path: Path, pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import boto3

    started = time.monotonic()
    ensure_demo_database()
    reports = generate_reports(tmp_path / "reports", CASES)
    # until the case packages live in the bucket, the hosts share this one local workspace
    served = Workspace(tmp_path / "served")
    served.root.mkdir(parents=True)

    with s3_server(tmp_path / "moto.log") as proxy:
        env = base_env(pg_database, proxy.endpoint)
        env["VBA_WORKSPACE"] = str(served.root)
        yaml_text = instance_yaml()
        control_env = host_env(env, tmp_path / "control", yaml_text)
        for name, value in control_env.items():
            monkeypatch.setenv(name, value)
        instance = dg.DagsterInstance.get()  # creates the schema in the fresh database
        for pool in (MODEL_POOL, WORLD_DB_POOL):
            instance.event_log_storage.set_concurrency_slots(pool, POOL_LIMIT)

        workers = [
            RunWorker(
                f"w{number}@sim-host-{number}",
                tmp_path / f"worker{number}",
                host_env(env, tmp_path / f"worker{number}", yaml_text),
                concurrency=1,
            )
            for number in (1, 2)
        ]
        control = ControlHost(tmp_path / "control", control_env)
        with control, workers[0], workers[1]:
            control.wait_until_serving(START_TIMEOUT_S)
            for worker in workers:
                wait_for(f"{worker.name} ready", worker.ready, START_TIMEOUT_S, worker)
            client = DagsterGraphQL(control.base_url, timeout_s=120.0)
            job = wait_for("the code location loaded",
                           lambda: client.find_job("interpret_cases"), START_TIMEOUT_S, control)  # fmt: skip
            wait_for("a first inbox sensor tick",
                     lambda: client.sensor_ticks(cast(JobRef, job), SENSOR_NAME),
                     START_TIMEOUT_S, control)  # fmt: skip
            assert client.stop_sensor(cast(JobRef, job), SENSOR_NAME) == "STOPPED"

            case_ids = [import_report(served, path).case_id for path in reports]
            keys = sorted(partition_key(case_id, "0001") for case_id in case_ids)
            register(instance, [(case_id, "0001") for case_id in case_ids])
            assets = [spec.name for spec in STAGE_SPECS]
            backfill_id = client.launch_asset_backfill(assets, keys, title="several hosts")

            def runs() -> list[dg.DagsterRun]:
                return list(
                    instance.get_runs(filters=dg.RunsFilter(tags={"dagster/backfill": backfill_id}))
                )

            def victim_run() -> dg.DagsterRun | None:
                """A run worker 1 is executing now, once some run succeeded elsewhere."""
                all_runs = runs()
                if not any(run.status == dg.DagsterRunStatus.SUCCESS for run in all_runs):
                    return None
                tasks = _task_workers(env)
                for run in all_runs:
                    task = run.tags.get(CELERY_TASK_TAG)
                    if run.status == dg.DagsterRunStatus.STARTED and task in tasks:
                        state, worker = tasks[task]
                        if state == "STARTED" and worker == workers[0].name:
                            return run
                return None

            victim = cast(
                dg.DagsterRun,
                wait_for("worker 1 executing a run", victim_run, BACKFILL_TIMEOUT_S, control),
            )
            unfinished_at_kill = sum(
                run.status.value not in TERMINAL_RUN_STATUSES for run in runs()
            ) + (len(keys) - len({run.tags.get("dagster/partition") for run in runs()}))
            workers[0].kill()
            time.sleep(2.0)
            workers[0].start()
            wait_for("worker 1 ready again", workers[0].ready, START_TIMEOUT_S, workers[0])

            def finished() -> bool:
                status = client.backfill(backfill_id)["status"]
                return status not in ("REQUESTED", "CANCELING", "FAILING") and all(
                    run.status.value in TERMINAL_RUN_STATUSES for run in runs()
                )

            wait_for("the backfill finished", finished, BACKFILL_TIMEOUT_S, control)
            backfill_status = client.backfill(backfill_id)["status"]

            def unsettled() -> list[str]:
                materialized = [
                    instance.get_materialized_partitions(dg.AssetKey(a)) for a in assets
                ]
                blocked = {block.partition_key for block in blocked_revisions(served)}
                lost = [
                    k for k in keys if k not in blocked and not all(k in m for m in materialized)
                ]
                pending = instance.get_runs(filters=dg.RunsFilter(statuses=IN_PROGRESS), limit=1)
                return keys if pending else lost

            settle_by = time.monotonic() + SETTLE_S
            while unsettled() and time.monotonic() < settle_by:
                time.sleep(2.0)
            lost = unsettled()
            tasks = _task_workers(env)

        all_runs = runs()
        victim_after = instance.get_run_by_id(victim.run_id)
        blocked = {block.partition_key for block in blocked_revisions(served)}
        relaunched = [run for run in instance.get_runs() if RELAUNCH_TAG in run.tags]
        workers_used = {
            tasks[run.tags[CELERY_TASK_TAG]][1]
            for run in all_runs
            if run.tags.get(CELERY_TASK_TAG) in tasks
        }
        served_versions = _data_versions(instance, keys)

        # step logs: written by a worker host, read here through the control host's instance
        s3 = boto3.client("s3", endpoint_url=proxy.endpoint, **fake_credentials())
        log_keys = [
            obj["Key"]
            for page in s3.get_paginator("list_objects_v2").paginate(
                Bucket=BUCKET, Prefix="compute-logs/"
            )
            for obj in page.get("Contents", [])
        ]
        succeeded = next(r for r in all_runs if r.status == dg.DagsterRunStatus.SUCCESS)
        captured = [
            record.dagster_event.logs_captured_data.file_key  # type: ignore[union-attr]
            for record in instance.all_logs(
                succeeded.run_id, of_type=dg.DagsterEventType.LOGS_CAPTURED
            )
        ]
        log_data = [
            instance.compute_log_manager.get_log_data([succeeded.run_id, "compute_logs", key])
            for key in captured
        ]
        # no key written twice with different bytes (the bucket keeps every version)
        etags: dict[str, set[str]] = {}
        for page in s3.get_paginator("list_object_versions").paginate(Bucket=BUCKET):
            for version in page.get("Versions", []):
                etags.setdefault(version["Key"], set()).add(version["ETag"])
        rewritten = {
            key: sorted(tags)
            for key, tags in etags.items()
            if len(tags) > 1 and not key.startswith("compute-logs/")
        }
        traffic = proxy.traffic.snapshot()

    verify = subprocess.run(
        [str(Path(sys.executable).with_name("vba")), "verify", "--workspace", str(served.root),
         "--json"],
        capture_output=True, text=True, env={**os.environ, "VBA_WORKSPACE": str(served.root)},
        check=False,
    )  # fmt: skip
    local_versions = _local_store_versions(reports, tmp_path / "local", monkeypatch)

    figure = {
        "cases": len(keys),
        "workers": len(workers),
        "worker_kills": 1,
        "unfinished_runs_at_kill": unfinished_at_kill,
        "runs": len(all_runs),
        "failed_runs": sum(1 for r in all_runs if r.status != dg.DagsterRunStatus.SUCCESS),
        "retried_runs": sum(1 for r in all_runs if RETRY_NUMBER_TAG in r.tags),
        "relaunched_runs": len(relaunched),
        "workers_used": sorted(workers_used),
        "materialized": len(keys) - len(lost) - len(blocked),
        "blocked": len(blocked),
        "lost": len(lost),
        "backfill": backfill_status,
        "compute_log_objects": len(log_keys),
        "s3_traffic": traffic,
        "wall_s": round(time.monotonic() - started, 1),
    }
    print(json.dumps(figure))
    assert not lost, figure
    assert backfill_status in ("COMPLETED_SUCCESS", "COMPLETED_FAILED"), figure
    # the interrupted run failed (no worker reported its end) and another run took it over
    assert victim_after is not None and victim_after.status == dg.DagsterRunStatus.FAILURE
    taken_over = {run.tags[RELAUNCH_TAG] for run in relaunched} | {
        run.parent_run_id for run in all_runs if RETRY_NUMBER_TAG in run.tags
    }
    assert victim.run_id in taken_over, figure
    assert {r.run_id for r in all_runs if r.status != dg.DagsterRunStatus.SUCCESS} <= taken_over
    assert unfinished_at_kill > 0
    assert workers_used == {worker.name for worker in workers}, figure
    # step logs went to the bucket and come back on another host
    assert log_keys and captured, figure
    assert any(data.stdout or data.stderr for data in log_data), log_keys[:5]
    assert verify.returncode == 0, verify.stdout[-3000:] + verify.stderr[-3000:]
    assert not rewritten, rewritten
    assert set(served_versions) == set(keys) - blocked
    assert served_versions == {k: v for k, v in local_versions.items() if k not in blocked}
