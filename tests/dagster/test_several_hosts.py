"""Several hosts sharing only PostgreSQL and the bucket (issue 31 item 4), simulated on one machine.

The deployment is ``deploy/dagster.several-hosts.yaml`` (README "Several hosts"), with the
harness of :mod:`tests.dagster.test_several_hosts_cluster`:

* an S3 server on loopback (moto, one request at a time: ``tests/objectstore/serial_moto.py``),
  the bucket versioned, behind a counting proxy; the case packages and the step logs in it;
* PostgreSQL (one fresh database): Dagster's storage, the Celery broker (kombu's SQLAlchemy
  transport) and the Celery result backend;
* the control host: ``make serve``'s code server, webserver and daemon, its own DAGSTER_HOME;
* two run worker hosts (``python -m vba_assets.defs.run_worker``), each with its own working
  folder, DAGSTER_HOME, cache, compute-log folder and working copy of the case packages (a
  project config with ``[workspace] url``): no path of one is known to another.

20 cases (the 7 samples and 13 copies with new case ids; the ``heuristic`` provider, the embedded
demo world DB, no API key) are imported, registered and backfilled through the webserver's
GraphQL API. Once worker 1 is executing a run (its task ``STARTED`` in the result backend) and
other runs are still to come, worker 1's whole process group is SIGKILLed (the host is gone) and
it is started again.

Asserted, from the instance, the result backend and the bucket: every partition ends with all
six assets materialized or a block recorded in its case package; the run the kill interrupted
failed and was retried (``run_retries`` after ``run_monitoring.max_runtime_seconds``) or
relaunched; both workers executed runs; every package verifies (``verify_case``) on a host
with an empty working copy, from the bucket alone; no key of the case packages was written twice
with different bytes (the bucket keeps every version of a key); step logs of a
run are read from the bucket by the control host's instance; and every asset of every case has
the same data version as a local-store run of the same cases in this process
(``dg.materialize``, ephemeral instance). The figure is printed as one JSON line (``pytest -s``).
Nothing is timed.

Needs PostgreSQL (``eval "$(bash deploy/postgres_setup.sh)"``; CI runs it) and moto (the dev
extra).
"""

import json
import time
from pathlib import Path
from typing import cast

import dagster as dg
import psycopg2
import pytest

from tests.dagster.support import GRAPH, generate_reports
from tests.dagster.test_several_hosts_cluster import Simulation, project_toml, simulation
from tests.dagster.test_several_hosts_s3 import BUCKET, STORE_PREFIX, fake_credentials, s3_server
from tests.e2e.dagster_dev import wait_for
from tests.e2e.graphql import TERMINAL_RUN_STATUSES
from vba_assets.config import load_project_config
from vba_assets.defs.partitions import partition_key, register
from vba_assets.defs.relaunch import RELAUNCH_TAG
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.intake import import_report
from vba_assets.pipeline.blocked import blocked_revisions
from vba_assets.pipeline.registry import STAGE_SPECS
from vba_assets.pipeline.verification import verify_case
from vba_assets.store.opening import open_workspace
from vba_assets.worlddata.build import ensure_demo_database

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

CASES = 20
BACKFILL_TIMEOUT_S = 900.0
START_TIMEOUT_S = 240.0
RETRY_NUMBER_TAG = "dagster/retry_number"
CELERY_TASK_TAG = "dagster-celery/task_id"


def task_workers(env: dict[str, str]) -> dict[str, tuple[str, str]]:
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
            row = cursor.fetchone()
            if not row or not row[0]:
                return {}
            cursor.execute("SELECT task_id, status, worker FROM celery_taskmeta")
            return {task: (status, worker or "") for task, status, worker in cursor.fetchall()}
    finally:
        connection.close()


def data_versions(instance: dg.DagsterInstance, keys: list[str]) -> dict[str, dict[str, str]]:
    """partition -> asset -> the data version of its newest materialization."""
    versions: dict[str, dict[str, str]] = {}
    for spec in STAGE_SPECS:
        for key in keys:
            records = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=dg.AssetKey(spec.name), asset_partitions=[key]),
                limit=1,
            ).records
            if records and records[0].asset_materialization is not None:
                tags = records[0].asset_materialization.tags or {}
                versions.setdefault(key, {})[spec.name] = tags["dagster/data_version"]
    return versions


def local_store_versions(reports: list[Path], folder: Path) -> dict[str, dict[str, str]]:
    """The same cases through the same graph in this process, on a local workspace."""
    project = project_toml(folder, folder / "workspace", None)
    workspace = open_workspace(load_project_config(project))
    keys = [partition_key(import_report(workspace, path).case_id, "0001") for path in reports]
    resources = {
        "project": ProjectResource(project_config=str(project)),
        "world_db": WorldDatabaseResource(project_config=str(project)),
        "llm": LlmResource(),
    }
    with dg.DagsterInstance.ephemeral() as instance:
        register(instance, [(key.split("|")[0], "0001") for key in keys])
        for key in keys:
            dg.materialize(
                GRAPH, partition_key=key, instance=instance, resources=resources,
                raise_on_error=False,
            )  # fmt: skip
        return data_versions(instance, sorted(keys))


