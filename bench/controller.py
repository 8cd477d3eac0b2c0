"""Controller overhead per case, with no model work (``replay`` provider). Prints JSON.

    .venv/bin/python bench/controller.py                       # 7 samples x 20 rounds, both modes
    .venv/bin/python bench/controller.py --rounds 5 --cases BUG-000020,BUG-000022
    .venv/bin/python bench/controller.py --modes reuse --no-profile
    .venv/bin/python bench/compare.py controller.py -- --no-profile   # against an older commit

Everything but the model: case build (``import_report``: admission, CaseBuilder, store writes),
frozen inputs, plan/assessment/interpretation request building and validation, captures on the
embedded demo SQLite DB (real queries), candidate index, F/N/D context, store writes (atomic,
fsynced), and every asset check of the stage registry (``vba_assets.pipeline.registry``).

Setup (not timed): the samples are run once with the ``heuristic`` provider. Then, for every round,
each case is imported into a fresh workspace and a never-run revision is seeded from the recording
(``common.seed_revision``), and the case is timed: ``import_report`` + ``run_trial`` (replay
provider, stop after interpretation) + every check. Two modes:

* ``reuse``: the recorded dispatch records are copied into the revision and the ``replay`` LLM config
  is used, as ``LlmResource(llm_config="config/llm.replay.toml")`` does: each model stage finds its
  accepted dispatch and reuses it (no provider call, no dispatch write).
* ``answer``: only the frozen ``input.json`` is copied; a ``ReplayProvider`` holding the recorded
  records answers every model call, so the run writes new dispatch records, context manifests and
  events exactly as a live run would. This is a live run minus the model's latency.

Each run's accepted artifacts are compared byte for byte with the recording (``identical``) and every
check must pass, so a replay that silently did less work would show. ``all_cases.cpu`` is the
process's CPU time over the same timed parts, which depends less on the machine's other load. One
unmeasured warm-up round runs first. The stage breakdown wraps the stage functions ``run_trial``
calls and the DB methods (``common.CallTimer``); ``--profile`` (default on) runs one more round
under cProfile, reported separately, so profiling never inflates the timings. There is one
implementation to time: to compare with an earlier one, ``bench/compare.py`` runs this script on an
older commit and on this tree, alternated. Nothing here asserts.
"""

import argparse
import cProfile
import pstats
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import (
    CHECKS_TIMED,
    MAX_DISPATCHES,
    RECORDED_REVISION,
    REPLAY,
    STAGES_TIMED,
    CallTimer,
    Recording,
    Target,
    emit,
    machine_info,
    median,
    percentiles,
    record_samples,
    same_artifacts,
    seed_revision,
    stage_targets,
    summarize_breakdown,
    write_project_toml,
)

from resources.llm.replay import ReplayProvider
from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.intake import import_report
from vba_assets.pipeline import trial
from vba_assets.pipeline.checks import evaluate_safely
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.pipeline.recorder import revision_records
from vba_assets.pipeline.registry import check_specs
from vba_assets.store import RevisionLayout, Workspace

P50_TARGET_MS = 50.0
MODES = ("reuse", "answer")
MODE_DESCRIPTIONS = {
    "reuse": "recorded dispatch records copied into the revision; replay LLM config; each model "
    "stage reuses its accepted dispatch (what LlmResource with config/llm.replay.toml does)",
    "answer": "only the frozen input.json copied; a ReplayProvider answers every model call and "
    "the run writes new dispatch records, manifests and events (a live run minus the model)",
}
#: The DB methods timed inside the stages (the first snapshot_binding opens and reflects).
DB_TARGETS: list[Target] = [
    (WorldDatabase, "snapshot_binding", "db.snapshot_binding"),
    (WorldDatabase, "contains_search", "db.contains_search"),
]


@dataclass
class Replayer:
    """Everything a replayed case needs, prepared once from the recording (setup)."""

    recording: Recording
    project: ProjectConfig
    searches: dict[str, int]
    records: dict[str, list[DispatchRecord]]

    @classmethod
    def from_recording(cls, recording: Recording, project: ProjectConfig) -> "Replayer":
        layout = RevisionLayout(RECORDED_REVISION)
        searches, records = {}, {}
        for case_id in recording.case_ids:
            package = recording.package(case_id)
            searches[case_id] = len(package.list_dir(layout.captures_dir))
            records[case_id] = revision_records(package, layout)
        return cls(recording, project, searches, records)


def run_checks(package: Any, revision: str) -> tuple[dict[str, float], bool, list[str]]:
    """Time every check of the registry; whether all passed, and the findings of those that
    did not."""
    rev = load_frozen(package, revision)
    times: dict[str, float] = {}
    problems: list[str] = []
    for _, check in check_specs():
        started = time.perf_counter()
        outcome = evaluate_safely(check.evaluate, rev)
        times[f"check.{check.name}"] = (time.perf_counter() - started) * 1000
        problems += [f"{check.name}: {f.line()}" for f in outcome.findings if f.is_error]
    return times, not problems, problems


