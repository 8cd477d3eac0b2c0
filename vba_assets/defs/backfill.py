"""Backfill one case: its latest revision, or all of them (README, "Backfilling one case").

    python -m vba_assets.defs.backfill --case-id BUG-000020 [--all-revisions] [--launch]

Reads the registered partitions of the instance (``$DAGSTER_HOME``), keeps those of the case, and
prints what to do with them: the partition selection to paste into the UI's backfill dialog
(``"BUG-000020|0001", "BUG-000020|0002"``) and the equivalent Dagster command. ``--launch`` runs
that command: ``dagster job backfill -w workspace.yaml -j interpret_cases --partitions ...``,
which submits one run per partition to the instance's run queue (the queue's limits apply).

A case's revisions are registered by the inbox sensor as they are created; a key that is not
registered is not offered (there are no phantom revisions to backfill).
"""

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import dagster as dg

from vba_assets.defs.job import JOB_NAME
from vba_assets.defs.partitions import (
    case_keys,
    parse_partition_key,
    registered_keys,
    run_tags,
    selection_text,
)
from vba_assets.errors import VbaError
from vba_assets.llm_config import load_llm_config

WORKSPACE_YAML = Path(__file__).resolve().parents[2] / "workspace.yaml"


def case_backfill_keys(
    instance: dg.DagsterInstance, case_id: str, *, all_revisions: bool
) -> list[str]:
    """The registered keys of the case: every revision, or only the latest."""
    keys = case_keys(registered_keys(instance), case_id)
    return keys if all_revisions else keys[-1:]


def dagster_home_problem(environ: Mapping[str, str]) -> str | None:
    """Why ``DagsterInstance.get()`` would fail on ``$DAGSTER_HOME`` (one line), else None.

    Dagster raises ``DagsterHomeNotSetError`` (a multi-line advice) or an invariant violation;
    this CLI says it in one line instead, with what `make run` uses.
    """
    home = environ.get("DAGSTER_HOME", "")
    hint = "export DAGSTER_HOME to the instance the UI uses (make run: $PWD/.dagster-home)"
    if not home:
        return f"DAGSTER_HOME is not set: {hint}"
    path = Path(home).expanduser()
    if not path.is_absolute():
        return f"DAGSTER_HOME={home!r} is not an absolute path: {hint}"
    if not path.is_dir():
        return f"DAGSTER_HOME={home!r} is not an existing folder: {hint}"
    return None


def backfill_tags(keys: Sequence[str], environ: Mapping[str, str]) -> dict[str, str]:
    """The ``vba/*`` run tags of a backfill of ``keys`` (one case): ``vba/revision`` only when
    it is one revision (every run of a backfill gets the same tags; each run then adds its own
    revision, :mod:`vba_assets.defs.assets`). Provider and model: ``$VBA_LLM_CONFIG``'s."""
    pairs = [parse_partition_key(key) for key in keys]
    llm_path = environ.get("VBA_LLM_CONFIG", "")
    llm = load_llm_config(Path(llm_path) if llm_path else None)
    tags = run_tags(pairs[0][0], pairs[0][1], llm.provider, llm.model)
    if len({revision for _, revision in pairs}) > 1:
        del tags["vba/revision"]
    return tags


def backfill_command(
    keys: Sequence[str],
    workspace_yaml: Path = WORKSPACE_YAML,
    tags: Mapping[str, str] | None = None,
) -> list[str]:
    """The Dagster CLI command that backfills ``keys`` of ``interpret_cases``."""
    dagster = Path(sys.executable).with_name("dagster")
    return [
        str(dagster if dagster.exists() else "dagster"),
        "job",
        "backfill",
        "-w",
        str(workspace_yaml),
        "-j",
        JOB_NAME,
        "--partitions",
        ",".join(keys),
        *(["--tags", json.dumps(dict(tags), sort_keys=True)] if tags else []),
        "--noprompt",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vba_assets.defs.backfill", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--case-id", required=True)
    parser.add_argument(
        "--all-revisions", action="store_true", help="every revision, not only the latest"
    )
    parser.add_argument("--launch", action="store_true", help="submit the backfill now")
    args = parser.parse_args(argv)
    problem = dagster_home_problem(os.environ)
    if problem is not None:
        print(f"backfill: {problem}", file=sys.stderr)
        return 3
    with dg.DagsterInstance.get() as instance:
        keys = case_backfill_keys(instance, args.case_id, all_revisions=args.all_revisions)
    if not keys:
        print(
            f"{args.case_id} has no registered partition in this instance (is the inbox sensor "
            "running, and is DAGSTER_HOME the one the UI uses?)",
            file=sys.stderr,
        )
        return 2
    try:
        tags = backfill_tags(keys, os.environ)
    except VbaError as exc:  # an unreadable VBA_LLM_CONFIG
        print(f"backfill: {exc}", file=sys.stderr)
        return 3
    command = backfill_command(keys, tags=tags)
    print("partitions:      " + ", ".join(keys))
    print("UI selection:    " + selection_text(keys))
    quoted = [f"'{part}'" if "|" in part or "{" in part else part for part in command]
    print("Dagster command: " + " ".join(quoted))
    if not args.launch:
        return 0
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
