"""One benchmark script on an older commit and on this tree, alternated in one session. JSON.

    .venv/bin/python bench/compare.py eval_speed.py -- --rounds 1
    .venv/bin/python bench/compare.py controller.py --rounds 4 -- --rounds 10 --no-profile
    .venv/bin/python bench/compare.py lookup.py --base 07976bc --rounds 5

The product has one implementation of each behaviour, so a speed-up is measured against the code
before it, not against a switch: the ``--base`` commit (default ``07976bc``, the last commit
before the environment switches ``VBA_FAST_PATHS`` and ``VBA_WORLD_DB_INDEX`` were removed, whose
defaults were the implementation kept) is checked out in a temporary ``git worktree``, and each
round runs the script once there and once in this tree (its files as they are, committed or not),
alternating which goes first so both see the same machine load. Each run is a new process with
its tree first on ``PYTHONPATH`` and as the working directory; whatever follows ``--`` is passed to
the script, which must print one JSON document. Both trees are byte-compiled first (a fresh
worktree would otherwise compile every module in its first run), and ``--warmup`` runs (default 1)
of each tree go before the rounds, unmeasured.

By default the *same* benchmark code measures both trees: this tree's ``bench/`` is copied over the
base's (``--base-scripts`` runs the base's own scripts instead), so only the product code differs.

``metrics`` lists, for every dotted path into the script's JSON (``--metric``, or the defaults of
the script below), the value of each run, the median per tree and ``ratio`` (this tree's median
over the base's: below 1 is faster). ``runs`` keeps every document whole. Nothing here asserts.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import emit, machine_info

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BASE = "07976bc"
#: What to compare when no ``--metric`` is given, by script.
DEFAULT_METRICS: dict[str, list[str]] = {
    "controller.py": [
        "results.reuse.all_cases.total.p50_ms",
        "results.answer.all_cases.total.p50_ms",
        "results.reuse.all_cases.cpu.p50_ms",
        "results.answer.all_cases.cpu.p50_ms",
        "profile.calls_per_case",
    ],
    "eval_speed.py": [
        "results.summary.wall_s",
        "results.summary.cpu_s",
        "results.summary.setup_s",
        "results.summary.case_p50_ms",
        "results.summary.case_mean_ms",
    ],
    "lookup.py": [
        f"results.sqlite_embedded_demo.modes.indexed.{path}"
        for path in (
            "contains_search.creature_name.p50_ms",
            "contains_search.creature_localized_name.p50_ms",
            "lookup.p50_ms",
            "lookup.p95_ms",
        )
    ],
}


def value_at(document: Any, path: str) -> Any:
    """The value at a dotted ``path`` of ``document`` (None where a key is missing)."""
    for key in path.split("."):
        if not isinstance(document, dict) or key not in document:
            return None
        document = document[key]
    return document


def run_script(tree: Path, script: str, args: Sequence[str]) -> Any:
    """Run ``bench/<script>`` of ``tree`` in ``tree``; its JSON output."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(tree / "bench" / script), *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{script} failed in {tree} ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def base_tree(commit: str, scratch: Path, own_scripts: bool) -> Path:
    """A detached worktree of ``commit`` under ``scratch``, with this tree's ``bench/`` copied in
    unless ``own_scripts``."""
    tree = scratch / "base"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), commit],
        check=True,
    )
    if not own_scripts:
        shutil.rmtree(tree / "bench")
        shutil.copytree(
            ROOT / "bench", tree / "bench", ignore=shutil.ignore_patterns("__pycache__")
        )
    return tree


def summarize(runs: list[dict[str, Any]], metrics: Sequence[str]) -> dict[str, Any]:
    """Per metric: every run's value, the median per tree and this tree's over the base's."""
    summary: dict[str, Any] = {}
    for metric in metrics:
        values = {
            side: [value_at(run["output"], metric) for run in runs if run["tree"] == side]
            for side in ("base", "head")
        }
        medians = {
            side: round(statistics.median(found), 3)
            if found and all(isinstance(v, int | float) for v in found)
            else None
            for side, found in values.items()
        }
        ratio = (
            round(medians["head"] / medians["base"], 3)
            if medians["head"] is not None and medians["base"]
            else None
        )
        summary[metric] = {"values": values, "median": medians, "ratio": ratio}
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("script", help="a script of bench/, e.g. controller.py")
    parser.add_argument("--base", default=DEFAULT_BASE, help=f"commit (default {DEFAULT_BASE})")
    parser.add_argument("--rounds", type=int, default=3, help="runs per tree, alternated")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured runs per tree first")
    parser.add_argument("--metric", action="append", help="dotted path into the JSON (repeat)")
    parser.add_argument(
        "--base-scripts", action="store_true", help="run the base commit's own bench scripts"
    )
    given = list(sys.argv[1:] if argv is None else argv)
    cut = given.index("--") if "--" in given else len(given)
    args = parser.parse_args(given[:cut])
    script_args = given[cut + 1 :]  # after "--": the script's own arguments
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if not (ROOT / "bench" / args.script).is_file():
        parser.error(f"no bench/{args.script}")
    metrics = args.metric or DEFAULT_METRICS.get(args.script, [])
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.base],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    head = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="vba-bench-compare-") as scratch:
        base = base_tree(commit, Path(scratch), args.base_scripts)
        try:
            trees = {"base": base, "head": ROOT}
            for tree in trees.values():
                subprocess.run(
                    [sys.executable, "-m", "compileall", "-q", "vba_assets", "resources", "bench"],
                    cwd=tree,
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
            for _ in range(args.warmup):
                for side, tree in trees.items():
                    run_script(tree, args.script, script_args)
                    print(f"warm-up {side} done", file=sys.stderr)
            for number in range(args.rounds):
                order = ("base", "head") if number % 2 == 0 else ("head", "base")
                for side in order:
                    output = run_script(trees[side], args.script, script_args)
                    runs.append({"round": number, "tree": side, "output": output})
                    print(f"round {number} {side} done", file=sys.stderr)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False
            )
    emit(
        {
            "benchmark": "compare",
            "machine": machine_info(),
            "parameters": {
                "script": args.script,
                "script_args": script_args,
                "base": commit,
                "head": head,
                "rounds": args.rounds,
                "warmup": args.warmup,
                "scripts_from": "base" if args.base_scripts else "head",
            },
            "results": {"metrics": summarize(runs, metrics), "runs": runs},
            "targets": {"note": "ratio = this tree's median / the base's; below 1 is faster"},
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
