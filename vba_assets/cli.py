"""The ``vba`` command.

Every command without ``--project-config`` uses the embedded default (the demo world DB, built on first
use from the packaged data). Imports are lazy so that ``vba lookup`` never imports Dagster.

Exit codes: 0 ok; 1 unexpected failure; 2 bad input or usage; 3 bad configuration; 4 the world DB is
unavailable; 5 the store refused (conflict, lock, corruption); 6 a model provider failed; 7 a stage's
CPU budget was exceeded; 8 a tracker sync or post stopped before the end (rate limit, server or
network error: the reason is printed and recorded, the next run resumes).
"""

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vba_assets.domain.stages import MODEL_STAGES, STOP_POINTS
from vba_assets.errors import ErrorCode, StoreError, VbaError, exit_code

#: The exit code of a tracker sync or post that stopped before the end (the reason is printed).
TRACKER_STOPPED = 8

if TYPE_CHECKING:
    from vba_assets.evaluation.via import EvalPaths


def _project(args: argparse.Namespace) -> Any:
    from vba_assets.config import embedded_project_config, load_project_config

    if getattr(args, "project_config", None):
        return load_project_config(Path(args.project_config))
    return embedded_project_config(getattr(args, "workspace", None))


def _workspace(args: argparse.Namespace) -> Any:
    """``--workspace`` (a local folder), else the project config's: local, or a bucket with a
    local working copy (``[workspace] url``)."""
    from vba_assets.store import Workspace
    from vba_assets.store.opening import open_workspace

    if getattr(args, "workspace", None):
        return Workspace(Path(args.workspace).resolve())
    return open_workspace(_project(args))


def _bucket(args: argparse.Namespace) -> Any:
    """The project config's bucket (``vba export`` / ``import-package``), or exit 3 without."""
    from vba_assets.errors import ConfigError
    from vba_assets.store.opening import open_bucket

    config = _project(args)
    if config.bucket is None:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{config.source}: no [workspace] url = 's3://...': this command copies between a "
            "bucket and a folder",
            key="workspace.url",
        )
    return open_bucket(config.bucket)


def cmd_import(args: argparse.Namespace) -> int:
    from vba_assets.intake import import_report

    if args.github_issues is not None or args.report is None:
        return _import_github_issues(args)
    result = import_report(_workspace(args), Path(args.report), package_id=args.package_id)
    print(result)
    return 0


def _import_github_issues(args: argparse.Namespace) -> int:
    """``vba import --github-issues FILE``: exit 2 when an issue was refused (others imported)."""
    from vba_assets.tracker.issue_import import import_github_issues, read_issue_export

    if (args.github_issues is None) == (args.report is None) or args.package_id:
        print(
            "vba: error: give a report or --github-issues FILE (not both; --package-id is for "
            "a report)",
            file=sys.stderr,
        )
        return 2
    outcome = import_github_issues(
        _workspace(args),
        read_issue_export(Path(args.github_issues)),
        repository=args.repository,
        labels=args.label or None,
    )
    if args.json:
        print(json.dumps(outcome.to_json(), ensure_ascii=False, indent=2))
    else:
        print("\n".join(outcome.lines()))
    return 2 if outcome.refused else 0


