"""A 10-case backfill on PostgreSQL storage through the queued run coordinator, under a pool limit.

The deployment is the documented one: ``deploy/dagster.yaml`` (PostgreSQL run/event/schedule
storage, ``QueuedRunCoordinator``, one run per partition at a time, op-granularity pools) copied
into a fresh ``DAGSTER_HOME``, both pool limits set with ``dagster instance concurrency set``
(``vba_model_calls 2``, ``vba_world_db 2``), and ``dagster dev`` (webserver + daemon + code
server) serving the project's definitions with a simulated model
(:mod:`vba_assets.defs.simulation`): every model call is answered from a heuristic recording of
the same case after **1 s**. The backfill is launched through the webserver's GraphQL API, as the
UI's Materialize dialog does.

Asserted: every partition's run succeeded, every asset was materialized and every check passed on
every partition, and no more than 2 model calls were ever in flight (from the calls' own start and
end times, logged by the run processes). Nothing is timed.

Needs PostgreSQL: ``eval "$(bash deploy/postgres_setup.sh)"`` (CI runs it; there a missing server
fails this test instead of skipping it).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.dagster.support import generate_reports
from tests.e2e.dagster_dev import DagsterDev, free_port, wait_for
from tests.e2e.graphql import TERMINAL_RUN_STATUSES, DagsterGraphQL
from tests.providers import API_KEY_VARS
from vba_assets.defs.concurrency import MODEL_POOL, WORLD_DB_POOL
from vba_assets.defs.partitions import partition_key
from vba_assets.defs.simulation import (
    max_in_flight,
    prepare_replayed_cases,
    read_call_log,
    record_reports,
)
from vba_assets.domain.stages import MODEL_STAGES
from vba_assets.pipeline.registry import STAGE_SPECS
from vba_assets.store import Workspace
from vba_assets.worlddata.build import ensure_demo_database

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

CASES = 10
LATENCY_S = 1.0
MODEL_CALLS_LIMIT = 2
WORLD_DB_LIMIT = 2
#: Bounds for a 2-core machine, far above the ~1-2 minutes this takes; they stop a hang.
SERVER_START_TIMEOUT_S = 180.0
BACKFILL_TIMEOUT_S = 900.0
_CLEARED_ENV = (
    "VBA_PROJECT_CONFIG",
    "VBA_LLM_CONFIG",
    "VBA_WORKSPACE",
    "DAGSTER_HOME",
    *API_KEY_VARS,
)


def _dagster(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [str(Path(sys.executable).with_name("dagster")), *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_a_ten_case_backfill_on_postgres_keeps_two_model_calls_in_flight_at_most(
    tmp_path: Path, pg_database: str
) -> None:
    ensure_demo_database()
    reports = generate_reports(tmp_path / "reports", CASES)
    recordings, served = Workspace(tmp_path / "recordings"), Workspace(tmp_path / "served")
    case_ids = record_reports(recordings, reports)
    assert prepare_replayed_cases(recordings, served, reports, "0001") == case_ids
    keys = sorted(partition_key(case_id, "0001") for case_id in case_ids)

    home = tmp_path / "dagster-home"
    home.mkdir()
    shutil.copy(REPO / "deploy" / "dagster.yaml", home / "dagster.yaml")
    workspace_yaml = tmp_path / "workspace.yaml"
    workspace_yaml.write_text(
        "load_from:\n  - python_module:\n      module_name: vba_assets.defs.simulation\n"
        f"      attribute: defs\n      working_directory: {REPO}\n"
        "      location_name: vba_assets_simulated\n"
    )
    call_log = tmp_path / "model-calls.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED_ENV}
    env.update(
        DAGSTER_HOME=str(home),
        DAGSTER_PG_DB=pg_database,
        VBA_WORKSPACE=str(served.root),
        VBA_SIM_RECORDINGS=str(recordings.root),
        VBA_SIM_LATENCY_S=str(LATENCY_S),
        VBA_SIM_CALL_LOG=str(call_log),
        PYTHONUNBUFFERED="1",
    )
    _dagster("instance", "migrate", env=env)
    # both pools, as README's "Concurrency" says (deploy/dagster.yaml has no default limit)
    for pool, limit in ((MODEL_POOL, MODEL_CALLS_LIMIT), (WORLD_DB_POOL, WORLD_DB_LIMIT)):
        _dagster("instance", "concurrency", "set", pool, str(limit), env=env)
        assert f'"{pool}": 0 / {limit}' in _dagster("instance", "concurrency", "get", pool, env=env)

    server = DagsterDev(REPO, env, tmp_path / "dagster-dev.log", free_port(), workspace_yaml)
    with server:
        server.wait_until_serving(SERVER_START_TIMEOUT_S)
        client = DagsterGraphQL(server.base_url)
        wait_for(
            "the code location loaded", lambda: client.find_job("interpret_cases"), 180, server
        )
        instance = client.instance()
        assert instance["runQueuingSupported"] is True  # the queued run coordinator
        assert instance["supportsConcurrencyLimits"] is True
        assert instance["poolConfig"]["poolGranularity"] == "op"
        assert "dagster/partition" in (instance["runQueueConfig"]["tagConcurrencyLimitsYaml"] or "")
        # the inbox sensor registers every existing revision of the served workspace
        wait_for(
            "the sensor registered every case",
            lambda: set(keys) <= set(client.partition_keys("case")),
            120,
            server,
        )

        assets = [spec.name for spec in STAGE_SPECS]
        backfill_id = client.launch_asset_backfill(assets, keys, title="pool test")

        def finished() -> bool:
            status = client.backfill(backfill_id)["status"]
            runs = client.runs_with_tag("dagster/backfill", backfill_id)
            done = status not in ("REQUESTED", "CANCELING", "FAILING")
            return (
                done
                and len(runs) >= len(keys)
                and all(run.status in TERMINAL_RUN_STATUSES for run in runs)
            )

        wait_for("the backfill finished", finished, BACKFILL_TIMEOUT_S, server)
        backfill = client.backfill(backfill_id)
        runs = client.runs_with_tag("dagster/backfill", backfill_id)
        failures = {
            run.partition: client.run_failures(run.run_id)
            for run in runs
            if run.status != "SUCCESS"
        }
        assert not failures, failures
        assert sorted(str(run.partition) for run in runs) == keys  # one run per partition
        assert backfill["status"] in ("COMPLETED", "COMPLETED_SUCCESS"), backfill

        run_ids = {run.run_id for run in runs}
        job = client.find_job("interpret_cases")
        assert job is not None
        checks_by_asset = client.job_asset_checks(job)
        for asset in assets:
            latest = client.materialized_partitions(asset, keys)
            assert set(latest) == set(keys) and set(latest.values()) <= run_ids, (asset, latest)
            checks = checks_by_asset[asset]
            for check in checks:
                executions = client.check_executions(asset, check)
                for key in keys:
                    execution = executions.get(key)
                    assert execution is not None, (asset, check, key)
                    assert execution.status == "SUCCEEDED" and execution.success, (
                        asset,
                        check,
                        key,
                        execution,
                    )

    calls = read_call_log(call_log)
    assert len(calls) == CASES * len(MODEL_STAGES)  # every model call, answered after 1 s
    assert {call["partition"] for call in calls} == set(keys)
    assert all(call["end"] - call["start"] >= LATENCY_S for call in calls)
    assert len({call["pid"] for call in calls}) == CASES  # one run process per partition
    # the limit was reached (runs really competed for the pool) and never exceeded
    assert max_in_flight(calls) == MODEL_CALLS_LIMIT
