"""Wall time of ``vba eval`` with the index and fast paths, and with both switched off. JSON.

    .venv/bin/python bench/eval_speed.py                          # eval/devset.jsonl, 2 rounds
    .venv/bin/python bench/eval_speed.py --rounds 3 --dataset eval/real/dev.jsonl

Each round runs the command twice as a new process, alternating which mode goes first: ``fast``
(the defaults) and ``plain`` (``VBA_FAST_PATHS=off VBA_WORLD_DB_INDEX=off``: the previous
implementation of everything issue 14 sped up, see ``vba_assets/domain/speed.py``). For each run:

* ``wall_s``: process start to exit (imports, the name index, every case, the report);
* ``setup_s``: process start to the first finished case minus that case's share (the first
  case's time is counted as the median case, the rest of the wait is one-time setup);
* ``case_ms``: the time between consecutive finished cases (the progress lines ``vba eval``
  prints), from the second case on: what each further case costs once the process is warm.

``ratios`` divide fast by plain (median over rounds): ``wall`` for the whole command and
``case_p50`` for a warm case; issue 14 asks for at most one third. ``same_results`` says whether
both modes scored every case identically (results.json without its run block).

Nothing here asserts: numbers are printed, never judged by a test.
"""

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import emit, machine_info, percentiles

ROOT = Path(__file__).resolve().parents[1]
PLAIN = {"VBA_FAST_PATHS": "off", "VBA_WORLD_DB_INDEX": "off"}
MODES: dict[str, dict[str, str]] = {"fast": {}, "plain": PLAIN}


def run_once(dataset: Path, mode: str, out: Path) -> dict[str, Any]:
    """One ``vba eval`` process in ``mode``; finished-case times from its progress lines."""
    env = {**os.environ, **MODES[mode]}
    for name in ("VBA_FAST_PATHS", "VBA_WORLD_DB_INDEX"):
        if name not in MODES[mode]:
            env.pop(name, None)
    command = [sys.executable, "-m", "vba_assets.cli", "eval", "--dataset", str(dataset)]
    command += ["--out", str(out)]
    started = time.perf_counter()
    finished: list[float] = []
    with subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stderr is not None
        for line in process.stderr:
            if line.startswith("["):
                finished.append(time.perf_counter())
        code = process.wait()
    wall = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"vba eval exited with {code} in mode {mode}")
    gaps = [(b - a) * 1000 for a, b in itertools.pairwise(finished)]
    typical = statistics.median(gaps) / 1000 if gaps else 0.0
    return {
        "mode": mode,
        "wall_s": round(wall, 3),
        "cases": len(finished),
        "setup_s": round(finished[0] - started - typical, 3) if finished else None,
        "case_ms": percentiles(gaps),
    }


def _scores(out: Path) -> Any:
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    document.pop("run", None)
    return document


def _median(values: Sequence[float]) -> float:
    return round(statistics.median(values), 3)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dataset", default="eval/devset.jsonl", help="JSONL gold dataset")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each mode, alternated")
    args = parser.parse_args(argv)
    dataset = (ROOT / args.dataset).resolve()
    runs: list[dict[str, Any]] = []
    same = True
    with tempfile.TemporaryDirectory(prefix="vba-bench-eval-") as scratch:
        for number in range(args.rounds):
            order = ("fast", "plain") if number % 2 == 0 else ("plain", "fast")
            outs = {}
            for mode in order:
                outs[mode] = Path(scratch) / f"{number}-{mode}"
                runs.append({"round": number, **run_once(dataset, mode, outs[mode])})
            same = same and _scores(outs["fast"]) == _scores(outs["plain"])
    by_mode = {mode: [run for run in runs if run["mode"] == mode] for mode in MODES}
    summary = {
        mode: {
            "wall_s": _median([run["wall_s"] for run in found]),
            "setup_s": _median([run["setup_s"] for run in found]),
            "case_p50_ms": _median([run["case_ms"]["p50_ms"] for run in found]),
            "case_mean_ms": _median([run["case_ms"]["mean_ms"] for run in found]),
        }
        for mode, found in by_mode.items()
    }
    fast, plain = summary["fast"], summary["plain"]
    ratios = {
        "wall": round(fast["wall_s"] / plain["wall_s"], 3),
        "case_p50": round(fast["case_p50_ms"] / plain["case_p50_ms"], 3),
        "case_mean": round(fast["case_mean_ms"] / plain["case_mean_ms"], 3),
        "setup": round(fast["setup_s"] / plain["setup_s"], 3),
    }
    emit(
        {
            "benchmark": "eval_speed",
            "machine": machine_info(),
            "parameters": {"dataset": args.dataset, "rounds": args.rounds, "plain_env": PLAIN},
            "results": {"runs": runs, "summary": summary, "ratios": ratios, "same_results": same},
            "targets": {
                "ratio_at_most": round(1 / 3, 3),
                "met": {name: value <= 1 / 3 for name, value in ratios.items() if name != "setup"},
            },
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