def cmd_tracker_sync(args: argparse.Namespace) -> int:
    """``vba tracker sync``: every ``[[trackers]]`` block, or ``--tracker NAME``."""
    from vba_assets.store import Workspace
    from vba_assets.tracker.sync import sync_tracker

    config = _project(args)
    trackers = [config.tracker(args.tracker)] if args.tracker else config.trackers
    results = [sync_tracker(Workspace(config.workspace), tracker) for tracker in trackers]
    if args.json:
        document = {"trackers": [result.to_json() for result in results]}
        print(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        print("\n".join(line for r in results for line in r.lines()) or "no [[trackers]] block")
    if any(r.stopped is not None for r in results):
        return TRACKER_STOPPED
    return 2 if any(r.outcome.refused for r in results) else 0


def cmd_tracker_post(args: argparse.Namespace) -> int:
    """``vba tracker post``: the write-back comments (``--dry-run``: print them, send nothing)."""
    from vba_assets.store import Workspace
    from vba_assets.tracker.write_back import dry_run_text, post_write_backs

    config = _project(args)
    trackers = [config.tracker(args.tracker)] if args.tracker else config.trackers
    workspace = Workspace(config.workspace)
    if not args.dry_run:
        off = [t.name for t in trackers if t.write_back == "off"]
        trackers = [t for t in trackers if t.write_back != "off"]
        if off:
            print(f"write_back is off for: {', '.join(off)} (--dry-run shows the comments)")
    results = [post_write_backs(workspace, t, dry_run=args.dry_run) for t in trackers]
    if args.dry_run:
        print("\n".join(dry_run_text(result) for result in results), end="")
        return 0
    print(json.dumps([result.to_json() for result in results], ensure_ascii=False, indent=2))
    return TRACKER_STOPPED if any(r.stopped or r.failed for r in results) else 0


def cmd_lookup(args: argparse.Namespace) -> int:
    from resources.world_db import WorldDatabase
    from vba_assets.domain.catalog.lookup import lookup
    from vba_assets.domain.catalog.lookup_result import render_lookup

    config = _project(args)
    database = WorldDatabase.from_config(config)
    try:
        result = lookup(
            args.query, config.catalogs, database, limit=args.limit, catalog=args.catalog
        )
    finally:
        database.close()
    print(result.model_dump_json(indent=2) if args.json else render_lookup(result))
    return 0 if result.status != "error" else 2


def cmd_demo(args: argparse.Namespace) -> int:
    """Import every packaged sample report into the workspace (idempotent)."""
    from vba_assets.intake import import_report
    from vba_assets.samples import sample_report_paths

    workspace = _workspace(args)
    for path in sample_report_paths():
        print(import_report(workspace, path))
    print(f"workspace: {workspace.root}")
    return 0


def cmd_worlddb(args: argparse.Namespace) -> int:
    import time

    from vba_assets.worlddata.build import demo_database_path, ensure_demo_database

    building = not demo_database_path().is_file()
    started = time.monotonic()
    if building:  # progress on stderr: stdout stays the path alone
        print("vba worlddb: building the demo world DB (5-20 s) ...", file=sys.stderr, flush=True)
    path = ensure_demo_database()
    if building:
        print(f"vba worlddb: done in {time.monotonic() - started:.1f} s", file=sys.stderr)
    print(path)
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """List the cache directory's files with their status; ``--prune`` deletes the stale ones."""
    from resources.cache_files import prune, scan_cache
    from vba_assets.worlddata.build import cache_dir

    files = scan_cache()
    removed = prune(files) if args.prune else []
    if args.json:
        rows = [
            {"path": str(f.path), "size": f.size, "status": f.status, "why": f.why} for f in files
        ]
        print(
            json.dumps(
                {
                    "cache_dir": str(cache_dir()),
                    "files": rows,
                    "removed": [str(f.path) for f in removed],
                },
                indent=2,
            )
        )
        return 0
    for file in files:
        gone = " (removed)" if file in removed else ""
        print(f"{file.status:<11} {file.size / 1e6:8.1f} MB  {file.path}{gone}  [{file.why}]")
    stale = [f for f in files if f.status == "stale"]
    total = sum(f.size for f in files) / 1e6
    print(
        f"{cache_dir()}: {len(files)} files, {total:.1f} MB; {len(stale)} stale, "
        f"{sum(f.size for f in stale) / 1e6:.1f} MB"
        + (f", {len(removed)} removed" if args.prune else " (`vba cache --prune` deletes them)")
    )
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Prove case packages from their own bytes (no API, no DB): exit 5 on any error finding."""
    from vba_assets.pipeline.verification import verify_case, verify_workspace

    workspace = _workspace(args)
    if args.revision and not args.case_id:
        print("vba: error: --revision needs --case-id", file=sys.stderr)
        return 2
    if workspace.bucket is not None:  # the bucket's bytes, each case from a fresh download
        from vba_assets.package_transfer import verify_from_bucket

        ids = [args.case_id] if args.case_id else None
        return _print_verified(args, verify_from_bucket(workspace.bucket, ids, args.revision))
    if args.case_id:
        package = workspace.case(args.case_id)
        _require_case(package)
        if args.revision:
            _require_revision(package, args.revision)
        reports = [verify_case(package, [args.revision] if args.revision else None)]
    else:
        reports = verify_workspace(workspace)
    return _print_verified(args, reports)


def _print_verified(args: argparse.Namespace, reports: Sequence[Any]) -> int:
    error_count = sum(len([f for f in r.all_findings() if f.is_error]) for r in reports)
    if args.json:
        document = {
            "ok": error_count == 0,
            "errors": error_count,
            "cases": [report.to_json() for report in reports],
        }
        print(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        print("\n".join(_verify_lines(reports, error_count)))
    return 0 if error_count == 0 else 5


def cmd_export(args: argparse.Namespace) -> int:
    """``vba export --to DIR``: the bucket's packages into ``DIR/cases/``, verified there."""
    from vba_assets.package_transfer import export_cases

    ids = [args.case_id] if args.case_id else None
    copied = export_cases(_bucket(args), Path(args.to).resolve(), ids)
    for item in copied:
        print(item.transfer.line())
    return _print_verified(args, [item.report for item in copied])


def cmd_import_package(args: argparse.Namespace) -> int:
    """``vba import-package DIR``: a verified local case folder into the bucket, verified there."""
    from vba_assets.package_transfer import import_package

    copied = import_package(_bucket(args), Path(args.package))
    print(copied.transfer.line())
    return _print_verified(args, [copied.report])


def _require_case(package: Any) -> None:
    """``ARTIFACT_MISSING`` (exit 5) for a case that is not there; whatever is at ``case.json``
    otherwise (a FIFO, a device) is never opened here: the verification reports it."""

    if not os.path.lexists(package.path("case.json")):
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} has no artifact case.json",
            case_id=package.case_id,
            relpath="case.json",
        )


