"""Issue 30's four reports through a whole ``vba trial run``, against prose of the same size. JSON.

    .venv/bin/python bench/hostile_trial.py              # the issue's reports, 1 round
    .venv/bin/python bench/hostile_trial.py --rounds 3

Each report is imported into a fresh workspace and run by ``vba trial run --stop-after
interpretation`` in a child process (the heuristic provider, the embedded world DB), as a user
would. Reports (issue 30, "Why"):

* ``urls_100`` / ``urls_200``: 100 / 200 bare database URLs, blank-separated (3.5 / 7 KB);
* ``comment_30kb``: a 30 KB report: three names, then one long HTML comment on the same line;
* ``lists_500``: 500 lines "Mankrik (id N)" (9 KB).

Each is paired with a plain-prose report of the same size run in the same round. Per report: the
child's CPU seconds (user + system, ``RUSAGE_CHILDREN``), its exit code and the ratio to its prose
twin. Target (issue 30's acceptance): every report completes (exit 0) and every ratio is under 2.
Nothing here asserts.
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import emit, machine_info
from plan_text import PROSE, TARGET_RATIO

ROOT = Path(__file__).resolve().parents[1]


def _urls(count: int) -> str:
    return " ".join(f"https://www.wowhead.com/wotlk/npc={3001 + n}" for n in range(count))


def _comment(size: int) -> str:
    filler = "template text, name the NPC in the forest "
    inner = (filler * (size // len(filler) + 1))[: size - 32]
    return f"Mankrik Hogger Goldark <!-- {inner} -->"


def _lists(count: int) -> str:
    return "".join(f"Mankrik (id {3001 + n})\n" for n in range(count))


REPORTS = {
    "urls_100": lambda: _urls(100),
    "urls_200": lambda: _urls(200),
    "comment_30kb": lambda: _comment(30 * 1024),
    "lists_500": lambda: _lists(500),
}


def _prose(size: int) -> str:
    return (PROSE * (size // len(PROSE) + 1))[:size]


def _trial(root: Path, name: str, body: str) -> dict[str, Any]:
    """Import ``body`` as a case and run it; the child's CPU seconds and exit code."""
    workspace = root / name
    report = {
        "case_id": "BUG-700001",
        "title": "NPC bugged",
        "body": body,
        "reported_at": "2026-09-24T21:47:12+02:00",
    }
    path = root / f"{name}.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    vba = [sys.executable, "-m", "vba_assets"]
    subprocess.run(
        [*vba, "import", "--workspace", str(workspace), str(path)],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    trial = ["trial", "run", "--workspace", str(workspace), "--case-id", "BUG-700001"]
    done = subprocess.run(
        [*vba, *trial, "--stop-after", "interpretation"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = (done.stderr.strip().splitlines() or [""])[-1][:200]
    return {"cpu_s": cpu, "exit": done.returncode, "last_stderr_line": last}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--reports", default=",".join(REPORTS))
    args = parser.parse_args()
    names = args.reports.split(",")
    samples: dict[str, dict[str, list[Any]]] = {
        n: {"cpu": [], "prose": [], "exit": [], "err": []} for n in names
    }
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for round_number in range(args.rounds):
            for name in names:
                body = REPORTS[name]()
                hostile = _trial(root, f"{name}-{round_number}", body)
                prose = _trial(root, f"{name}-prose-{round_number}", _prose(len(body)))
                samples[name]["cpu"].append(hostile["cpu_s"])
                samples[name]["prose"].append(prose["cpu_s"])
                samples[name]["exit"].append(hostile["exit"])
                samples[name]["err"].append(hostile["last_stderr_line"] if hostile["exit"] else "")
    results: dict[str, Any] = {}
    for name, got in samples.items():
        cpu, prose = statistics.median(got["cpu"]), statistics.median(got["prose"])
        results[name] = {
            "bytes": len(REPORTS[name]()),
            "cpu_s": round(cpu, 3),
            "prose_cpu_s": round(prose, 3),
            "ratio_to_prose": round(cpu / max(prose, 1e-6), 2),
            "exit_codes": got["exit"],
            "errors": [e for e in got["err"] if e],
        }
    worst = max(r["ratio_to_prose"] for r in results.values())
    completed = all(code == 0 for r in results.values() for code in r["exit_codes"])
    emit(
        {
            "benchmark": "hostile_trial",
            "machine": machine_info(),
            "parameters": {"rounds": args.rounds, "reports": names},
            "results": results,
            "targets": {
                "ratio_to_prose_below": TARGET_RATIO,
                "worst_ratio": worst,
                "all_completed": completed,
                "met": completed and worst < TARGET_RATIO,
            },
        }
    )


if __name__ == "__main__":
    main()
