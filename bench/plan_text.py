"""Plan-stage CPU time per KB of report text, by the shape of the text (issue 30). JSON.

    .venv/bin/python bench/plan_text.py                           # 4 and 8 KB, 3 rounds
    .venv/bin/python bench/plan_text.py --sizes 2,8,32 --rounds 5
    .venv/bin/python bench/compare.py plan_text.py --base 620ee2c --rounds 1 --warmup 0

Each body is imported as a case (not timed) and planned by the heuristic (``plan_searches``
with the packaged name index, the embedded catalogs, ``max_searches`` 4): what the
``resolution_plan`` stage computes without its store writes. Shapes, each cut to the size:

* ``prose``: plain report sentences;
* ``urls``: bare creature URLs on one line, separated by a blank (the issue's 100/200 URLs);
* ``url_lines``: the same, one per line;
* ``comment``: three names, then one long HTML comment on the same line (a tracker template);
* ``lists``: lines "Mankrik (id N)".

Per shape and size: the median CPU seconds (``time.process_time``) over ``--rounds``, ms per KB
and the ratio to prose of the same size measured in the same run (load cancels out). Target:
every ratio under 2 (issue 30's acceptance). Nothing here asserts.
"""

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import emit, machine_info

from resources.llm.heuristic_index import packaged_name_index
from vba_assets.config import embedded_project_config
from vba_assets.domain.stage_context import plan_stage_context
from vba_assets.heuristic.planning import plan_searches
from vba_assets.intake import import_report
from vba_assets.store import Workspace

PROSE = (
    "I picked up the quest from the camp and ran around the hills behind it for a long time "
    "tonight. Two guildies on the same quest see nothing either and we tried again later. "
)
TARGET_RATIO = 2.0


def _repeat(unit: Callable[[int], str], size: int) -> str:
    parts: list[str] = []
    length = number = 0
    while length < size:
        part = unit(number)
        parts.append(part)
        length += len(part)
        number += 1
    return "".join(parts)[:size]


SHAPES: dict[str, Callable[[int], str]] = {
    "prose": lambda size: _repeat(lambda _: PROSE, size),
    "urls": lambda size: _repeat(lambda n: f"https://www.wowhead.com/wotlk/npc={3001 + n} ", size),
    "url_lines": lambda size: _repeat(
        lambda n: f"https://www.wowhead.com/wotlk/npc={3001 + n}\n", size
    ),
    "comment": lambda size: (
        "Mankrik Hogger Goldark <!-- "
        + _repeat(lambda _: "template text, name the NPC in the forest ", size - 32)
        + " -->"
    ),
    "lists": lambda size: _repeat(lambda n: f"Mankrik (id {3001 + n})\n", size),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="4,8", help="body sizes in KB, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    shapes = ["prose", *(s for s in args.shapes.split(",") if s != "prose")]
    catalogs = embedded_project_config("unused").catalogs
    names = packaged_name_index()
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        workspace = Workspace(root / "ws")
        number = 0
        for kilobytes in sizes:
            for shape in shapes:
                number += 1
                case_id = f"BUG-{500000 + number}"
                report = {
                    "case_id": case_id,
                    "title": "NPC bugged",
                    "body": SHAPES[shape](kilobytes * 1024),
                    "reported_at": "2026-09-24T21:47:12+02:00",
                }
                path = root / f"{case_id}.json"
                path.write_text(json.dumps(report), encoding="utf-8")
                import_report(workspace, path)
                case = json.loads((workspace.root / "cases" / case_id / "case.json").read_text())
                context = plan_stage_context(case, catalogs, 4)
                samples = []
                for _ in range(args.rounds):
                    started = time.process_time()
                    plan_searches(context, names)
                    samples.append(time.process_time() - started)
                seconds = statistics.median(samples)
                results.setdefault(f"{kilobytes}kb", {})[shape] = {
                    "cpu_s": round(seconds, 4),
                    "ms_per_kb": round(seconds * 1000 / kilobytes, 2),
                }
        for by_shape in results.values():
            prose = max(by_shape["prose"]["cpu_s"], 1e-6)
            for measured in by_shape.values():
                measured["ratio_to_prose"] = round(measured["cpu_s"] / prose, 2)
    worst = max(m["ratio_to_prose"] for by_shape in results.values() for m in by_shape.values())
    emit(
        {
            "benchmark": "plan_text",
            "machine": machine_info(),
            "parameters": {"sizes_kb": sizes, "rounds": args.rounds, "shapes": shapes},
            "results": results,
            "targets": {
                "ratio_to_prose_below": TARGET_RATIO,
                "worst_ratio": worst,
                "met": worst < TARGET_RATIO,
            },
        }
    )


if __name__ == "__main__":
    main()
