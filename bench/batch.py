"""Throughput and peak memory of a batch of demo cases through Dagster (``replay``). Prints JSON.

    .venv/bin/python bench/batch.py                       # 200 cases, SQLite DAGSTER_HOME
    .venv/bin/python bench/batch.py --cases 50 --instance ephemeral

Setup (timed separately, never part of a result): ``--cases`` reports are generated from the seven
samples, deterministically (case ``<sample>-B<nnnn>``, same attachments, one sentence added to the
body: ``Still happening on attempt <n>.``), and each is recorded once with the ``heuristic``
provider (``--jobs`` processes). Every case is then imported into one workspace (``import``, case
build) and two fresh revisions are seeded from its recording (``common.seed_revision``).

Measured, one after the other in this process:

* ``in_process_loop``: ``run_trial`` (replay config, stop after interpretation) + every check,
  case after case, no Dagster: what the pipeline itself costs.
* ``dagster_one_run_per_partition``: our six assets, one ``dagster.materialize`` run per
  partition (in-process executor), on one instance (a temp SQLite ``DAGSTER_HOME`` by default, as
  ``dagster dev`` uses), with the resident set size sampled along the way. This is the path a
  backfill of our assets takes (minus the process a launched run starts: about 2 s per run,
  ARCHITECTURE 14).
* ``single_run_backfill``: whether ``BackfillPolicy.single_run()`` is possible. A range run over our
  ``MultiPartitionsDefinition`` of two dynamic dimensions is accepted by Dagster (the range is
  contiguous in key order, case-major), but our assets read ``context.partition_key`` and return one
  ``MaterializeResult`` with a per-partition data version and per-partition check results, which a
  range run cannot carry. The probe runs our assets over a two-partition range and records the
  error; the same range mechanism is then timed on the trivial six-asset graph for all
  ``--cases`` partitions (what Dagster itself would cost), beside a sample of one-run-per-partition
  runs of that trivial graph.

Targets: under 0.5 s per case amortized (wall time / cases) through Dagster, under 1 GB peak RSS
(``getrusage`` max RSS of this process and of its children, the recording workers). Nothing here
asserts.
"""

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import dagster as dg
from common import (
    MAX_DISPATCHES,
    REPLAY,
    current_rss_mb,
    emit,
    machine_info,
    median,
    peak_rss_mb,
    percentiles,
    record_reports,
    same_artifacts,
    write_project_toml,
)
from controller import Replayer, run_checks
from dagster_overhead import (
    INSTANCES,
    OUR_ASSETS,
    QUIET,
    OurGraph,
    materialize,
    open_instance,
    register,
    trivial_graph,
)

from resources.world_db import WorldDatabase
from vba_assets.defs.partitions import case_revision_partitions
from vba_assets.pipeline.registry import check_specs
from vba_assets.pipeline.trial import run_trial
from vba_assets.samples import sample_report_paths

AMORTIZED_TARGET_S = 0.5
PEAK_RSS_TARGET_MB = 1024.0
RANGE_START = "dagster/asset_partition_range_start"
RANGE_END = "dagster/asset_partition_range_end"
EXPECTED_CHECKS = len(check_specs())
SILENT: dict[str, Any] = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def generate_reports(out_dir: Path, count: int) -> list[Path]:
    """``count`` report folders derived from the samples: new case id, one added sentence."""
    samples = sample_report_paths()
    paths = []
    for index in range(count):
        sample = samples[index % len(samples)]
        number = index + 1
        target = out_dir / f"{sample.name}-B{number:04d}"
        shutil.copytree(sample, target)
        report = json.loads((sample / "report.json").read_bytes().decode("utf-8-sig"))
        report["case_id"] = target.name
        report["body"] = f"{report.get('body') or ''}\n\nStill happening on attempt {number}."
        (target / "report.json").write_text(
            json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8"
        )
        paths.append(target)
    return paths


