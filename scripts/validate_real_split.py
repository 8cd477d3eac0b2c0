#!/usr/bin/env python3
"""Check a real-report split file (``eval/real/*.jsonl``) against the collection rules.

Checks what the project's loader does not (the loader, ``load_dataset``, is run as well):

* every line is ``json.dumps(obj, ensure_ascii=False)`` of its own object (same bytes);
* the keys of ``eval/real/README.md`` ("Line format"): ``id`` of the form
  ``REAL-<TRACKER>-<number>`` whose number is the issue number of ``source``, ``source`` a
  GitHub issue URL of ``tracker``, ``license``, ``language``, ``tags``;
* ``in_scope`` is given; an out-of-scope line has a ``scope_class`` and no mentions;
* no ``source`` occurs twice, nor in any of the ``--other`` split files (only their ``source``
  fields are read);
* every ``null`` gold entry is explained by a ``note`` (on the mention or the line);
* with ``--data DIR`` (the shared reference data, ``DIR/wotlk/creature_template.csv`` and
  ``creature_template_locale.csv``): every ``gold_entry`` exists and its ``gold_name`` is the
  entry's English or localized name.

Prints counts only (no report text), exit status 1 when a check fails.

Usage::

    python scripts/validate_real_split.py eval/real/test2.jsonl \
        --other eval/real/dev.jsonl eval/real/dev2.jsonl eval/real/test.jsonl \
        [--data ../shared/data]
"""

import argparse
import csv
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ID_RE = re.compile(r"^REAL-[A-Z0-9-]+-(\d+)$")
SOURCE_RE = re.compile(r"^https://github\.com/([^/]+/[^/]+)/issues/(\d+)$")
REQUIRED = ("id", "source", "tracker", "license", "language", "tags", "in_scope", "mentions")


def load_names(data: Path) -> dict[int, set[str]]:
    names: dict[int, set[str]] = {}
    with (data / "wotlk" / "creature_template.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            names.setdefault(int(row["entry"]), set()).add(row["name"])
    with (data / "wotlk" / "creature_template_locale.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            entry = int(row["entry"])
            if entry in names:
                names[entry].add(row["Name"])
    return names


def check_line(obj: dict[str, Any], where: str, names: dict[int, set[str]] | None) -> list[str]:
    errors = [f"{where}: missing key {key!r}" for key in REQUIRED if key not in obj]
    if errors:
        return errors
    id_match = ID_RE.match(obj["id"])
    source_match = SOURCE_RE.match(obj["source"])
    if id_match is None or source_match is None:
        return [f"{where}: id or source not of the expected form"]
    if source_match.group(1) != obj["tracker"] or source_match.group(2) != id_match.group(1):
        errors.append(f"{where}: id, source and tracker disagree")
    if obj["in_scope"] is False and (obj.get("scope_class") is None or obj["mentions"]):
        errors.append(f"{where}: an out-of-scope line needs a scope_class and no mentions")
    text = f"{obj.get('title', '')}\n{obj.get('body', '')}"
    for index, mention in enumerate(obj["mentions"]):
        at = f"{where}: mentions[{index}]"
        if mention["surface"] not in text:
            errors.append(f"{at}: surface does not occur in the title or body")
        entry = mention.get("gold_entry")
        if entry is None:
            if not (mention.get("note") or obj.get("note")):
                errors.append(f"{at}: a null gold entry without a note")
        elif names is not None:
            if entry not in names:
                errors.append(f"{at}: gold_entry {entry} is not in creature_template")
            elif mention.get("gold_name") not in names[entry]:
                errors.append(f"{at}: gold_name is not a name of entry {entry}")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("split", type=Path)
    parser.add_argument("--other", type=Path, nargs="*", default=[])
    parser.add_argument("--data", type=Path)
    args = parser.parse_args(argv)

    taken = {
        json.loads(line)["source"]
        for other in args.other
        for line in other.read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    names = load_names(args.data) if args.data else None
    errors: list[str] = []
    seen: set[str] = set()
    objs: list[dict[str, Any]] = []
    for number, line in enumerate(args.split.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{args.split.name} line {number}"
        obj = json.loads(line)
        objs.append(obj)
        if json.dumps(obj, ensure_ascii=False) != line:
            errors.append(f"{where}: not written as json.dumps(obj, ensure_ascii=False)")
        errors.extend(check_line(obj, where, names))
        source = obj.get("source")
        if source in seen or source in taken:
            errors.append(f"{where}: source already used")
        seen.add(str(source))

    from vba_assets.evaluation.dataset import load_dataset  # the project's own loader

    load_dataset(args.split)
    for error in errors:
        print(error)
    roles = Counter(m["role"] for o in objs for m in o["mentions"])
    print(
        f"{len(objs)} reports, {sum(roles.values())} mentions ({dict(sorted(roles.items()))}), "
        f"{sum(m.get('gold_entry') is None for o in objs for m in o['mentions'])} null, "
        f"{len({o['tracker'] for o in objs})} trackers, "
        f"{len({o['language'] for o in objs})} languages, {len(errors)} errors"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