def kill_a_worker_mid_run(sim: Simulation, backfill_id: str, keys: list[str]) -> tuple[str, int]:
    """Once a run succeeded and worker 1 executes another, SIGKILL worker 1's whole process
    group and start it again. Returns the interrupted run's id and the runs still to finish."""
    first = sim.workers[0]

    def victim() -> str | None:
        runs = sim.runs(backfill_id)
        if not any(run.status == dg.DagsterRunStatus.SUCCESS for run in runs):
            return None
        tasks = task_workers(sim.env)
        for run in runs:
            task = run.tags.get(CELERY_TASK_TAG, "")
            started = tasks.get(task) == ("STARTED", first.name)
            if run.status == dg.DagsterRunStatus.STARTED and started:
                return run.run_id
        return None

    run_id = cast(str, wait_for("worker 1 executing a run", victim, BACKFILL_TIMEOUT_S, first))
    runs = sim.runs(backfill_id)
    unfinished = sum(run.status.value not in TERMINAL_RUN_STATUSES for run in runs)
    unfinished += len(keys) - len({run.tags.get("dagster/partition") for run in runs})
    first.kill()
    time.sleep(2.0)
    first.start()
    wait_for("worker 1 ready again", first.ready, START_TIMEOUT_S, first)
    return run_id, unfinished


def test_several_hosts_backfill_with_a_worker_killed_loses_nothing(
    tmp_path: Path, pg_database: str
) -> None:
    import boto3

    started = time.monotonic()
    ensure_demo_database()
    reports = generate_reports(tmp_path / "reports", CASES)
    with s3_server(tmp_path / "moto.log") as proxy:
        with simulation(tmp_path, pg_database, proxy.endpoint) as sim:
            keys, backfill_id = sim.import_and_backfill(reports, "several hosts")
            victim, unfinished_at_kill = kill_a_worker_mid_run(sim, backfill_id, keys)
            lost = sim.wait_until_settled(backfill_id, keys)
            tasks = task_workers(sim.env)
            instance, workers = sim.instance, sim.workers
            all_runs = sim.runs(backfill_id)
            blocked = {block.partition_key for block in blocked_revisions(sim.workspace)}
            served_versions = data_versions(instance, keys)
            victim_after = instance.get_run_by_id(victim)
            relaunched = [run for run in instance.get_runs() if RELAUNCH_TAG in run.tags]
            # step logs: written by a worker host, read through the control host's instance
            succeeded = next(r for r in all_runs if r.status == dg.DagsterRunStatus.SUCCESS)
            captured = [
                record.dagster_event.logs_captured_data.file_key
                for record in instance.all_logs(
                    succeeded.run_id, of_type=dg.DagsterEventType.LOGS_CAPTURED
                )
                if record.dagster_event is not None
            ]
            log_data = [
                instance.compute_log_manager.get_log_data([succeeded.run_id, "compute_logs", k])
                for k in captured
            ]
            # every package, from the bucket alone: a host with an empty working copy
            fresh = open_workspace(
                load_project_config(project_toml(tmp_path / "verifier", tmp_path / "verifier" / "wc",
                                                 proxy.endpoint))
            )  # fmt: skip
            reports_ok = {case: verify_case(fresh.case(case)) for case in fresh.case_ids()}
        s3 = boto3.client("s3", endpoint_url=proxy.endpoint, **fake_credentials())
        versions: dict[str, set[str]] = {}
        for page in s3.get_paginator("list_object_versions").paginate(Bucket=BUCKET):
            for version in page.get("Versions", []):
                versions.setdefault(version["Key"], set()).add(version["ETag"])
        traffic = proxy.traffic.snapshot()
    local_versions = local_store_versions(reports, tmp_path / "local")

    workers_used = {tasks[t][1] for r in all_runs if (t := r.tags.get(CELERY_TASK_TAG)) in tasks}
    store_keys = [k for k in versions if k.startswith(f"{STORE_PREFIX}/")]
    rewritten = {k: sorted(versions[k]) for k in store_keys if len(versions[k]) > 1}
    log_keys = [k for k in versions if k.startswith("compute-logs/")]
    figure = {
        "cases": len(keys),
        "workers": len(workers),
        "unfinished_runs_at_kill": unfinished_at_kill,
        "runs": len(all_runs),
        "failed_runs": sum(1 for r in all_runs if r.status != dg.DagsterRunStatus.SUCCESS),
        "retried_runs": sum(1 for r in all_runs if RETRY_NUMBER_TAG in r.tags),
        "relaunched_runs": len(relaunched),
        "workers_used": sorted(workers_used),
        "materialized": len(keys) - len(lost) - len(blocked),
        "blocked": len(blocked),
        "lost": len(lost),
        "store_objects": len(store_keys),
        "compute_log_objects": len(log_keys),
        "s3_traffic": traffic,
        "wall_s": round(time.monotonic() - started, 1),
    }
    print(json.dumps(figure))
    assert not lost, figure
    assert unfinished_at_kill > 0
    # the interrupted run failed (no worker reported its end) and another run took it over
    assert victim_after is not None and victim_after.status == dg.DagsterRunStatus.FAILURE
    taken_over = {run.tags[RELAUNCH_TAG] for run in relaunched} | {
        run.parent_run_id for run in all_runs if RETRY_NUMBER_TAG in run.tags
    }
    assert victim in taken_over, figure
    assert {r.run_id for r in all_runs if r.status != dg.DagsterRunStatus.SUCCESS} <= taken_over
    assert workers_used == {worker.name for worker in workers}, figure
    # step logs went to the bucket and come back on another host
    assert log_keys and captured, figure
    assert any(data.stdout or data.stderr for data in log_data), log_keys[:5]
    # every package verifies from the bucket; no key of it was written twice with other bytes
    assert sorted(reports_ok) == sorted(key.split("|")[0] for key in keys)
    assert all(report.ok for report in reports_ok.values()), {
        case: report.to_json() for case, report in reports_ok.items() if not report.ok
    }
    assert store_keys and not rewritten, rewritten
    # the same data versions as the local store gives the same cases
    assert set(served_versions) == set(keys) - blocked
    assert served_versions == {k: v for k, v in local_versions.items() if k not in blocked}
