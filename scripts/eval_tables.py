"""Markdown tables of several ``vba eval`` runs side by side: what ``eval/real/README.md`` shows.

    .venv/bin/python scripts/eval_tables.py dev@4=/tmp/e/dev-4 dev@12=/tmp/e/dev-12 test@4=...

Each argument is ``label=folder`` (a folder ``vba eval --out`` wrote, holding ``results.json``).
It prints the headline rates, then per language, per tracker and the miss reasons, one column per
run. Only aggregates are read: no case and no mention is printed (a held-out split's reports and
per-mention results stay unread).
"""

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HEADLINE = (
    ("candidate recall@k", "candidate_recall_at_k"),
    ("selection precision", "selection_precision"),
    ("selection recall", "selection_recall"),
    ("role accuracy", "role_accuracy"),
    ("wrong selections", "wrong_selection_rate"),
    ("null-gold selected", "null_gold_selection_rate"),
    ("search precision", "search_precision"),
    ("calls per case", "calls_per_case"),
)
GROUPED = (
    ("candidate recall@k", "candidate_recall_at_k"),
    ("selection precision", "selection_precision"),
    ("selection recall", "selection_recall"),
    ("role accuracy", "role_accuracy"),
)


def _rate(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def headline(runs: dict[str, dict[str, Any]]) -> str:
    """One row per headline rate, one column per run; the counts row says how many."""
    rows = [
        [name, *(_rate(r["aggregate"]["rates"].get(key)) for r in runs.values())]
        for name, key in HEADLINE
    ]
    counts = [
        f"{c['cases']} cases, {c['gold_mentions']} gold"
        for c in (r["aggregate"]["counts"] for r in runs.values())
    ]
    return _table(["rate", *runs], [*rows, ["size", *counts]])


def grouped(runs: dict[str, dict[str, Any]], field: str) -> str:
    """Per group (language, tracker): each rate as ``r1 / r2 / ...`` over the runs, and its size."""
    groups = sorted({g for r in runs.values() for g in r.get(field, {})})
    rows = []
    for group in groups:
        cells = []
        for _, key in GROUPED:
            values = [
                r.get(field, {}).get(group, {}).get("rates", {}).get(key) for r in runs.values()
            ]
            cells.append(" / ".join(_rate(v) or "-" for v in values))
        sizes = {
            r.get(field, {}).get(group, {}).get("counts", {}).get("gold_mentions")
            for r in runs.values()
        }
        rows.append(
            [group, *cells, "/".join(str(s) for s in sorted(s for s in sizes if s is not None))]
        )
    header = [field.removeprefix("by_"), *(name for name, _ in GROUPED), "gold mentions"]
    return f"Columns per cell: {' / '.join(runs)}\n\n" + _table(header, rows)


def miss_reasons(runs: dict[str, dict[str, Any]]) -> str:
    reasons = sorted({k for r in runs.values() for k in r.get("miss_reasons", {})})
    rows = [
        [k, *(str(r.get("miss_reasons", {}).get(k, 0)) for r in runs.values())] for k in reasons
    ]
    return _table(["miss reason", *runs], rows)


def main(argv: Sequence[str]) -> int:
    runs: dict[str, dict[str, Any]] = {}
    for argument in argv:
        label, sep, folder = argument.partition("=")
        if not sep:
            print(f"eval_tables: expected label=folder, got {argument!r}", file=sys.stderr)
            return 2
        runs[label] = json.loads((Path(folder) / "results.json").read_text(encoding="utf-8"))
    if not runs:
        print(__doc__, file=sys.stderr)
        return 2
    for title, text in (
        ("Headline", headline(runs)),
        ("By language", grouped(runs, "by_language")),
        ("By tracker", grouped(runs, "by_tracker")),
        ("Miss reasons (gold mentions not resolved)", miss_reasons(runs)),
    ):
        print(f"### {title}\n\n{text}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
