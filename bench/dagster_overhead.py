"""Dagster's cost per partition: our six assets vs six trivial assets of the same shape. Prints JSON.

    .venv/bin/python bench/dagster_overhead.py                  # 7 samples x 3 rounds, both instances
    .venv/bin/python bench/dagster_overhead.py --rounds 2 --instances ephemeral

Three graphs, each materialized one partition per run (``dagster.materialize``, in-process executor,
console log level WARNING), interleaved partition by partition in the same process:

* ``ours``: every asset of the stage registry (``case`` + the five pipeline assets) with their
  per-partition checks, with
  the ``replay`` LLM config on replayed cases (``common``: setup records every sample once with the
  heuristic provider; each measured partition is a fresh revision seeded with the recorded
  ``input.json`` and dispatch records, so no model work, but captures query the demo SQLite DB);
* ``trivial_checks``: six chained trivial assets on the same ``MultiPartitionsDefinition`` with the
  same seven partitioned blocking check specs, each returning a passing result (the same graph
  shape: this is the baseline of the ratios);
* ``trivial_plain``: the same six trivial assets without checks (ARCHITECTURE 14's measurement).

On two instances: ``ephemeral`` (in memory) and ``sqlite`` (a temp ``DAGSTER_HOME`` with the default
SQLite storages and telemetry off). Inside ``ours`` the stage and check functions are timed
(``controller_in_run``: the registry's ``StageSpec.run`` and ``CheckSpec.evaluate`` are wrapped
where the assets call them) and so is our asset wiring (provider factory, previews, dispatch
counts). ``controller_standalone`` is ``run_trial`` + every check on the same cases without Dagster.
The output lists anything it could not wrap (``setup.unpatched``: empty in a valid run).

Ratios, per instance (medians of per-partition values):

* ``total = ours / trivial_checks``;
* ``overhead_in_run = (ours - controller_in_run) / trivial_checks``: what our graph costs around its
  own controller work (Dagster plus our asset wiring) relative to Dagster's floor for the same
  shape. **Target: under 2.**
* ``overhead_standalone = (ours - controller_standalone) / trivial_checks``: the same, subtracting
  the controller time measured outside Dagster.

Run launch is not included: a backfill launched from the UI also starts a process per run (about
2 s per run, ARCHITECTURE 14). Nothing here asserts.
"""

import argparse
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dagster as dg
from common import (
    CHECKS_TIMED,
    STAGES_TIMED,
    CallTimer,
    Target,
    check_targets,
    emit,
    machine_info,
    median,
    percentiles,
    record_samples,
    seed_revision,
    stage_targets,
    summarize_breakdown,
    write_project_toml,
    write_replay_llm_toml,
)
from controller import Replayer, replay_case

from vba_assets.defs import assets as asset_module
from vba_assets.defs.assets import ASSETS
from vba_assets.defs.checks import CHECKS
from vba_assets.defs.partitions import case_revision_partitions
from vba_assets.defs.partitions import register as register_keys
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.intake import import_report
from vba_assets.pipeline.registry import STAGE_SPECS
from vba_assets.store import Workspace

# BackfillPolicy (the trivial graph's single-run variant) is a beta API in Dagster 1.13.
warnings.filterwarnings("ignore", category=dg.BetaWarning)

OVERHEAD_RATIO_TARGET = 2.0
INSTANCES = ("ephemeral", "sqlite")
#: Our six assets and their check definitions (one check step per stage, after its asset).
OUR_ASSETS = [*ASSETS, *CHECKS]
#: The asset names of our graph and the check specs each declares, from the stage registry.
GRAPH_SHAPE: dict[str, tuple[str, ...]] = {
    spec.name: tuple(check.name for check in spec.checks) for spec in STAGE_SPECS
}
#: Console logging at WARNING: the events are still stored; the terminal stays readable.
QUIET: dict[str, Any] = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
#: The asset wiring around the stages: metadata (previews, counts) and the provider factory.
WIRING_TARGETS: list[Target] = [
    (LlmResource, "provider_factory", "wiring.provider_factory"),
    (asset_module, "count_dispatch_records", "wiring.count_dispatch_records"),
    *[(spec, "preview", f"wiring.preview.{spec.name}") for spec in STAGE_SPECS],
]
#: Every stage and check of the registry, wrapped where the assets call them.
STAGE_TARGETS: list[Target] = [*stage_targets(), *check_targets()]


