"""Wall time of ``vba eval``: the whole command, its setup and a warm case. JSON.

    .venv/bin/python bench/eval_speed.py                          # eval/devset.jsonl, 3 rounds
    .venv/bin/python bench/eval_speed.py --rounds 5 --dataset eval/real/dev.jsonl
    .venv/bin/python bench/compare.py eval_speed.py               # against an older commit

Each round runs the command once as a new process. For each run:

* ``wall_s``: process start to exit (imports, the name index, every case, the report);
* ``setup_s``: process start to the first finished case minus that case's share (the first
  case's time is counted as the median case, the rest of the wait is one-time setup);
* ``case_ms``: the time between consecutive finished cases (the progress lines ``vba eval``
  prints), from the second case on: what each further case costs once the process is warm;
* ``cpu_s``: the user and system CPU time of the process (its ``rusage``), which depends less on
  what else the machine runs than the wall times do.

``summary`` holds the medians over rounds; ``same_results`` says whether every round scored every
case identically (results.json without its run block). There is no second implementation to time
in the same tree: ``bench/compare.py`` runs this script on an older commit and on this tree,
alternated, and divides the medians (see ``bench/README.md``).

Nothing here asserts: numbers are printed, never judged by a test.
"""

import argparse
import itertools
import json
import resource
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


def run_once(dataset: Path, out: Path) -> dict[str, Any]:
    """One ``vba eval`` process; finished-case times from its progress lines."""
    command = [sys.executable, "-m", "vba_assets.cli", "eval", "--dataset", str(dataset)]
    command += ["--out", str(out)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    finished: list[float] = []
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stderr is not None
        for line in process.stderr:
            if line.startswith("["):
                finished.append(time.perf_counter())
        code = process.wait()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # this one child, waited for above
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if code != 0:
        raise SystemExit(f"vba eval exited with {code}")
    gaps = [(b - a) * 1000 for a, b in itertools.pairwise(finished)]
    typical = statistics.median(gaps) / 1000 if gaps else 0.0
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
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
    parser.add_argument("--rounds", type=int, default=3, help="runs of the command")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    dataset = (ROOT / args.dataset).resolve()
    runs: list[dict[str, Any]] = []
    scores = []
    with tempfile.TemporaryDirectory(prefix="vba-bench-eval-") as scratch:
        for number in range(args.rounds):
            out = Path(scratch) / str(number)
            runs.append({"round": number, **run_once(dataset, out)})
            scores.append(_scores(out))
    summary = {
        "wall_s": _median([run["wall_s"] for run in runs]),
        "cpu_s": _median([run["cpu_s"] for run in runs]),
        "setup_s": _median([run["setup_s"] for run in runs]),
        "case_p50_ms": _median([run["case_ms"]["p50_ms"] for run in runs]),
        "case_mean_ms": _median([run["case_ms"]["mean_ms"] for run in runs]),
    }
    emit(
        {
            "benchmark": "eval_speed",
            "machine": machine_info(),
            "parameters": {"dataset": args.dataset, "rounds": args.rounds},
            "results": {
                "runs": runs,
                "summary": summary,
                "same_results": all(score == scores[0] for score in scores),
            },
            "targets": {
                "note": "none in one tree: bench/compare.py divides by an older commit's medians"
            },
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
