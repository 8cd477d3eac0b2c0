"""The ``vba`` commands that import, sync, look up, run and show cases (the parser:
:mod:`vba_assets.cli.parser`; the package commands: :mod:`vba_assets.cli.packages`)."""

import argparse
import json
import sys
from pathlib import Path

from vba_assets.cli.common import TRACKER_STOPPED, project_of, workspace_of


def cmd_import(args: argparse.Namespace) -> int:
    from vba_assets.intake import import_report

    if args.github_issues is not None or args.report is None:
        return _import_github_issues(args)
    result = import_report(workspace_of(args), Path(args.report), package_id=args.package_id)
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
        workspace_of(args),
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

    config = project_of(args)
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

    config = project_of(args)
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

    config = project_of(args)
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

    workspace = workspace_of(args)
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


def cmd_trial_run(args: argparse.Namespace) -> int:
    from vba_assets.llm_config import load_llm_config
    from vba_assets.pipeline.trial import run_trial

    workspace = workspace_of(args)
    package = workspace.case(args.case_id)
    revision = args.revision or (package.revisions() or ["0001"])[-1]
    report = run_trial(
        workspace,
        args.case_id,
        revision,
        project_of(args),
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

    blocks = blocked_revisions(workspace_of(args), args.case_id)
    if args.json:
        print(json.dumps([b.to_json() for b in blocks], indent=2, ensure_ascii=False))
    else:
        print("\n".join(blocked_lines(blocks, utc_now())))
    return 0


def cmd_resume(args: argparse.Namespace) -> int:
    from vba_assets.pipeline.blocked import resume_blocked

    line = resume_blocked(
        workspace_of(args), args.case_id, project_of(args), args.llm_config, args.max_dispatches
    )
    print(line)
    return 0


def cmd_revision_new(args: argparse.Namespace) -> int:
    package = workspace_of(args).case(args.case_id)
    package.read_bytes("case.json")  # the case must have been imported
    print(package.new_revision(args.reason or "vba revision new"))
    return 0


def cmd_context_show(args: argparse.Namespace) -> int:
    from vba_assets.context_show import show_context

    workspace = workspace_of(args)
    print(show_context(workspace.root, args.case_id, args.revision, args.stage, args.json), end="")
    return 0