def run_loop(graph: OurGraph, revision: str) -> dict[str, Any]:
    """``run_trial`` + every check for every case, no Dagster."""
    replayer = graph.replayer
    samples: list[float] = []
    identical = passed = 0
    started = time.perf_counter()
    for case_id in replayer.recording.case_ids:
        begin = time.perf_counter()
        project = graph.project
        run_trial(
            graph.workspace,
            case_id,
            revision,
            project,
            REPLAY,
            stop_after="interpretation",
            max_dispatches=MAX_DISPATCHES,
            open_db=partial(WorldDatabase.from_config, project),
        )
        package = graph.workspace.case(case_id)
        _times, ok, _problems = run_checks(package, revision)
        samples.append((time.perf_counter() - begin) * 1000)
        passed += ok
        identical += same_artifacts(replayer.recording.package(case_id), package, revision)[0]
    wall = time.perf_counter() - started
    return {
        "revision": revision,
        "wall_s": round(wall, 3),
        "cases_per_minute": round(len(samples) * 60 / wall, 1),
        "amortized_s_per_case": round(wall / len(samples), 4),
        "per_case": percentiles(samples),
        "all_checks_passed": passed,
        "artifacts_identical_to_recording": identical,
        "note": "wall_s includes the byte comparison with the recording after each case",
    }


