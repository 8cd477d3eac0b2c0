#!/usr/bin/env python3
"""Split the collected real-report dataset into a dev half and a test half (deterministic).

Input: one JSONL file of annotated real reports (format: ``eval/README.md``, additions:
``eval/real/README.md``), by default ``/tmp/real_reports_all.jsonl``.
Output: ``eval/real/dev.jsonl`` and ``eval/real/test.jsonl`` (paths relative to the repository).

Method (stdlib only, no randomness): every line is keyed by
``(out_of_scope, language, tracker, sha256(id))``; the lines are sorted by that key and dealt
alternately, the 1st, 3rd, 5th ... to dev and the 2nd, 4th, 6th ... to test. Because the deal
runs over the sorted list without restarting per group, every group of lines that share the
first keys is split as evenly as its size allows (a group of n lines gives floor(n/2) or
ceil(n/2) to each side) and the odd lines of consecutive groups alternate between the sides.
So both halves get the same mix of in-scope and out-of-scope reports, of languages and (inside
each language) of trackers, and differ in size by at most one line. ``sha256(id)`` orders the
lines inside a group by a value nobody chose. Each output file is written sorted by ``id``, one JSON
object per line (UTF-8, ``ensure_ascii=False``), so re-running on the same input gives
byte-identical files.

Usage::

    python scripts/split_real_reports.py [INPUT] [--out-dir eval/real] [--names dev test]

(``--names dev3 test4`` made the fourth pair from the two pools collected on 2026-12-07.)

The test half is meant to be run, never studied or tuned on.
"""

import argparse
import hashlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_INPUT = Path("/tmp/real_reports_all.jsonl")


def split_key(case: dict) -> tuple[bool, str, str, str]:
    """The sort key that stratifies by scope, language and tracker."""
    digest = hashlib.sha256(case["id"].encode("utf-8")).hexdigest()
    out_of_scope = case.get("in_scope", True) is False
    return (out_of_scope, case.get("language", ""), case.get("tracker", ""), digest)


def split(cases: list[dict]) -> tuple[list[dict], list[dict]]:
    """Deal the cases sorted by :func:`split_key` alternately to (dev, test)."""
    ordered = sorted(cases, key=split_key)
    dev = [case for index, case in enumerate(ordered) if index % 2 == 0]
    test = [case for index, case in enumerate(ordered) if index % 2 == 1]
    return sorted(dev, key=lambda c: c["id"]), sorted(test, key=lambda c: c["id"])


def read_jsonl(path: Path) -> list[dict]:
    cases = []
    seen = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        case = json.loads(line)
        if case["id"] in seen:
            raise SystemExit(f"{path}: line {number}: id {case['id']!r} repeats")
        seen.add(case["id"])
        cases.append(case)
    return cases


def write_jsonl(path: Path, cases: list[dict]) -> None:
    text = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input", nargs="?", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--out-dir", type=Path, default=REPO / "eval" / "real")
    parser.add_argument(
        "--names",
        nargs=2,
        default=("dev", "test"),
        metavar=("STUDY", "HELD_OUT"),
        help="the two output files' names without .jsonl (default: dev test)",
    )
    args = parser.parse_args(argv)
    cases = read_jsonl(args.input)
    dev, test = split(cases)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    study, held_out = args.names
    write_jsonl(args.out_dir / f"{study}.jsonl", dev)
    write_jsonl(args.out_dir / f"{held_out}.jsonl", test)
    print(f"{len(cases)} reports: {study} {len(dev)}, {held_out} {len(test)} -> {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
