"""Throughput of a backfill under model latency, through the real deployment path. Prints JSON.

    .venv/bin/python bench/throughput.py                    # 200 cases, 2 s per call, 1,4,8
    .venv/bin/python bench/throughput.py --cases 20 --concurrency 2,4 --latency 0.5
    .venv/bin/python bench/throughput.py --storage postgres # needs DAGSTER_PG_* (deploy/)

With a live model a case is mostly waiting: three model calls of a few seconds each. What matters
is how many cases run at once and what running them costs. Each measurement is a fresh Dagster
instance (``DAGSTER_HOME`` with a ``dagster.yaml`` like ``deploy/dagster.local.yaml``: queued run
coordinator, ``max_concurrent_runs`` = the concurrency, one run per partition, op pools with both
pool limits = the concurrency) served by ``dagster dev`` (webserver, daemon, code server), and one
asset backfill of every case launched through GraphQL as the UI's Materialize dialog does: one run
per case, each in its own process (``DefaultRunLauncher``), six assets and their checks in it.

The model is simulated (:mod:`vba_assets.defs.simulation`): every call is answered from a
recording of the same case made once with the ``heuristic`` provider (setup, not timed) after
sleeping ``--latency`` seconds. Everything else is real: captures on the embedded world DB, store
writes, checks, dispatch records, the event log.

Measured per concurrency:

* ``wall_s``: from launching the backfill to the end of its last run (the runs' own end times);
  ``cases_per_minute``;
* ``efficiency``: ideal / wall with ideal = cases x 3 calls x latency / concurrency (the time the
  model calls alone would take with that many in flight and nothing else);
* ``orchestration_cpu_s`` and ``cpu_per_case_s``: CPU seconds of every process of the deployment
  (webserver, daemon, code server, every run process; not PostgreSQL) from the launch to the end,
  sampled from ``/proc`` every 0.2 s (a process that exits keeps its last sample, so this is a
  slight undercount);
* the model calls (count, most in flight, from the calls' own start and end times) and whether
  every run succeeded with every check passing on its partition.

Then the same backfill of a **trivial graph of the same shape** (``bench/throughput_defs.py``: our
six asset names, partitions, pools and check definitions; the three model assets only sleep the
latency) at ``--trivial-concurrency`` on a fresh instance of the same kind: Dagster's own cost per
case. ``dagster_cost_ratio`` = our CPU per case / its CPU per case.

Targets: efficiency >= 0.6 at the highest concurrency measured (8 by default) on this 2-CPU
machine; ``dagster_cost_ratio`` <= 1.2. Nothing here asserts; the smoke test checks the structure.
"""

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import dagster as dg
from common import emit, machine_info
from deployment import (
    INSTANCE_YAML,
    POSTGRES_STORAGE,
    create_database,
    dagster_cli,
    drop_database,
    write_workspace_yaml,
)
from session_cpu import SessionCpu

from resources.world_db import WorldDatabase
from vba_assets.config import embedded_project_config
from vba_assets.defs.assets import stage_pool
from vba_assets.defs.concurrency import MODEL_POOL, WORLD_DB_POOL
from vba_assets.defs.partitions import partition_key, register
from vba_assets.defs.simulation import (
    max_in_flight,
    prepare_replayed_cases,
    read_call_log,
    record_reports,
)
from vba_assets.pipeline.registry import STAGE_SPECS
from vba_assets.samples import sample_report_paths
from vba_assets.store import Workspace

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the e2e helpers start `dagster dev` and speak its GraphQL API
from tests.e2e.dagster_dev import DagsterDev, free_port  # noqa: E402
from tests.e2e.graphql import DagsterGraphQL  # noqa: E402

