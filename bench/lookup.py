"""Latency of the lookup tool: one contains search, and a full ``lookup()``. Prints JSON.

    .venv/bin/python bench/lookup.py                       # embedded demo SQLite DB
    .venv/bin/python bench/lookup.py --rounds 10
    .venv/bin/python bench/lookup.py --project-config config/project.mariadb-ci.toml
    VBA_TEST_PROJECT_CONFIG=... .venv/bin/python bench/lookup.py   # same, from the environment

Measured per backend over a fixed list of real names, partial names, misspellings and localized
names (``QUERIES``), after one unmeasured warm-up pass (its first call, which opens the engine and
reflects the schema, is reported as ``first_call_ms``):

* ``contains_search_name``: one ``contains_search`` on the ``kind = "name"`` catalog (the target:
  p50 under 20 ms on SQLite);
* ``contains_search_localized``: the same on the first localized catalog, for comparison;
* ``lookup``: a full :func:`~vba_assets.domain.catalog.lookup.lookup` (query searches on every catalog of
  the entity type, probes on a miss, fetches by identity on a success), with a per-query breakdown.

Nothing here asserts: numbers are printed, never judged by a test.
"""

import argparse
import json
import os
import platform
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from common import percentiles  # bench/common.py (scripts run as `python bench/x.py`)

from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig, embedded_project_config, load_project_config
from vba_assets.domain.catalog.lookup import lookup

#: (query, kind). Kinds: real name, partial name, misspelling, localized name.
QUERIES: list[tuple[str, str]] = [
    ("Wild Wolpertinger", "real"),
    ("Goldark Snipehunter", "real"),
    ("Thrall", "real"),
    ("Lieutenant Icehammer", "real"),
    ("Kael'thas Sunstrider", "real"),
    ("Glodrak Huntsniper", "real"),
    ("Goldark", "partial"),
    ("Wolp", "partial"),
    ("Icehammer", "partial"),
    ("Thrallmar", "partial"),
    ("wolpertingr", "misspelling"),
    ("Goldrak Snipehuntr", "misspelling"),
    ("Lieutenant Icehamer", "misspelling"),
    ("Kaelthas Sunstrder", "misspelling"),
    ("Wilder Wolpertinger", "localized"),
    ("Goldark Spatzenjäger", "localized"),
    ("Тралл", "localized"),
    ("野生鹿角兔", "localized"),
    ("Archedor Chassebécasse", "localized"),
]

SQLITE_CONTAINS_P50_TARGET_MS = 20.0


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = call()
    return (time.perf_counter() - started) * 1000, value


def machine_info() -> dict[str, Any]:
    return {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "sqlite_version": sqlite3.sqlite_version,
    }


def bench_backend(config: ProjectConfig, rounds: int, limit: int) -> dict[str, Any]:
    """Every measurement for the database ``config`` names."""
    catalogs = config.catalogs
    if not catalogs:
        return {"skipped": f"{config.source} configures no catalogs"}
    name_catalog = next((c for c in catalogs if c.kind == "name"), catalogs[0])
    localized = next((c for c in catalogs if c.kind == "localized_name"), None)
    database = WorldDatabase.from_config(config)
    try:
        first_ms, _ = timed(lambda: database.contains_search(name_catalog.name, "Thrall", limit))
        for query, _kind in QUERIES:  # warm-up: caches, statement compilation
            lookup(query, catalogs, database, limit=limit)
        name_samples: list[float] = []
        localized_samples: list[float] = []
        lookup_samples: list[float] = []
        per_query: dict[str, dict[str, Any]] = {}
        for _ in range(rounds):
            for query, kind in QUERIES:
                search = partial(database.contains_search, term=query, limit=limit)
                elapsed, _ = timed(partial(search, name_catalog.name))
                name_samples.append(elapsed)
                if localized is not None:
                    elapsed, _ = timed(partial(search, localized.name))
                    localized_samples.append(elapsed)
                elapsed, result = timed(partial(lookup, query, catalogs, database, limit=limit))
                lookup_samples.append(elapsed)
                entry = per_query.setdefault(
                    query,
                    {
                        "kind": kind,
                        "outcome": result.reason or result.status,
                        "searches": len(result.searches),
                        "samples_ms": [],
                    },
                )
                entry["samples_ms"].append(elapsed)
        description = database.describe()
    finally:
        database.close()
    contains = percentiles(name_samples)
    report: dict[str, Any] = {
        "backend": description["backend"],
        "server_version": description["server_version"],
        "embedded_demo": description.get("embedded_demo", False),
        "first_call_ms": round(first_ms, 3),
        "contains_search_name": {"catalog": name_catalog.name, **contains},
        "contains_search_localized": (
            {"catalog": localized.name, **percentiles(localized_samples)} if localized else None
        ),
        "lookup": percentiles(lookup_samples),
        "lookup_per_query": {
            query: {
                "kind": entry["kind"],
                "outcome": entry["outcome"],
                "searches": entry["searches"],
                "p50_ms": round(statistics.median(entry["samples_ms"]), 3),
            }
            for query, entry in per_query.items()
        },
    }
    if description["backend"] == "sqlite":
        report["target"] = {
            "contains_search_name_p50_ms_below": SQLITE_CONTAINS_P50_TARGET_MS,
            "met": contains["p50_ms"] < SQLITE_CONTAINS_P50_TARGET_MS,
        }
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=5, help="passes over the query list")
    parser.add_argument("--limit", type=int, default=10, help="row limit / lookup limit")
    parser.add_argument(
        "--project-config",
        default=os.environ.get("VBA_TEST_PROJECT_CONFIG"),
        help="also measure this (MariaDB) project config; default $VBA_TEST_PROJECT_CONFIG",
    )
    args = parser.parse_args(argv)
    output: dict[str, Any] = {
        "benchmark": "lookup",
        "machine": machine_info(),
        "rounds": args.rounds,
        "limit": args.limit,
        "queries": [{"query": query, "kind": kind} for query, kind in QUERIES],
        "backends": {
            "sqlite_embedded_demo": bench_backend(
                embedded_project_config(Path.cwd() / "vba-workspace"), args.rounds, args.limit
            )
        },
    }
    if args.project_config:
        config = load_project_config(Path(args.project_config))
        output["backends"]["project_config"] = {
            "source": config.source,
            **bench_backend(config, args.rounds, args.limit),
        }
    else:
        output["backends"]["project_config"] = {
            "skipped": "no --project-config and no $VBA_TEST_PROJECT_CONFIG"
        }
    json.dump(output, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
