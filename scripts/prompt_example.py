"""Write a resolution-assessment few-shot example from a case the pipeline ran (``vba trial run``).

A prompt version's examples (``vba_assets/prompts/vN/examples/``) are frozen stage inputs and an
accepted reply. Writing them by hand means copying hashes and offsets; this takes them from a real
run instead: the case as frozen (``case.json``), the accepted plan, the candidate index, and the
accepted assessment reply, whose rationales may be replaced by a model-like sentence (``--rationale
Q1="..."``). The reply still has to pass the stage's validator (``tests/unit/test_prompts_v3.py``
and its successors check every example).

    python scripts/prompt_example.py --workspace WS --case-id EX-0031 --title "..." \
        --rationale Q1="..." > vba_assets/prompts/v4/examples/resolution_assessment-5.json
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def example(case_dir: Path, title: str, rationales: dict[str, str]) -> dict[str, Any]:
    """The example document of revision 0001 of the case at ``case_dir``."""
    resolution = case_dir / "analysis/interpretations/0001/entity-resolution"
    dispatches = sorted((resolution / "dispatches").glob("resolution_assessment-*.json"))
    accepted = [
        d
        for d in (_json(p) for p in dispatches if ".manifest." not in p.name)
        if d["outcome"] == "accepted"
    ]
    if len(accepted) != 1:
        raise SystemExit(f"{resolution}: {len(accepted)} accepted assessment replies, need one")
    output = json.loads(accepted[0]["output_text"])
    for assessment in output["assessments"]:
        if assessment["search_id"] in rationales:
            assessment["rationale"] = rationales[assessment["search_id"]]
    return {
        "title": title,
        "case": _json(case_dir / "case.json"),
        "plan": _json(resolution / "plan.json")["plan"],
        "candidate_index": _json(resolution / "candidates.json"),
        "output": output,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", required=True, type=Path)
    parser.add_argument("--case-id", required=True)
    parser.add_argument("--title", required=True, help="what the example shows")
    parser.add_argument(
        "--rationale",
        action="append",
        default=[],
        metavar="Qn=TEXT",
        help="replace the rationale of search Qn",
    )
    args = parser.parse_args(argv)
    rationales = dict(item.split("=", 1) for item in args.rationale)
    document = example(args.workspace / "cases" / args.case_id, args.title, rationales)
    json.dump(document, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