CALLS_PER_CASE = 3
EFFICIENCY_TARGET = 0.6
COST_RATIO_TARGET = 1.2
REVISION = "0001"
ASSETS = [spec.name for spec in STAGE_SPECS]
SERVER_START_TIMEOUT_S = 300.0
_CLEARED_ENV = ("VBA_PROJECT_CONFIG", "VBA_LLM_CONFIG", "VBA_WORKSPACE", "DAGSTER_HOME")
_UNFINISHED = ["QUEUED", "NOT_STARTED", "STARTING", "STARTED", "MANAGED", "CANCELING"]

# --- setup: reports and their recording ---------------------------------------------------------


def generate_reports(out_dir: Path, count: int) -> list[Path]:
    """``count`` report folders from the samples: a new case id and one sentence added."""
    samples = sample_report_paths()
    paths = []
    for index in range(count):
        sample = samples[index % len(samples)]
        target = out_dir / f"{sample.name}-T{index + 1:04d}"
        shutil.copytree(sample, target)
        report = json.loads((sample / "report.json").read_bytes().decode("utf-8-sig"))
        report["case_id"] = target.name
        report["body"] = f"{report.get('body') or ''}\n\nStill happening on attempt {index + 1}."
        (target / "report.json").write_text(json.dumps(report, ensure_ascii=False), "utf-8")
        paths.append(target)
    return paths


def _record_chunk(job: tuple[str, list[str]]) -> list[str]:
    root, paths = job
    return record_reports(Workspace(root), [Path(p) for p in paths])


def record(recordings: Workspace, reports: list[Path], jobs: int) -> float:
    """Run revision 0001 of every report once with the heuristic provider (``jobs`` processes)."""
    started = time.perf_counter()
    WorldDatabase.from_config(embedded_project_config(recordings.root)).close()  # build it once
    chunks = [
        (str(recordings.root), [str(p) for p in reports[i::jobs]]) for i in range(max(1, jobs))
    ]
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            pool.map(_record_chunk, chunks)
    else:
        _record_chunk(chunks[0])
    return round(time.perf_counter() - started, 1)


# --- one measurement ---------------------------------------------------------------------------------

_RUN_STATS = """
query ($filter: RunsFilter, $limit: Int) { runsOrError(filter: $filter, limit: $limit) {
  __typename ... on Runs { count results { runId status startTime endTime
    tags { key value } } } } }
"""


def _runs(client: DagsterGraphQL, backfill: str, statuses: list[str] | None, limit: int) -> Any:
    run_filter: dict[str, Any] = {"tags": [{"key": "dagster/backfill", "value": backfill}]}
    if statuses:
        run_filter["statuses"] = statuses
    return client.query(_RUN_STATS, {"filter": run_filter, "limit": limit})["runsOrError"]


def trivial_shape() -> str:
    return json.dumps(
        [
            {
                "name": spec.name,
                "pool": stage_pool(spec.stage),
                "calls_model": spec.stage.calls_model,
                "checks": [[check.name, check.blocking] for check in spec.checks],
            }
            for spec in STAGE_SPECS
        ]
    )


