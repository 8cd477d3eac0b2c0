"""Costs of the several-host deployment (issue 31 item 5): the bucket against the local store.

    .venv/bin/python bench/several_hosts.py [--cases 20] [--workers 2] [--order local,bucket]

Needs PostgreSQL (``eval "$(bash deploy/postgres_setup.sh)"``; a database per phase is created
and dropped). Each phase is the deployment of ``deploy/dagster.several-hosts.yaml`` as
``tests/dagster/test_several_hosts.py`` simulates it (control host, ``--workers`` run worker
hosts, moto's S3 server on loopback behind a counting proxy, PostgreSQL as storage and Celery
broker), with the same ``--cases`` generated reports and the ``heuristic`` provider:

* ``local``: the case packages in one local workspace that every host shares (the store of one
  machine or a shared volume); step logs still go to the bucket;
* ``bucket``: the case packages in the bucket (``[workspace] url``), a working copy per host.

Per phase: the import (in this process) and the backfill's S3 requests and bytes, by method and
key prefix (``cases``: the case packages, ``compute-logs``: the step logs), per case; the wall
time from the backfill's launch to its last run's end, per case; each run's own wall time
(median, p90). Then a 10,000-case backfill's requests, by S3 price class, and their cost at the
list prices in :data:`PRICES` (an assumption, stated in the output). No worker is killed here
(the test does that). Prints one JSON document.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import dagster as dg
from common import emit, machine_info
from deployment import create_database, drop_database

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the simulation's harness lives with its test
from tests.dagster.support import generate_reports  # noqa: E402
from tests.dagster.test_several_hosts_cluster import simulation  # noqa: E402
from tests.dagster.test_several_hosts_s3 import STORE_PREFIX, s3_server  # noqa: E402
from vba_assets.worlddata.build import ensure_demo_database  # noqa: E402

EXTRAPOLATE_TO = 10_000
#: USD per 1,000 requests, AWS S3 Standard, us-east-1 list prices (PUT/COPY/POST/LIST vs
#: GET/HEAD and the rest; DELETE is free). An assumption to scale the counts, not a quote.
PRICES = {"put_list_per_1000": 0.005, "get_head_per_1000": 0.0004}


def _by_prefix(traffic: dict[str, dict[str, int]], cases: int) -> dict[str, Any]:
    """{prefix: {method: {requests, bytes_up, bytes_down} per case}} and the totals."""
    out: dict[str, Any] = {}
    for label, counts in traffic.items():
        method, prefix = label.split(" ", 1)
        entry = out.setdefault(prefix, {}).setdefault(
            method, {"requests": 0, "bytes_up": 0, "bytes_down": 0}
        )
        for key in entry:
            entry[key] += counts[key]
    per_case = {
        prefix: {
            method: {key: round(value / cases, 1) for key, value in entry.items()}
            for method, entry in methods.items()
        }
        for prefix, methods in out.items()
    }
    return {"total": out, "per_case": per_case}


def _extrapolate(traffic: dict[str, dict[str, int]], cases: int) -> dict[str, Any]:
    """Requests of a ``EXTRAPOLATE_TO``-case backfill by price class, and their list price."""
    classes = {"put_list": 0.0, "get_head": 0.0, "delete": 0.0}
    for label, counts in traffic.items():
        method = label.split(" ", 1)[0]
        if method == "DELETE":
            classes["delete"] += counts["requests"]
        else:
            put_list = method in ("PUT", "POST", "LIST")
            classes["put_list" if put_list else "get_head"] += counts["requests"]
    scale = EXTRAPOLATE_TO / cases
    requests = {name: round(count * scale) for name, count in classes.items()}
    usd = (
        requests["put_list"] / 1000 * PRICES["put_list_per_1000"]
        + requests["get_head"] / 1000 * PRICES["get_head_per_1000"]
    )
    return {"cases": EXTRAPOLATE_TO, "requests": requests, "usd_at_list_prices": round(usd, 2)}


def _run_phase(store: str, cases: int, workers: int, root: Path) -> dict[str, Any]:
    folder = root / store
    folder.mkdir(parents=True)
    database = create_database(f"vba_bench_hosts_{store}_{os.getpid()}")
    try:
        reports = generate_reports(folder / "reports", cases)
        local = folder / "shared-workspace" if store == "local" else None
        with s3_server(folder / "moto.log") as proxy:
            with simulation(
                folder, database, proxy.endpoint, workers=workers, local_store=local
            ) as sim:
                before = proxy.traffic.snapshot()
                launched = time.monotonic()
                keys, backfill_id = sim.import_and_backfill(reports, f"bench {store}")
                imported = proxy.traffic.snapshot()
                lost = sim.wait_until_settled(backfill_id, keys)
                wall_s = time.monotonic() - launched
                records = sim.instance.get_run_records(
                    filters=dg.RunsFilter(tags={"dagster/backfill": backfill_id})
                )
                run_s = sorted(
                    r.end_time - r.start_time for r in records if r.start_time and r.end_time
                )
                failed = sum(r.dagster_run.status != dg.DagsterRunStatus.SUCCESS for r in records)
            after = proxy.traffic.snapshot()
    finally:
        drop_database(database)
    import_traffic = _difference(imported, before)
    backfill_traffic = _difference(after, imported)
    return {
        "store": store,
        "cases": len(keys),
        "lost": len(lost),
        "failed_runs": failed,
        "wall_s": round(wall_s, 1),
        "wall_s_per_case": round(wall_s / len(keys), 2),
        "run_wall_s": {
            "median": round(statistics.median(run_s), 2) if run_s else None,
            "p90": round(run_s[int(0.9 * (len(run_s) - 1))], 2) if run_s else None,
        },
        "s3_import": _by_prefix(import_traffic, len(keys)),
        "s3_backfill": _by_prefix(backfill_traffic, len(keys)),
        "extrapolated_backfill": _extrapolate(backfill_traffic, len(keys)),
        "extrapolated_import": _extrapolate(import_traffic, len(keys)),
    }


def _difference(
    after: dict[str, dict[str, int]], before: dict[str, dict[str, int]]
) -> dict[str, dict[str, int]]:
    out = {}
    for label, counts in after.items():
        base = before.get(label, {})
        delta = {key: value - base.get(key, 0) for key, value in counts.items()}
        if delta["requests"]:
            out[label] = delta
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--order", default="local,bucket", help="the phases, in this order")
    args = parser.parse_args()
    phases = [p for p in args.order.split(",") if p]
    if not phases or any(p not in ("local", "bucket") for p in phases):
        parser.error("--order names local and/or bucket")
    if not os.environ.get("DAGSTER_PG_HOST"):
        parser.error('PostgreSQL is not configured: eval "$(bash deploy/postgres_setup.sh)"')
    ensure_demo_database()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vba-bench-hosts-") as tmp:
        results = {p: _run_phase(p, args.cases, args.workers, Path(tmp)) for p in phases}
    output: dict[str, Any] = {
        "bench": "several_hosts",
        "machine": machine_info(),
        "parameters": {
            "cases": args.cases,
            "workers": args.workers,
            "worker_concurrency": 1,
            "order": phases,
            "provider": "heuristic",
            "store_prefix": STORE_PREFIX,
            "prices_assumed": PRICES,
        },
        "phases": results,
        "total_wall_s": round(time.monotonic() - started, 1),
    }
    if "local" in results and "bucket" in results:
        local, bucket = results["local"], results["bucket"]
        output["bucket_vs_local"] = {
            "wall_s_per_case_ratio": round(bucket["wall_s_per_case"] / local["wall_s_per_case"], 2),
            "run_wall_median_ratio": (
                round(bucket["run_wall_s"]["median"] / local["run_wall_s"]["median"], 2)
                if local["run_wall_s"]["median"]
                else None
            ),
        }
    emit(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