def _trivial_asset(
    name: str, upstream: str | None, check_names: Sequence[str], single_run: bool
) -> dg.AssetsDefinition:
    specs = [
        dg.AssetCheckSpec(check, asset=name, blocking=True, partitions_def=case_revision_partitions)
        for check in check_names
    ]

    @dg.asset(
        name=name,
        partitions_def=case_revision_partitions,
        deps=[upstream] if upstream else [],
        check_specs=specs,
        group_name="bench_trivial",
        backfill_policy=dg.BackfillPolicy.single_run() if single_run else None,
    )
    def trivial(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        keys = context.partition_keys  # one key, or every key of a single-run range
        return dg.MaterializeResult(
            metadata={"partitions": len(keys)},
            check_results=[dg.AssetCheckResult(check_name=c, passed=True) for c in check_names],
        )

    return trivial


def trivial_graph(
    prefix: str, *, with_checks: bool, single_run: bool = False
) -> list[dg.AssetsDefinition]:
    """Six chained trivial assets shaped like ours, named ``<prefix>_<our asset name>``."""
    graph, upstream = [], None
    for asset_name, check_names in GRAPH_SHAPE.items():
        name = f"{prefix}_{asset_name}"
        graph.append(_trivial_asset(name, upstream, check_names if with_checks else (), single_run))
        upstream = name
    return graph


@contextmanager
def open_instance(kind: str, root: Path) -> Iterator[dg.DagsterInstance]:
    """An ephemeral instance, or one on a fresh temp ``DAGSTER_HOME`` (SQLite storages)."""
    if kind == "ephemeral":
        with dg.DagsterInstance.ephemeral() as instance:
            yield instance
        return
    home = Path(tempfile.mkdtemp(prefix="dagster-home-", dir=root))
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        yield instance


def register(
    instance: dg.DagsterInstance, case_ids: Sequence[str], revisions: Sequence[str]
) -> None:
    register_keys(instance, [(case_id, revision) for case_id in case_ids for revision in revisions])


def our_resources(project_toml: Path, llm_toml: Path) -> dict[str, Any]:
    return {
        "project": ProjectResource(project_config=str(project_toml)),
        "world_db": WorldDatabaseResource(project_config=str(project_toml)),
        "llm": LlmResource(llm_config=str(llm_toml)),
    }


def materialize(
    assets: Sequence[dg.AssetsDefinition],
    partition_key: str,
    instance: dg.DagsterInstance,
    resources: dict[str, Any] | None = None,
) -> tuple[float, bool, int]:
    """One run of one partition: (wall ms, success, how many check evaluations passed)."""
    started = time.perf_counter()
    result = dg.materialize(
        assets,
        partition_key=partition_key,
        instance=instance,
        resources=resources,
        run_config=QUIET,
        raise_on_error=False,
    )
    elapsed = (time.perf_counter() - started) * 1000
    passed = sum(e.passed for e in result.get_asset_check_evaluations())
    return elapsed, result.success, passed


class OurGraph:
    """Our six assets on replayed cases in one workspace, one fresh revision per measurement."""

    def __init__(self, replayer: Replayer, root: Path) -> None:
        self.replayer = replayer
        self.workspace = Workspace(root / "workspace")
        self.project_toml = root / "project.toml"
        self.project = write_project_toml(self.project_toml, self.workspace.root)
        self.llm_toml = write_replay_llm_toml(root / "llm.toml")
        self.next_revision = 1
        for case_id in replayer.recording.case_ids:
            import_report(self.workspace, replayer.recording.report_paths[case_id])

    def revisions(self, count: int) -> list[str]:
        out = [f"{n:04d}" for n in range(self.next_revision, self.next_revision + count)]
        self.next_revision += count
        return out

    def seed(self, case_id: str, revision: str) -> None:
        seed_revision(
            self.replayer.recording.package(case_id),
            self.workspace.case(case_id),
            revision,
            dispatches=True,
        )

    def resources(self, case_id: str) -> dict[str, Any]:
        return our_resources(self.project_toml, self.llm_toml)


def bench_instance(
    kind: str, graph: OurGraph, rounds: int, root: Path, timer: CallTimer
) -> dict[str, Any]:
    case_ids = graph.replayer.recording.case_ids
    revisions = graph.revisions(rounds + 1)
    trivial_checks = trivial_graph(f"{kind}_checks", with_checks=True)
    trivial_plain = trivial_graph(f"{kind}_plain", with_checks=False)
    rows: list[dict[str, Any]] = []
    expected_checks = sum(len(c) for c in GRAPH_SHAPE.values())
    with open_instance(kind, root) as instance:
        register(instance, case_ids, revisions)
        for number, revision in enumerate(revisions):
            for case_id in case_ids:
                key = f"{case_id}|{revision}"
                graph.seed(case_id, revision)
                timer.take()
                ours_ms, ok, passed = materialize(
                    OUR_ASSETS, key, instance, graph.resources(case_id)
                )
                breakdown = timer.take()
                checks_ms, ok_checks, _ = materialize(trivial_checks, key, instance)
                plain_ms, ok_plain, _ = materialize(trivial_plain, key, instance)
                if number == 0:
                    continue  # warm-up round: not measured
                controller = sum(
                    v for k, v in breakdown.items() if k.startswith(("stage.", "check."))
                )
                wiring = sum(v for k, v in breakdown.items() if k.startswith("wiring."))
                rows.append(
                    {
                        "ours": ours_ms,
                        "trivial_checks": checks_ms,
                        "trivial_plain": plain_ms,
                        "controller": controller,
                        "wiring": wiring,
                        "breakdown": breakdown,
                        "ok": ok and passed == expected_checks,
                        "trivial_ok": ok_checks and ok_plain,
                    }
                )
    ours = [r["ours"] for r in rows]
    baseline = median([r["trivial_checks"] for r in rows])
    plain = median([r["trivial_plain"] for r in rows])
    overhead = median([r["ours"] - r["controller"] for r in rows])
    return {
        "partitions_measured": len(rows),
        "per_partition": {
            "ours": percentiles(ours),
            "trivial_checks": percentiles([r["trivial_checks"] for r in rows]),
            "trivial_plain": percentiles([r["trivial_plain"] for r in rows]),
            "controller_in_run": percentiles([r["controller"] for r in rows]),
            "wiring_in_run": percentiles([r["wiring"] for r in rows]),
            "ours_minus_controller": percentiles([r["ours"] - r["controller"] for r in rows]),
        },
        "breakdown_in_run_p50_ms": summarize_breakdown([r["breakdown"] for r in rows]),
        "ratios_p50": {
            "total": round(median(ours) / baseline, 3),
            "overhead_in_run": round(overhead / baseline, 3),
            "overhead_in_run_vs_trivial_plain": round(overhead / plain, 3),
        },
        "verified": {
            "ours_succeeded_with_all_checks_passing": sum(r["ok"] for r in rows),
            "trivial_succeeded": sum(r["trivial_ok"] for r in rows),
        },
    }


def controller_standalone(replayer: Replayer, root: Path, rounds: int) -> dict[str, Any]:
    """run_trial + the six checks of the same cases without Dagster (first round = warm-up)."""
    timer = CallTimer()
    samples: list[float] = []
    for number in range(rounds + 1):
        workspace = Workspace(root / f"standalone-{number}")
        for case_id in replayer.recording.case_ids:
            row = replay_case(replayer, case_id, workspace, "reuse", timer)
            if number:
                samples.append(row["trial_ms"] + row["checks_ms"])
    return percentiles(samples)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3, help="measured rounds (plus one warm-up)")
    parser.add_argument("--cases", default="", help="comma-separated sample ids (default: all)")
    parser.add_argument("--instances", default=",".join(INSTANCES), help="ephemeral,sqlite")
    args = parser.parse_args(argv)
    kinds = [k for k in args.instances.split(",") if k]
    if not kinds or set(kinds) - set(INSTANCES) or args.rounds < 1:
        parser.error(f"--instances must name some of {INSTANCES}; --rounds must be at least 1")
    case_ids = [c for c in args.cases.split(",") if c]

    with tempfile.TemporaryDirectory(prefix="vba-bench-dagster-") as tmp:
        root = Path(tmp)
        recording = record_samples(root / "recording", case_ids)
        project = write_project_toml(root / "replay-project.toml", root / "unused")
        replayer = Replayer.from_recording(recording, project)
        graph = OurGraph(replayer, root / "ours")
        timer = CallTimer()
        results: dict[str, Any] = {}
        with timer.patched([*STAGE_TARGETS, *WIRING_TARGETS]):
            for kind in kinds:
                results[kind] = bench_instance(kind, graph, args.rounds, root, timer)
        standalone = controller_standalone(replayer, root, args.rounds)
    for kind in kinds:
        per_partition = results[kind]["per_partition"]
        baseline = per_partition["trivial_checks"]["p50_ms"]
        results[kind]["ratios_p50"]["overhead_standalone"] = round(
            (per_partition["ours"]["p50_ms"] - standalone["p50_ms"]) / baseline, 3
        )
    emit(
        {
            "benchmark": "dagster_overhead",
            "machine": machine_info(),
            "parameters": {
                "rounds": args.rounds,
                "warmup_rounds": 1,
                "cases": recording.case_ids,
                "instances": kinds,
                "executor": "in_process (dagster.materialize), one run per partition",
                "llm": "replay (recorded heuristic dispatches)",
                "database": "embedded:demo (SQLite)",
            },
            "definitions": {
                "total": "ours / trivial_checks",
                "overhead_in_run": "(ours - controller_in_run) / trivial_checks, where "
                "controller_in_run is the time inside every stage function and every check of "
                "the stage registry during that run",
                "overhead_standalone": "(ours - controller_standalone) / trivial_checks, where "
                "controller_standalone is run_trial + every check without Dagster",
                "statistic": "medians of per-partition values",
            },
            "setup": {
                "recording_s": round(recording.seconds, 3),
                "unpatched": timer.missing,
                "stages_timed": STAGES_TIMED,
                "checks_timed": CHECKS_TIMED,
            },
            "controller_standalone": standalone,
            "results": results,
            "targets": {
                "overhead_in_run_ratio_below": OVERHEAD_RATIO_TARGET,
                **{
                    kind: {
                        "overhead_in_run": results[kind]["ratios_p50"]["overhead_in_run"],
                        "met": results[kind]["ratios_p50"]["overhead_in_run"]
                        < OVERHEAD_RATIO_TARGET,
                    }
                    for kind in kinds
                },
            },
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