def run_dagster(graph: OurGraph, revision: str, kind: str, root: Path) -> dict[str, Any]:
    """One materialize run per partition of our six assets, on one instance."""
    case_ids = graph.replayer.recording.case_ids
    every = max(1, len(case_ids) // 10)
    samples: list[float] = []
    rss: list[list[float | int | None]] = [[0, current_rss_mb()]]
    succeeded = 0
    with open_instance(kind, root) as instance:
        register(instance, case_ids, [revision])
        started = time.perf_counter()
        for number, case_id in enumerate(case_ids, start=1):
            elapsed, ok, passed = materialize(
                OUR_ASSETS, f"{case_id}|{revision}", instance, graph.resources(case_id)
            )
            samples.append(elapsed)
            succeeded += ok and passed == EXPECTED_CHECKS
            if number % every == 0 or number == len(case_ids):
                rss.append([number, current_rss_mb()])
        wall = time.perf_counter() - started
    decile = max(1, len(samples) // 10)
    return {
        "revision": revision,
        "instance": kind,
        "wall_s": round(wall, 3),
        "cases_per_minute": round(len(samples) * 60 / wall, 1),
        "amortized_s_per_case": round(wall / len(samples), 4),
        "per_partition": percentiles(samples),
        "first_decile_p50_ms": median(samples[:decile]),
        "last_decile_p50_ms": median(samples[-decile:]),
        "succeeded_with_all_checks_passing": succeeded,
        "rss_mb_after_cases": rss,
    }


def probe_single_run(
    graph: OurGraph, kind: str, root: Path, cases: int, sample: int
) -> dict[str, Any]:
    """Our assets over a partition range (expected to fail), and the trivial graph's range run."""
    case_ids = graph.replayer.recording.case_ids
    revision = graph.revisions(1)[0]
    out: dict[str, Any] = {}
    with open_instance(kind, root) as instance:
        register(instance, case_ids[:2], [revision])
        keys = case_revision_partitions.get_partition_keys(dynamic_partitions_store=instance)
        result = dg.materialize(
            OUR_ASSETS,
            instance=instance,
            resources=graph.resources(case_ids[0]),
            run_config=SILENT,  # the failure is expected: keep its stack trace off the terminal
            raise_on_error=False,
            tags={RANGE_START: keys[0], RANGE_END: keys[-1]},
        )
        errors = [
            event.event_specific_data.error.message.strip()  # type: ignore[union-attr]
            for event in result.all_events
            if event.is_step_failure
        ]
        out["our_assets"] = {
            "range": [keys[0], keys[-1]],
            "succeeded": result.success,
            "first_error": errors[0].splitlines()[-1] if errors else None,
        }
    with open_instance(kind, root) as instance:
        register(instance, case_ids[:cases], [revision])
        keys = case_revision_partitions.get_partition_keys(dynamic_partitions_store=instance)
        single = trivial_graph("single", with_checks=True, single_run=True)
        started = time.perf_counter()
        result = dg.materialize(
            single,
            instance=instance,
            run_config=QUIET,
            tags={RANGE_START: keys[0], RANGE_END: keys[-1]},
        )
        wall = time.perf_counter() - started
        each = trivial_graph("each", with_checks=True)
        per_run = [materialize(each, key, instance)[0] for key in keys[:sample]]
    out["trivial_graph_single_run"] = {
        "partitions": len(keys),
        "succeeded": result.success,
        "wall_s": round(wall, 3),
        "per_partition_ms": round(wall * 1000 / len(keys), 3),
        "materializations": len(result.get_asset_materialization_events()),
        "check_evaluations": len(result.get_asset_check_evaluations()),
    }
    out["trivial_graph_one_run_per_partition_sample"] = {
        "partitions": len(per_run),
        "per_partition": percentiles(per_run),
    }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=200, help="generated cases (at least 1)")
    parser.add_argument("--instance", choices=INSTANCES, default="sqlite")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="recording workers")
    parser.add_argument("--trivial-sample", type=int, default=10, help="trivial one-run sample")
    parser.add_argument("--skip-loop", action="store_true", help="skip the in-process loop")
    args = parser.parse_args(argv)
    if args.cases < 1 or args.jobs < 1:
        parser.error("--cases and --jobs must be at least 1")

    with tempfile.TemporaryDirectory(prefix="vba-bench-batch-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        reports = generate_reports(root / "reports", args.cases)
        generate_s = time.perf_counter() - started
        recording = record_reports(root / "recording", reports, jobs=args.jobs)
        project = write_project_toml(root / "replay-project.toml", root / "unused")
        replayer = Replayer.from_recording(recording, project)
        started = time.perf_counter()
        graph = OurGraph(replayer, root / "batch")  # imports every case (case build)
        import_s = time.perf_counter() - started
        loop_revision, dagster_revision = graph.revisions(2)
        for case_id in recording.case_ids:  # setup: seed both fresh revisions
            graph.seed(case_id, loop_revision)
            graph.seed(case_id, dagster_revision)
        rss_before = current_rss_mb()
        loop = None if args.skip_loop else run_loop(graph, loop_revision)
        dagster_run = run_dagster(graph, dagster_revision, args.instance, root)
        backfill = probe_single_run(
            graph, args.instance, root, args.cases, min(args.trivial_sample, args.cases)
        )
        peak = peak_rss_mb()

    peak_mb = max(peak.values())
    amortized = dagster_run["amortized_s_per_case"]
    emit(
        {
            "benchmark": "batch",
            "machine": machine_info(),
            "parameters": {
                "cases": args.cases,
                "instance": args.instance,
                "recording_jobs": args.jobs,
                "executor": "in_process (dagster.materialize), one run per partition",
                "llm": "replay (recorded heuristic dispatches)",
                "database": "embedded:demo (SQLite)",
            },
            "setup": {
                "generate_s": round(generate_s, 3),
                "recording_s": round(recording.seconds, 3),
                "rss_mb_before_measuring": rss_before,
            },
            "results": {
                "import": {
                    "wall_s": round(import_s, 3),
                    "per_case_ms": round(import_s * 1000 / args.cases, 3),
                },
                "in_process_loop": loop,
                "dagster_one_run_per_partition": dagster_run,
                "single_run_backfill": {
                    "possible_for_our_assets": False,
                    "why": "a range run gives every asset one step for all partitions: "
                    "context.partition_key raises, and one MaterializeResult carries one data "
                    "version and one set of check results (AssetCheckResult has no partition), "
                    "so per-partition data versions and per-partition blocking checks are lost",
                    **backfill,
                },
            },
            "memory": {"peak_rss": peak, "peak_rss_max_mb": peak_mb},
            "targets": {
                "amortized_s_per_case_below": AMORTIZED_TARGET_S,
                "dagster_one_run_per_partition": {
                    "amortized_s_per_case": amortized,
                    "met": amortized < AMORTIZED_TARGET_S,
                },
                "in_process_loop": (
                    {
                        "amortized_s_per_case": loop["amortized_s_per_case"],
                        "met": loop["amortized_s_per_case"] < AMORTIZED_TARGET_S,
                    }
                    if loop
                    else None
                ),
                "peak_rss_mb_below": PEAK_RSS_TARGET_MB,
                "peak_rss": {"max_mb": peak_mb, "met": peak_mb < PEAK_RSS_TARGET_MB},
            },
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