def _require_revision(package: Any, revision: str) -> None:
    from vba_assets.store.layout import RevisionLayout

    if not package.path(RevisionLayout(revision).dir).is_dir():
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} has no revision {revision}",
            case_id=package.case_id,
            revision=revision,
        )


def _verify_lines(reports: Sequence[Any], error_count: int) -> list[str]:
    """One block per case and revision: ``ok`` lines only for what has no finding."""
    lines = []
    revisions = 0
    for report in reports:
        state = "ok" if not [f for f in report.findings if f.is_error] else "FAILED"
        lines.append(f"{report.case_id}  package  {state}")
        lines += [f"  {_label(f)}  {f.line()}" for f in report.findings]
        for revision in report.revisions:
            revisions += 1
            state = "ok" if revision.ok else "FAILED"
            lines.append(f"{report.case_id}  revision {revision.revision}  {state}")
            lines += [f"  ok     {line}" for line in revision.checked]
            lines += [f"  {_label(f)}  {f.line()}" for f in revision.findings]
    lines.append(
        f"verified {len(reports)} case(s), {revisions} revision(s): {error_count} error(s)"
    )
    return lines


def _label(finding: Any) -> str:
    return "ERROR" if finding.is_error else "info "


def cmd_trial_run(args: argparse.Namespace) -> int:
    from vba_assets.llm_config import load_llm_config
    from vba_assets.pipeline.trial import run_trial

    workspace = _workspace(args)
    package = workspace.case(args.case_id)
    revision = args.revision or (package.revisions() or ["0001"])[-1]
    report = run_trial(
        workspace,
        args.case_id,
        revision,
        _project(args),
        load_llm_config(args.llm_config),
        stop_after=args.stop_after,
        max_dispatches=args.max_dispatches,
        package_id=args.package_id,
        progress=lambda line: print(f"vba trial run: {line}", file=sys.stderr, flush=True),
    )
    print("\n".join(report.lines()))
    return 0


def cmd_blocked(args: argparse.Namespace) -> int:
    from vba_assets.domain.clock import utc_now
    from vba_assets.pipeline.blocked import blocked_lines, blocked_revisions

    blocks = blocked_revisions(_workspace(args), args.case_id)
    if args.json:
        print(json.dumps([b.to_json() for b in blocks], indent=2, ensure_ascii=False))
    else:
        print("\n".join(blocked_lines(blocks, utc_now())))
    return 0


def cmd_resume(args: argparse.Namespace) -> int:
    from vba_assets.pipeline.blocked import resume_blocked

    line = resume_blocked(
        _workspace(args), args.case_id, _project(args), args.llm_config, args.max_dispatches
    )
    print(line)
    return 0


def cmd_revision_new(args: argparse.Namespace) -> int:
    package = _workspace(args).case(args.case_id)
    package.read_bytes("case.json")  # the case must have been imported
    print(package.new_revision(args.reason or "vba revision new"))
    return 0


def cmd_context_show(args: argparse.Namespace) -> int:
    from vba_assets.context_show import show_context

    workspace = _workspace(args)
    print(show_context(workspace.root, args.case_id, args.revision, args.stage, args.json), end="")
    return 0


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


if __name__ == "__main__":
    raise SystemExit(main())