def measure(
    graph: str,
    concurrency: int,
    *,
    root: Path,
    reports: list[Path],
    recordings: Workspace,
    latency: float,
    storage: str,
) -> dict[str, Any]:
    """One backfill of every case of ``graph`` (``ours`` or ``trivial``) at ``concurrency``."""
    phase = root / f"{graph}-{concurrency}"
    home = phase / "dagster-home"
    home.mkdir(parents=True)
    instance_yaml = INSTANCE_YAML.format(concurrency=concurrency)
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED_ENV}
    if storage == "postgres":
        instance_yaml = POSTGRES_STORAGE + instance_yaml
        env["DAGSTER_PG_DB"] = create_database(f"vba_bench_{graph}_{concurrency}_{os.getpid()}")
    (home / "dagster.yaml").write_text(instance_yaml, encoding="utf-8")
    served = Workspace(phase / "served")
    if graph == "ours":
        case_ids = prepare_replayed_cases(recordings, served, reports, REVISION)
    else:
        case_ids = [path.name for path in reports]
    keys = [partition_key(case_id, REVISION) for case_id in case_ids]
    call_log = phase / "model-calls.jsonl"
    env.update(
        DAGSTER_HOME=str(home),
        VBA_WORKSPACE=str(served.root),
        VBA_SIM_RECORDINGS=str(recordings.root),
        VBA_SIM_LATENCY_S=str(latency),
        VBA_SIM_CALL_LOG=str(call_log),
        VBA_TRIVIAL_SHAPE=trivial_shape(),
        PYTHONUNBUFFERED="1",
    )
    dagster_cli(["instance", "migrate"], env)
    for pool in (MODEL_POOL, WORLD_DB_POOL):
        dagster_cli(["instance", "concurrency", "set", pool, str(concurrency)], env)
    previous = {k: os.environ.get(k) for k in ("DAGSTER_HOME", "DAGSTER_PG_DB")}
    os.environ.update(DAGSTER_HOME=env["DAGSTER_HOME"])
    if storage == "postgres":
        os.environ["DAGSTER_PG_DB"] = env["DAGSTER_PG_DB"]
    try:
        with dg.DagsterInstance.get() as instance:
            register(instance, [(case_id, REVISION) for case_id in case_ids])
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    workspace_yaml = write_workspace_yaml(phase / "workspace.yaml", graph)
    server = DagsterDev(REPO, env, phase / "dagster-dev.log", free_port(), workspace_yaml)
    with server:
        server.wait_until_serving(SERVER_START_TIMEOUT_S)
        client = DagsterGraphQL(server.base_url, timeout_s=120)
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while client.find_job("interpret_cases") is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the code location did not load:\n{server.log_tail()}")
            time.sleep(1.0)
        cpu = SessionCpu(server.pid)
        cpu.start()
        launched = time.time()
        backfill = client.launch_asset_backfill(ASSETS, keys, title=f"{graph} x{concurrency}")
        while True:
            time.sleep(5.0)
            status = client.backfill(backfill)["status"]
            total = _runs(client, backfill, None, 1)["count"]
            unfinished = _runs(client, backfill, _UNFINISHED, 1)["count"]
            done = status not in ("REQUESTED", "CANCELING", "FAILING") and total >= len(keys)
            if done and unfinished == 0:
                break
        time.sleep(2.0)  # the last run processes exit
        orchestration_cpu = cpu.stop()
        runs = _runs(client, backfill, None, len(keys) + 50)["results"]
        checks_passed = _checks_passed(client, keys) if graph == "ours" else None
    if storage == "postgres":
        drop_database(env["DAGSTER_PG_DB"])
    calls = read_call_log(call_log)
    ended = max((run["endTime"] or launched) for run in runs)
    first_start = min((run["startTime"] or ended) for run in runs)
    wall = ended - launched
    ideal = len(keys) * CALLS_PER_CASE * latency / concurrency
    succeeded = sum(1 for run in runs if run["status"] == "SUCCESS")
    return {
        "graph": graph,
        "concurrency": concurrency,
        "cases": len(keys),
        "wall_s": round(wall, 1),
        "cases_per_minute": round(len(keys) * 60 / wall, 1),
        "ideal_s": round(ideal, 1),
        "efficiency": round(ideal / wall, 3),
        # the backfill daemon picks a new backfill up on its next 30 s tick (not configurable)
        "first_run_started_after_s": round(first_start - launched, 1),
        "efficiency_from_first_run": round(ideal / max(ended - first_start, 1e-9), 3),
        "orchestration_cpu_s": round(orchestration_cpu, 1),
        "cpu_per_case_s": round(orchestration_cpu / len(keys), 3),
        "cpu_s_by_process": {
            kind: round(value, 1) for kind, value in sorted(cpu.by_kind().items())
        },
        "processes_started": cpu.processes,
        "runs": len(runs),
        "runs_succeeded": succeeded,
        "partitions_with_every_check_passed": checks_passed,
        "model_calls": len(calls),
        "max_model_calls_in_flight": max_in_flight(calls),
        "run_seconds_p50": _median(
            [run["endTime"] - run["startTime"] for run in runs if run["startTime"]]
        ),
    }