def replay_case(
    replayer: Replayer, case_id: str, workspace: Workspace, mode: str, timer: CallTimer
) -> dict[str, Any]:
    """Import ``case_id`` into ``workspace`` and replay revision 0001 of it; one timed sample."""
    project = replayer.project.model_copy(update={"workspace": workspace.root})
    provider = ReplayProvider(replayer.records[case_id]) if mode == "answer" else None
    cpu_started, started = time.process_time(), time.perf_counter()
    import_report(workspace, replayer.recording.report_paths[case_id])
    case_build_ms = (time.perf_counter() - started) * 1000
    cpu_s = time.process_time() - cpu_started
    package = workspace.case(case_id)
    seed_revision(  # setup, not timed: stands in for the model
        replayer.recording.package(case_id), package, "0001", dispatches=mode == "reuse"
    )
    timer.take()
    cpu_started, started = time.process_time(), time.perf_counter()
    report = trial.run_trial(
        workspace,
        case_id,
        "0001",
        project,
        REPLAY,
        stop_after="interpretation",
        max_dispatches=MAX_DISPATCHES,
        open_db=lambda: WorldDatabase.from_config(project),
        provider=provider,
    )
    trial_ms = (time.perf_counter() - started) * 1000
    breakdown = timer.take()
    check_times, passed, problems = run_checks(package, "0001")
    cpu_s += time.process_time() - cpu_started  # the timed parts only, as total_ms
    checks_ms = sum(check_times.values())
    stage_ms = sum(v for k, v in breakdown.items() if k.startswith("stage."))
    breakdown |= check_times
    breakdown["case_build"] = case_build_ms
    breakdown["trial.other"] = trial_ms - stage_ms  # lock, env, DB close, dispatch count
    identical, differ = same_artifacts(replayer.recording.package(case_id), package, "0001")
    return {
        "case_build_ms": case_build_ms,
        "trial_ms": trial_ms,
        "checks_ms": checks_ms,
        "total_ms": case_build_ms + trial_ms + checks_ms,
        "cpu_ms": cpu_s * 1000,
        "breakdown": breakdown,
        "checks_passed": passed,
        "problems": problems,
        "identical": identical,
        "differ": differ,
        "dispatches_this_run": report.dispatches_this_run,
    }


def run_round(
    replayer: Replayer, root: Path, mode: str, timer: CallTimer
) -> dict[str, dict[str, Any]]:
    """Every case once, in a fresh workspace ``root``."""
    workspace = Workspace(root)
    return {
        case_id: replay_case(replayer, case_id, workspace, mode, timer)
        for case_id in replayer.recording.case_ids
    }


def summarize_mode(samples: dict[str, list[dict[str, Any]]], mode: str) -> dict[str, Any]:
    every = [s for rows in samples.values() for s in rows]
    per_case = {}
    for case_id, rows in samples.items():
        per_case[case_id] = {
            "total": percentiles([r["total_ms"] for r in rows]),
            "case_build_p50_ms": median([r["case_build_ms"] for r in rows]),
            "trial_p50_ms": median([r["trial_ms"] for r in rows]),
            "checks_p50_ms": median([r["checks_ms"] for r in rows]),
            "breakdown_p50_ms": summarize_breakdown([r["breakdown"] for r in rows]),
        }
    failures = [
        {"problems": r["problems"][:3], "differ": r["differ"][:3]}
        for r in every
        if not (r["checks_passed"] and r["identical"])
    ]
    return {
        "description": MODE_DESCRIPTIONS[mode],
        "all_cases": {
            "total": percentiles([r["total_ms"] for r in every]),
            "cpu": percentiles([r["cpu_ms"] for r in every]),
            "case_build": percentiles([r["case_build_ms"] for r in every]),
            "trial": percentiles([r["trial_ms"] for r in every]),
            "checks": percentiles([r["checks_ms"] for r in every]),
        },
        "breakdown_p50_ms": summarize_breakdown([r["breakdown"] for r in every]),
        "per_case": per_case,
        "verified": {
            "runs": len(every),
            "artifacts_identical_to_recording": sum(r["identical"] for r in every),
            "all_checks_passed": sum(r["checks_passed"] for r in every),
            "model_requests_sent": sum(r["dispatches_this_run"] for r in every),
            "failures": failures[:5],
        },
    }


def _area(filename: str, function: str) -> str:
    """A coarse owner of a profiled function, for the 'where does the time go' summary."""
    if filename == "~":
        return f"builtin {function}"
    for marker in ("vba_assets", "resources", "pydantic", "sqlalchemy", "rfc8785", "json"):
        if f"/{marker}/" in filename or f"/{marker}_core/" in filename:
            return marker
    return "other python"


