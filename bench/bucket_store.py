"""Case packages in a bucket vs the local store: one case through ``vba trial run``'s path. JSON.

    PYTHONPATH=. .venv/bin/python bench/bucket_store.py                 # 3 samples, 1 round
    PYTHONPATH=. .venv/bin/python bench/bucket_store.py --cases 7 --rounds 2

Each sample case is imported and run to ``interpretation`` (heuristic provider, embedded world DB)
once with a local workspace and once with the workspace in a bucket (moto in server mode on
127.0.0.1, requests serialized: ``tests/objectstore/serial_moto.py``), each in a fresh folder.
Per backend: wall seconds per case (median, max), S3 requests per case by operation, and whether
every artifact has the same bytes in both (``same_artifacts``; events.jsonl, whose lines carry
wall-clock ``at``, is compared by line count). moto on loopback is no real S3: its latency is near
zero, so this measures the store's request count and CPU cost, not a network. Nothing asserts.
"""

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from common import emit, machine_info

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.objectstore.conftest import new_bucket, start_moto, stop
from vba_assets.config import load_project_config
from vba_assets.intake import import_report
from vba_assets.llm_config import load_llm_config
from vba_assets.pipeline.trial import run_trial
from vba_assets.samples import sample_report_paths
from vba_assets.store import Workspace

REPO = Path(__file__).resolve().parents[1]


def _project(folder: Path) -> Path:
    text = (REPO / "config" / "project.mariadb-ci.toml").read_text(encoding="utf-8")
    text = text.replace(
        'url = "mysql+pymysql://vba_reader@127.0.0.1:3306/vba_world"', 'url = "embedded:demo"'
    )
    text = "\n".join(line for line in text.splitlines() if not line.startswith("password_env"))
    path = folder / "project.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }


def _run(workspace: Workspace, report: Path, project: Any) -> tuple[str, float]:
    start = time.perf_counter()
    case_id = import_report(workspace, report).case_id
    run_trial(
        workspace,
        case_id,
        "0001",
        project,
        load_llm_config(None),
        stop_after="interpretation",
        max_dispatches=6,
    )
    return case_id, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    reports = sample_report_paths()[: args.cases]
    process, endpoint = start_moto()
    walls: dict[str, list[float]] = {"local": [], "bucket": []}
    requests: Counter[str] = Counter()
    same = True
    try:
        for _ in range(args.rounds):
            for report in reports:
                with tempfile.TemporaryDirectory() as folder:
                    root = Path(folder)
                    project = load_project_config(_project(root))
                    local = Workspace(root / "local")
                    case_id, wall = _run(local, report, project)
                    walls["local"].append(wall)
                    bucket = new_bucket(endpoint)
                    bucket._client.meta.events.register(
                        "before-call.s3", lambda model, **_: requests.update([model.name])
                    )
                    remote = Workspace(root / "bucket", bucket=bucket)
                    _, wall = _run(remote, report, project)
                    walls["bucket"].append(wall)
                    mine, theirs = (_files(w.cases_dir / case_id) for w in (local, remote))
                    events = "analysis/interpretations/0001/events.jsonl"
                    lines = [files.pop(events).count(b"\n") for files in (mine, theirs)]
                    same = same and mine == theirs and lines[0] == lines[1]
    finally:
        stop(process)
    runs = len(walls["bucket"])
    emit(
        {
            "benchmark": "bucket_store",
            "machine": machine_info(),
            "parameters": {
                "cases": len(reports),
                "rounds": args.rounds,
                "server": "moto (serialized)",
            },
            "results": {
                name: {"median_s": statistics.median(values), "max_s": max(values)}
                for name, values in walls.items()
            }
            | {
                "requests_per_case": {op: round(n / runs, 1) for op, n in sorted(requests.items())},
                "same_artifacts": same,
            },
        }
    )


if __name__ == "__main__":
    main()
