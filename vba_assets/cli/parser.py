"""The ``vba`` argument parser and :func:`main` (exit codes: :mod:`vba_assets.cli`)."""

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from vba_assets.cli.commands import (
    cmd_blocked,
    cmd_cache,
    cmd_context_show,
    cmd_demo,
    cmd_import,
    cmd_lookup,
    cmd_resume,
    cmd_revision_new,
    cmd_tracker_post,
    cmd_tracker_sync,
    cmd_trial_run,
    cmd_worlddb,
)
from vba_assets.cli.packages import cmd_export, cmd_import_package, cmd_verify
from vba_assets.domain.stages import MODEL_STAGES, STOP_POINTS
from vba_assets.errors import VbaError, exit_code

if TYPE_CHECKING:
    from vba_assets.evaluation.via import EvalPaths


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vba", description="Grounded case interpretation for game-server bug reports."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("eval", help="Measure resolution quality on a dataset (see `vba eval -h`).")

    def add(name: str, handler: Callable[[argparse.Namespace], int], help_: str) -> Any:
        command = sub.add_parser(name, help=help_, description=help_)
        command.set_defaults(handler=handler)
        command.add_argument(
            "--project-config", help="project config TOML (default: the embedded demo config)"
        )
        return command

    imp = add("import", cmd_import, "Admit a report (JSON file or folder) and build its case.json.")
    imp.add_argument("--workspace", help="workspace root (default: from the project config)")
    imp.add_argument("--package-id", help="package id (default: pkg-<case id>)")
    imp.add_argument("report", nargs="?", help="report.json, or a folder containing report.json")
    imp.add_argument(
        "--github-issues",
        metavar="FILE",
        help="import GitHub issues instead: one REST issue object or an array (README, 'From "
        'your GitHub tracker\'; {"issue": ..., "comments": [...]} items carry comments)',
    )
    imp.add_argument("--repository", help="with --github-issues: owner/name of the issues")
    imp.add_argument(
        "--label",
        action="append",
        help="with --github-issues: import only issues with this label (repeatable)",
    )
    imp.add_argument("--json", action="store_true", help="with --github-issues: print JSON")

    tracker = sub.add_parser("tracker", help="Cases from issue trackers ([[trackers]] blocks).")
    tracker_sub = tracker.add_subparsers(dest="tracker_command", required=True)
    sync = tracker_sub.add_parser(
        "sync",
        help="Import new and edited issues of each [[trackers]] block since its cursor.",
        description="Import new and edited issues of each [[trackers]] block since its cursor "
        "(<workspace>/trackers/<name>/cursor.json); the token is read from token_env.",
    )
    sync.set_defaults(handler=cmd_tracker_sync)
    sync.add_argument("--project-config", help="project config TOML with [[trackers]] blocks")
    sync.add_argument("--tracker", metavar="NAME", help="only this tracker (default: every one)")
    sync.add_argument("--json", action="store_true", help="print what was imported as JSON")

    post = tracker_sub.add_parser(
        "post",
        help="Post (or update) each revision's interpretation summary as an issue comment.",
        description="Post or update one comment per revision with an accepted interpretation "
        "(trackers with write_back = 'comment'); found again by a hidden marker, recorded in "
        "the case package under write-back/.",
    )
    post.set_defaults(handler=cmd_tracker_post)
    post.add_argument("--project-config", help="project config TOML with [[trackers]] blocks")
    post.add_argument("--tracker", metavar="NAME", help="only this tracker (default: every one)")
    post.add_argument("--dry-run", action="store_true", help="print the comments, send nothing")

    look = add("lookup", cmd_lookup, "Resolve a name against the world DB catalogs.")
    look.add_argument("--catalog", help="search only this catalog")
    look.add_argument(
        "--limit",
        type=int,
        default=5,
        help="options/suggestions shown, 1-10 (others are clamped; default 5)",
    )
    look.add_argument("--json", action="store_true", help="print the full result as JSON")
    look.add_argument("query")

    demo = add("demo", cmd_demo, "Import the packaged sample reports into the workspace.")
    demo.add_argument("--workspace", help="workspace root (default: from the project config)")

    add("worlddb", cmd_worlddb, "Build (if needed) the embedded demo world DB and print its path.")

    cache = add(
        "cache",
        cmd_cache,
        "List the cache directory's files (demo world DB, heuristic name index) as current, "
        "stale, in progress or unknown.",
    )
    cache.add_argument("--prune", action="store_true", help="delete the stale files")
    cache.add_argument("--json", action="store_true", help="print the listing as JSON")

    trial = sub.add_parser("trial", help="Run one case headless (shares the assets' code path).")
    trial_sub = trial.add_subparsers(dest="trial_command", required=True)
    run = trial_sub.add_parser("run", help="Run one case up to --stop-after.")
    run.set_defaults(handler=cmd_trial_run)
    run.add_argument("--workspace", help="workspace root (default: from the project config)")
    run.add_argument("--project-config", help="project config TOML (default: embedded demo)")
    run.add_argument("--llm-config", help="LLM config TOML (default: the heuristic baseline)")
    run.add_argument("--case-id", required=True)
    run.add_argument("--package-id", help="refuse to run unless the case is this package")
    run.add_argument("--revision", help="NNNN (default: the case's latest revision, or 0001)")
    run.add_argument("--stop-after", required=True, choices=list(STOP_POINTS))
    run.add_argument("--max-dispatches", type=int, default=6, help="model requests allowed")

    for name, handler, help_ in (
        (
            "blocked",
            cmd_blocked,
            "List blocked revisions: stage, code, retry_at, attempts, tokens.",
        ),
        ("resume", cmd_resume, "Resume a case's blocked revision once its retry_at has passed."),
    ):
        command = add(name, handler, help_)
        command.add_argument(
            "--workspace", help="workspace root (default: from the project config)"
        )
        if name == "blocked":
            command.add_argument("--case-id", help="only this case (default: every case)")
            command.add_argument("--json", action="store_true", help="print them as JSON")
        else:
            command.add_argument("--case-id", required=True)
            command.add_argument(
                "--llm-config",
                help="the LLM config the revision started with (default: the heuristic "
                "baseline, as for `vba trial run`)",
            )
            command.add_argument("--max-dispatches", type=int, default=6)

    revision = sub.add_parser("revision", help="Manage analysis revisions.")
    revision_sub = revision.add_subparsers(dest="revision_command", required=True)
    new = revision_sub.add_parser("new", help="Start a fresh revision of a case; prints it.")
    new.set_defaults(handler=cmd_revision_new)
    new.add_argument("--workspace", help="workspace root (default: from the project config)")
    new.add_argument("--project-config", help="project config TOML (default: embedded demo)")
    new.add_argument("--case-id", required=True)
    new.add_argument("--reason", help="why (recorded in the revision's events)")

    context = sub.add_parser("context", help="Inspect what went into each model request.")
    context_sub = context.add_subparsers(dest="context_command", required=True)
    show = context_sub.add_parser(
        "show", help="Context manifests: every item of each request, with lifecycle and size."
    )
    show.set_defaults(handler=cmd_context_show)
    show.add_argument("--workspace", help="workspace root (default: from the project config)")
    show.add_argument("--project-config", help="project config TOML (default: embedded demo)")
    show.add_argument("--case-id", required=True)
    show.add_argument("--revision", required=True)
    show.add_argument("--stage", choices=[stage.value for stage in MODEL_STAGES])
    show.add_argument("--json", action="store_true", help="print the manifests as JSON")

    ver = add(
        "verify",
        cmd_verify,
        "Prove case packages from their own bytes: every file accounted for by hash, the event "
        "chain, frozen inputs, requests rebuilt, artifacts recomputed. No DB, no API key.",
    )
    ver.add_argument("--workspace", help="workspace root (default: from the project config)")
    ver.add_argument("--case-id", help="verify this case (default: every case of the workspace)")
    ver.add_argument("--revision", help="only this revision of --case-id (default: every one)")
    ver.add_argument("--json", action="store_true", help="print the findings as JSON")

    exp = add(
        "export",
        cmd_export,
        "Copy case packages from the project's bucket ([workspace] url) into DIR/cases/ and "
        "verify them there; the folder verifies without the bucket and without the DB.",
    )
    exp.add_argument("--to", required=True, metavar="DIR", help="a workspace folder to copy into")
    exp.add_argument("--case-id", help="only this case (default: every case of the bucket)")
    exp.add_argument("--json", action="store_true", help="print the findings as JSON")
    ipk = add(
        "import-package",
        cmd_import_package,
        "Copy a local case folder (<workspace>/cases/<CASE-ID>) into the project's bucket: "
        "verified before it is sent, and again as it arrived. Objects are created only.",
    )
    ipk.add_argument("package", help="the case folder, named by its case id")
    ipk.add_argument("--json", action="store_true", help="print the findings as JSON")
    return parser


def main(argv: Sequence[str] | None = None, *, eval_paths: "EvalPaths | None" = None) -> int:
    """Every command; ``eval_paths`` are the ``vba eval --via`` choices (default: ``cli`` only;
    the ``vba`` entry point, :mod:`vba_assets.app`, adds ``dagster``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["eval"]:  # its own parser: vba eval --dataset F --llm-config F [--out D] ...
        from vba_assets.evaluation.runner import main as eval_main
        from vba_assets.evaluation.via import CLI_PATHS

        return eval_main(argv[1:], eval_paths if eval_paths is not None else CLI_PATHS)
    args = build_parser().parse_args(argv)
    try:
        code: int = args.handler(args)
        return code
    except VbaError as exc:
        print(f"vba: error: {exc}", file=sys.stderr)
        if exc.detail:
            print(json.dumps(exc.to_json(), ensure_ascii=False), file=sys.stderr)
        return exit_code(exc)