def _median(values: list[float]) -> float | None:
    ordered = sorted(values)
    return round(ordered[len(ordered) // 2], 2) if ordered else None


def _checks_passed(client: DagsterGraphQL, keys: list[str]) -> int:
    """How many partitions have every check of every asset passed (latest evaluation)."""
    passed = dict.fromkeys(keys, True)
    for spec in STAGE_SPECS:
        for check in spec.checks:
            executions = client.check_executions(spec.name, check.name)
            for key in keys:
                execution = executions.get(key)
                if execution is None or not (execution.status == "SUCCEEDED" and execution.success):
                    passed[key] = False
    return sum(passed.values())


# --- main --------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--latency", type=float, default=2.0, help="seconds per model call")
    parser.add_argument("--concurrency", default="1,4,8", help="runs (and model calls) at once")
    parser.add_argument(
        "--trivial-concurrency",
        type=int,
        default=0,
        help="concurrency of the trivial graph's backfill (default: the highest measured)",
    )
    parser.add_argument("--storage", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--jobs", type=int, default=2, help="processes recording the cases")
    parser.add_argument("--keep", help="keep the instances, workspaces and logs in this folder")
    args = parser.parse_args(argv)
    levels = [int(level) for level in args.concurrency.split(",")]
    trivial_level = args.trivial_concurrency or max(levels)
    if args.storage == "postgres" and not os.environ.get("DAGSTER_PG_HOST"):
        parser.error(
            "--storage postgres needs DAGSTER_PG_* (eval $(bash deploy/postgres_setup.sh))"
        )

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="vba-throughput-"))
    root.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        reports = generate_reports(root / "reports", args.cases)
        recordings = Workspace(root / "recordings")
        recording_s = record(recordings, reports, args.jobs)
        common = {
            "root": root,
            "reports": reports,
            "recordings": recordings,
            "latency": args.latency,
            "storage": args.storage,
        }
        ours = {str(level): measure("ours", level, **common) for level in levels}
        trivial = measure("trivial", trivial_level, **common)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)

    top = ours[str(max(levels))]
    same = ours.get(str(trivial_level))
    ratio = (
        round(same["cpu_per_case_s"] / trivial["cpu_per_case_s"], 3)
        if same and trivial["cpu_per_case_s"]
        else None
    )
    targets = {
        "efficiency": {
            "at_concurrency": max(levels),
            "value": top["efficiency"],
            "target_at_least": EFFICIENCY_TARGET,
            "met": top["efficiency"] >= EFFICIENCY_TARGET,
        },
        "dagster_cost_ratio": {
            "at_concurrency": trivial_level,
            "value": ratio,
            "target_at_most": COST_RATIO_TARGET,
            "met": ratio is not None and ratio <= COST_RATIO_TARGET,
        },
    }
    emit(
        {
            "benchmark": "throughput",
            "machine": machine_info(),
            "parameters": {
                "cases": args.cases,
                "latency_s": args.latency,
                "calls_per_case_ideal": CALLS_PER_CASE,
                "concurrency": levels,
                "trivial_concurrency": trivial_level,
                "storage": args.storage,
                "executor": "in_process (one process per run, DefaultRunLauncher)",
                "recording_jobs": args.jobs,
            },
            "setup": {"recording_s": recording_s},
            "results": {
                "ours": ours,
                "trivial_same_shape": trivial,
                "dagster_cost": {
                    "cpu_per_case_ours_s": same["cpu_per_case_s"] if same else None,
                    "cpu_per_case_trivial_s": trivial["cpu_per_case_s"],
                    "ratio": ratio,
                    "wall_ratio": round(same["wall_s"] / trivial["wall_s"], 3) if same else None,
                },
            },
            "targets": targets,
            "total_s": round(time.perf_counter() - started, 1),
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