def profile_round(replayer: Replayer, root: Path, mode: str, top: int) -> dict[str, Any]:
    """One round of every case under cProfile: top functions and own time by area, per case."""
    profiler = cProfile.Profile()
    timer = CallTimer()
    cases = len(replayer.recording.case_ids)
    profiler.enable()
    run_round(replayer, root, mode, timer)
    profiler.disable()
    stats = pstats.Stats(profiler)
    entries = stats.stats  # type: ignore[attr-defined]
    rows = []
    areas: dict[str, float] = {}
    for (filename, line, function), (_cc, calls, own, cumulative, _callers) in entries.items():
        short = filename.split("/site-packages/")[-1].replace(str(Path.cwd()) + "/", "")
        rows.append((f"{short}:{line}({function})", calls, own, cumulative))
        area = _area(filename, function)
        areas[area] = areas.get(area, 0.0) + own
    total = sum(areas.values())

    def fmt(row: tuple[str, int, float, float]) -> dict[str, Any]:
        return {
            "function": row[0],
            "calls_per_case": round(row[1] / cases, 1),
            "own_ms_per_case": round(row[2] * 1000 / cases, 3),
            "cumulative_ms_per_case": round(row[3] * 1000 / cases, 3),
        }

    by_area = sorted(areas.items(), key=lambda item: -item[1])
    return {
        "mode": mode,
        "note": "one extra round under cProfile (slower than the timed rounds); per-case averages",
        "profiled_ms_per_case": round(total * 1000 / cases, 3),
        "calls_per_case": round(sum(row[1] for row in rows) / cases, 1),  # not load-dependent
        "own_time_by_area": [
            {
                "area": name,
                "ms_per_case": round(own * 1000 / cases, 3),
                "share": round(own / total, 3),
            }
            for name, own in by_area[:15]
        ],
        "top_own_time": [fmt(r) for r in sorted(rows, key=lambda r: -r[2])[:top]],
        "top_cumulative_project": [
            fmt(r)
            for r in sorted(rows, key=lambda r: -r[3])
            if r[0].startswith(("vba_assets/", "resources/"))
        ][:top],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=20, help="timed rounds over the cases")
    parser.add_argument("--cases", default="", help="comma-separated sample ids (default: all)")
    parser.add_argument("--modes", default=",".join(MODES), help="reuse,answer (see the docstring)")
    parser.add_argument("--profile", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--profile-top", type=int, default=20)
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    if not modes or set(modes) - set(MODES) or args.rounds < 1:
        parser.error(f"--modes must name some of {MODES}; --rounds must be at least 1")
    case_ids = [c for c in args.cases.split(",") if c]

    with tempfile.TemporaryDirectory(prefix="vba-bench-controller-") as tmp:
        root = Path(tmp)
        recording = record_samples(root / "recording", case_ids)
        project = write_project_toml(root / "project.toml", root / "unused-workspace")
        replayer = Replayer.from_recording(recording, project)
        timer = CallTimer()
        samples: dict[str, dict[str, list[dict[str, Any]]]] = {m: {} for m in modes}
        warmup: dict[str, dict[str, float]] = {}
        targets = [*stage_targets(), *DB_TARGETS]
        with timer.patched(targets):
            for mode in modes:
                first = run_round(replayer, root / f"warmup-{mode}", mode, timer)
                warmup[mode] = {c: round(r["total_ms"], 3) for c, r in first.items()}
            for number in range(args.rounds):
                for mode in modes:  # interleaved: the same load for each
                    rows = run_round(replayer, root / f"{mode}-{number}", mode, timer)
                    for case_id, row in rows.items():
                        samples[mode].setdefault(case_id, []).append(row)
        profile = (
            profile_round(replayer, root / "profile", modes[0], args.profile_top)
            if args.profile
            else None
        )

    results = {mode: summarize_mode(samples[mode], mode) for mode in modes}
    target: dict[str, Any] = {"per_case_total_p50_ms_below": P50_TARGET_MS}
    for mode in modes:
        per_case = results[mode]["per_case"]
        worst = max(per_case, key=lambda c: per_case[c]["total"]["p50_ms"])
        target[mode] = {
            "met": all(v["total"]["p50_ms"] < P50_TARGET_MS for v in per_case.values()),
            "worst_case": worst,
            "worst_case_p50_ms": per_case[worst]["total"]["p50_ms"],
        }
    emit(
        {
            "benchmark": "controller",
            "machine": machine_info(),
            "parameters": {
                "rounds": args.rounds,
                "warmup_rounds": 1,
                "cases": recording.case_ids,
                "modes": modes,
                "database": "embedded:demo (SQLite, read-only)",
                "timed": "import_report + run_trial(stop_after=interpretation) + every check",
            },
            "setup": {
                "recording_s": round(recording.seconds, 3),
                "recorded": {
                    c: {
                        "searches": replayer.searches[c],
                        "dispatch_records": len(replayer.records[c]),
                    }
                    for c in recording.case_ids
                },
                "unpatched": timer.missing,
                "stages_timed": STAGES_TIMED,
                "checks_timed": CHECKS_TIMED,
            },
            "warmup_total_ms": warmup,
            "results": results,
            "targets": target,
            "profile": profile,
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
