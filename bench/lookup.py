"""Latency of the contains search and of the lookup tool, with and without the trigram index. JSON.

    .venv/bin/python bench/lookup.py                       # embedded demo SQLite DB
    .venv/bin/python bench/lookup.py --rounds 10
    .venv/bin/python bench/lookup.py --project-config config/project.mariadb-ci.toml
    VBA_TEST_PROJECT_CONFIG=... .venv/bin/python bench/lookup.py   # same, from the environment

Measured in ONE process over a fixed list of real names, partial names, misspellings and localized
names (``QUERIES``, every one of 3 or more characters), after one unmeasured warm-up pass:

* ``contains_search``: one ``WorldDatabase.contains_search`` per query on each catalog (row limit
  ``--contains-limit``, 10 by default; the pipeline uses 8). Target: p50 <= 2 ms on both catalogs
  of the embedded demo DB.
* ``lookup``: a full :func:`~vba_assets.domain.catalog.lookup.lookup` with its default limit
  (query searches on every catalog of the entity type, bounded probes on a miss, fetches by
  identity on a success): what ``vba lookup`` runs once its process has started. Targets: p50 <=
  20 ms, p95 <= 60 ms. Per-query p50s and search counts are listed too.

Each is measured twice on the embedded demo DB, ``indexed`` (the FTS5 trigram index, the default)
and ``scan`` (``use_index=False``: the same statements without the pre-filter, i.e. the previous
implementation), interleaved query by query so both see the same machine load; ``speedup`` is
scan p50 / indexed p50. ``same_results`` counts the lookups whose full JSON was identical in both
modes (it must equal the number of lookups). A MariaDB project config is measured as it is
(an operator's database is never indexed): mode ``scan`` only.

Nothing here asserts: numbers are printed, never judged by a test.
"""

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from common import emit, machine_info, median, percentiles  # bench/common.py

from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig, embedded_project_config, load_project_config
from vba_assets.domain.catalog.lookup import DEFAULT_LIMIT, lookup

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

#: Targets on the embedded demo DB, in milliseconds (issue 14).
CONTAINS_P50_TARGET_MS = 2.0
LOOKUP_P50_TARGET_MS = 20.0
LOOKUP_P95_TARGET_MS = 60.0


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = call()
    return (time.perf_counter() - started) * 1000, value


class Samples:
    """Every timing of one database (one mode), by measurement."""

    def __init__(self, catalogs: Sequence[str]) -> None:
        self.contains: dict[str, list[float]] = {catalog: [] for catalog in catalogs}
        self.lookup: list[float] = []
        self.per_query: dict[str, dict[str, Any]] = {}

    def report(self) -> dict[str, Any]:
        return {
            "contains_search": {
                catalog: percentiles(samples) for catalog, samples in self.contains.items()
            },
            "lookup": percentiles(self.lookup),
            "lookup_per_query": {
                query: {
                    "kind": entry["kind"],
                    "outcome": entry["outcome"],
                    "searches": entry["searches"],
                    "p50_ms": median(entry["samples_ms"]),
                }
                for query, entry in self.per_query.items()
            },
        }


def measure(
    database: WorldDatabase,
    config: ProjectConfig,
    samples: Samples,
    query: str,
    kind: str,
    contains_limit: int,
) -> str:
    """Time one query on ``database``: a contains search per catalog, then a lookup; its JSON."""
    for catalog, bucket in samples.contains.items():
        search = partial(database.contains_search, catalog, query, contains_limit)
        elapsed, _ = timed(search)
        bucket.append(elapsed)
    elapsed, result = timed(lambda: lookup(query, config.catalogs, database))
    samples.lookup.append(elapsed)
    entry = samples.per_query.setdefault(
        query,
        {
            "kind": kind,
            "outcome": result.reason or result.status,
            "searches": len(result.searches),
            "samples_ms": [],
        },
    )
    entry["samples_ms"].append(elapsed)
    return str(result.model_dump_json())


def bench_backend(config: ProjectConfig, rounds: int, contains_limit: int) -> dict[str, Any]:
    """Every measurement for the database ``config`` names.

    Modes: ``indexed`` and ``scan`` when the database has a trigram index (the embedded demo DB),
    else ``scan`` alone (a MariaDB is never indexed).
    """
    if not config.catalogs:
        return {"skipped": f"{config.source} configures no catalogs"}
    catalogs = [catalog.name for catalog in config.catalogs]
    indexed = WorldDatabase.from_config(config, use_index=True)
    first_ms, _ = timed(lambda: indexed.contains_search(catalogs[0], "Thrall", 8))
    description = indexed.describe()
    has_index = any(c["search_index"]["kind"] != "none" for c in description["catalogs"])
    modes = {"indexed": indexed} if has_index else {}
    modes["scan"] = WorldDatabase.from_config(config, use_index=False)
    if not has_index:
        indexed.close()
    compare_scan = len(modes) == 2
    samples = {mode: Samples(catalogs) for mode in modes}
    same_results = 0
    try:
        for database in modes.values():  # warm-up: engine, schema, statements, page cache
            for query, _kind in QUERIES:
                lookup(query, config.catalogs, database)
        for _ in range(rounds):
            for query, kind in QUERIES:
                outputs = {
                    mode: measure(database, config, samples[mode], query, kind, contains_limit)
                    for mode, database in modes.items()
                }
                same_results += len(set(outputs.values())) == 1
    finally:
        for database in modes.values():
            database.close()
    report: dict[str, Any] = {
        "backend": description["backend"],
        "server_version": description["server_version"],
        "embedded_demo": description.get("embedded_demo", False),
        "search_index": {c["name"]: c["search_index"] for c in description["catalogs"]},
        "first_call_ms": round(first_ms, 3),
        "modes": {mode: bucket.report() for mode, bucket in samples.items()},
    }
    if compare_scan:
        report["same_results"] = {"lookups": rounds * len(QUERIES), "identical": same_results}
        report["speedup"] = speedup(report["modes"]["indexed"], report["modes"]["scan"])
    return report


def _ratio(slow: float, fast: float) -> float | None:
    return round(slow / fast, 1) if fast > 0 else None


def speedup(indexed: dict[str, Any], scan: dict[str, Any]) -> dict[str, float | None]:
    """scan / indexed for every p50 (and the lookup p95)."""
    ratios = {
        f"contains_search_{catalog}_p50": _ratio(scan_p["p50_ms"], indexed_p["p50_ms"])
        for (catalog, indexed_p), scan_p in zip(
            indexed["contains_search"].items(), scan["contains_search"].values(), strict=True
        )
    }
    ratios["lookup_p50"] = _ratio(scan["lookup"]["p50_ms"], indexed["lookup"]["p50_ms"])
    ratios["lookup_p95"] = _ratio(scan["lookup"]["p95_ms"], indexed["lookup"]["p95_ms"])
    return ratios


def targets(report: dict[str, Any]) -> dict[str, Any]:
    """Each target of the embedded demo DB with its measured value (indexed mode) and verdict."""
    indexed = report["modes"]["indexed"]
    checks: list[tuple[str, float, float]] = [
        (f"contains_search_{catalog}_p50_ms", figures["p50_ms"], CONTAINS_P50_TARGET_MS)
        for catalog, figures in indexed["contains_search"].items()
    ]
    checks += [
        ("lookup_p50_ms", indexed["lookup"]["p50_ms"], LOOKUP_P50_TARGET_MS),
        ("lookup_p95_ms", indexed["lookup"]["p95_ms"], LOOKUP_P95_TARGET_MS),
    ]
    return {
        name: {"measured": value, "at_most": limit, "met": value <= limit}
        for name, value, limit in checks
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=5, help="passes over the query list")
    parser.add_argument("--contains-limit", type=int, default=10, help="contains-search row limit")
    parser.add_argument(
        "--project-config",
        default=os.environ.get("VBA_TEST_PROJECT_CONFIG"),
        help="also measure this (MariaDB) project config; default $VBA_TEST_PROJECT_CONFIG",
    )
    args = parser.parse_args(argv)
    embedded = bench_backend(
        embedded_project_config(Path.cwd() / "vba-workspace"), args.rounds, args.contains_limit
    )
    results: dict[str, Any] = {"sqlite_embedded_demo": embedded}
    if args.project_config:
        config = load_project_config(Path(args.project_config))
        results["project_config"] = {
            "source": config.source,
            **bench_backend(config, args.rounds, args.contains_limit),
        }
    else:
        results["project_config"] = {
            "skipped": "no --project-config and no $VBA_TEST_PROJECT_CONFIG"
        }
    emit(
        {
            "benchmark": "lookup",
            "machine": machine_info(),
            "parameters": {
                "rounds": args.rounds,
                "contains_limit": args.contains_limit,
                "lookup_limit": DEFAULT_LIMIT,
                "queries": [{"query": query, "kind": kind} for query, kind in QUERIES],
            },
            "results": results,
            "targets": targets(embedded),
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
