"""``vba context show``: the context manifests of a revision's model requests, as a table or JSON.

Reads a case package only (no model, no database). Each dispatch record
(``dispatches/<stage>-<n>.json``) has its manifest beside it (``<stage>-<n>.manifest.json``,
written by the recorder). For a revision recorded before manifests existed, the manifest is
computed now from the recorded request and the items the frozen artifacts rebuild, and marked so;
nothing is written.
"""

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from vba_assets.domain.case.ids import validate_revision
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.prompting.items import LIFECYCLES, ContextItem
from vba_assets.domain.prompting.manifest import (
    TOKEN_ESTIMATOR,
    ContextManifest,
    estimate_tokens,
    manifest_relpath,
)
from vba_assets.domain.prompting.prompts import load_prompt_set
from vba_assets.domain.prompting.requests import request_items_for
from vba_assets.errors import ErrorCode, InputError, StoreError, VbaError
from vba_assets.pipeline.artifacts import load_candidate_index, load_plan, load_resolution_context
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.replay import replay_env
from vba_assets.pipeline.requests import assessment_request, interpretation_request, plan_request
from vba_assets.pipeline.revision import RevisionEnv, interpretation_input, resolution_input
from vba_assets.store import CasePackage, Workspace

STAGES = ("resolution_plan", "resolution_assessment", "interpretation")


@dataclass(frozen=True)
class ShownDispatch:
    """One dispatch and its manifest; ``computed`` when no manifest file was recorded."""

    record_relpath: str
    manifest_relpath: str
    manifest: ContextManifest
    computed: bool


def _rebuilt_items(env: RevisionEnv, stage: str) -> list[ContextItem]:
    """The items of a stage's request, rebuilt from the revision's frozen artifacts."""
    if stage == "interpretation":
        request, _ = interpretation_request(env, load_resolution_context(env))
    elif stage == "resolution_plan":
        request, _ = plan_request(env, resolution_input(env, None))
    else:
        plan, index = load_plan(env), load_candidate_index(env)
        if plan is None or index is None:
            raise StoreError(
                ErrorCode.ARTIFACT_MISSING,
                f"{stage}: no accepted plan and candidate index to rebuild its request from",
            )
        request, _ = assessment_request(env, resolution_input(env, None), plan, index)
    return request_items_for(request, load_prompt_set(interpretation_input(env).prompt_version))


def revision_manifests(
    package: CasePackage, revision: str, stage: str | None = None
) -> list[ShownDispatch]:
    """Every dispatch of a revision (plan, assessment, interpretation; attempt order).

    Raises:
        InputError: ``INVALID_STAGE`` for a stage that is not a model stage.
        StoreError: ``ARTIFACT_MISSING`` when the revision has no dispatch (of that stage).
    """
    if stage is not None and stage not in STAGES:
        raise InputError(
            ErrorCode.INVALID_STAGE, f"--stage must be one of {', '.join(STAGES)}, not {stage!r}"
        )
    env = replay_env(package, validate_revision(revision))
    shown: list[ShownDispatch] = []
    rebuilt: dict[str, list[ContextItem]] = {}
    for base in (env.er_dir, env.rev_dir):
        recorder = PackageRecorder(package, env.revision, base)
        for record in recorder.all_records():
            if stage is not None and record.stage != stage:
                continue
            relpath = f"{base}/dispatches/{record.stage}-{record.attempt}.json"
            shown.append(_shown(env, recorder, record, relpath, rebuilt))
    if not shown:
        what = f"stage {stage}" if stage else "any stage"
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} revision {env.revision} has no model dispatch of {what}",
            case_id=package.case_id,
            revision=env.revision,
        )
    return sorted(shown, key=lambda s: (STAGES.index(s.manifest.stage), s.manifest.attempt))


def _shown(
    env: RevisionEnv,
    recorder: PackageRecorder,
    record: DispatchRecord,
    relpath: str,
    rebuilt: dict[str, list[ContextItem]],
) -> ShownDispatch:
    target = manifest_relpath(relpath)
    if env.package.exists(target):
        try:
            manifest = ContextManifest.model_validate(env.package.read_json(target))
        except ValidationError as exc:
            raise StoreError(
                ErrorCode.ARTIFACT_CORRUPT,
                f"{target} is not a context manifest: {exc.errors()[0]['msg']}",
                relpath=target,
            ) from None
        return ShownDispatch(relpath, target, manifest, computed=False)
    if record.stage not in rebuilt:
        rebuilt[record.stage] = _rebuilt_items(env, record.stage)
    return ShownDispatch(relpath, target, recorder.manifest(record, rebuilt[record.stage]), True)


# --- rendering ------------------------------------------------------------------------------------


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def manifest_rows(manifest: ContextManifest) -> list[list[str]]:
    """Rows: item, lifecycle, source, insertions, chars of one, chars of all, ~tokens of all."""
    rows = [
        [
            i.name,
            i.lifecycle,
            i.source,
            str(i.insertions),
            str(i.chars),
            str(i.total_chars),
            str(i.est_tokens),
        ]
        for i in manifest.items
    ]
    glue, total = manifest.unaccounted_chars, manifest.total_chars
    rows.append(
        ["(template glue)", "unaccounted", "", "", "", str(glue), str(estimate_tokens(glue))]
    )
    rows.append(["total", "", "", "", "", str(total), str(manifest.total_est_tokens)])
    return rows


def summary_lines(manifest: ContextManifest) -> list[str]:
    """Lifecycle shares, the static prefix, the provider's own usage and the estimator."""
    total = manifest.total_chars
    by_lifecycle = manifest.chars_by_lifecycle
    shares = ", ".join(
        f"{name} {by_lifecycle[name]} ({_percent(by_lifecycle[name], total)})"
        for name in (*LIFECYCLES, "unaccounted")
        if by_lifecycle.get(name)
    )
    first = manifest.first_non_static
    where = f"before {first}" if first else "the whole request"
    usage = manifest.provider_usage
    reported = (
        ", ".join(
            f"{name} {value}" for name, value in usage.model_dump().items() if value is not None
        )
        if usage and usage.input is not None
        else "not reported"
    )
    return [
        f"by lifecycle (chars): {shares}",
        f"static prefix: {manifest.static_prefix_chars} chars "
        f"({_percent(manifest.static_prefix_chars, total)}), {where}: provider prompt caching "
        "can apply to it",
        f"provider-reported tokens: {reported}",
        f"~tokens = {TOKEN_ESTIMATOR}",
    ]


def _text_table(rows: Sequence[Sequence[str]]) -> list[str]:
    headers = ["item", "lifecycle", "source", "ins", "each", "chars", "~tokens"]
    widths = [max(len(r[c]) for r in [headers, *rows]) for c in range(len(headers))]
    numeric = {3, 4, 5, 6}

    def line(row: Sequence[str]) -> str:
        cells = [
            cell.rjust(widths[c]) if c in numeric else cell.ljust(widths[c])
            for c, cell in enumerate(row)
        ]
        return "  ".join(cells).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def manifest_text(shown: ShownDispatch) -> str:
    """One dispatch's manifest as a readable text table."""
    m = shown.manifest
    note = " (computed now: no manifest was recorded)" if shown.computed else ""
    channels = ", ".join(f"{c.channel} {c.chars}" for c in m.channels)
    lines = [
        f"== {m.stage} attempt {m.attempt} ({m.outcome}): provider {m.provider}, model "
        f"{m.model}, protocol v{m.protocol_version}",
        f"   request sha256 {m.request_sha256}",
        f"   manifest {shown.manifest_relpath}{note}",
        f"   channels (chars): {channels}",
        "",
        *_text_table(manifest_rows(m)),
        "",
        *summary_lines(m),
    ]
    return "\n".join(lines)


def manifest_markdown(manifest: ContextManifest) -> str:
    """The manifest table as markdown (the Dagster stage preview)."""
    headers = ["item", "lifecycle", "source", "insertions", "each", "chars", "~tokens"]
    rows = [[cell.replace("|", "\\|") for cell in row] for row in manifest_rows(manifest)]
    table = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    title = f"**Context manifest** of the accepted request (attempt {manifest.attempt})"
    return "\n".join([title, "", *table, "", *(f"- {line}" for line in summary_lines(manifest))])


def accepted_manifest_markdown(package: CasePackage, stage_artifact: str) -> str | None:
    """The manifest table of the dispatch a stage artifact accepted (``plan.json``,
    ``assessment.json``, ``interpretation.json``); None without one (or recorded before
    manifests existed)."""
    doc = package.read_json(stage_artifact)
    dispatch = doc.get("accepted_dispatch") if isinstance(doc, dict) else None
    if not isinstance(dispatch, str):
        return None
    target = manifest_relpath(f"{stage_artifact.rsplit('/', 1)[0]}/{dispatch}")
    if not package.exists(target):
        return None
    return manifest_markdown(ContextManifest.model_validate(package.read_json(target)))


def show_context(
    workspace_root: Path | str,
    case_id: str,
    revision: str,
    stage: str | None = None,
    as_json: bool = False,
) -> str:
    """The manifests of a revision's model requests: readable tables, or JSON with ``as_json``.

    Raises:
        InputError: an invalid case id, revision or stage.
        StoreError: ``ARTIFACT_MISSING`` for a case that was never imported or a revision with
            no model dispatch.
    """
    package = Workspace(workspace_root).case(case_id)
    package.read_bytes("case.json")  # ARTIFACT_MISSING names the case if it was never imported
    shown = revision_manifests(package, revision, stage)
    if as_json:
        document = {
            "case_id": case_id,
            "revision": revision,
            "dispatches": [
                {
                    "record": s.record_relpath,
                    "manifest_path": s.manifest_relpath,
                    "computed": s.computed,
                    "manifest": s.manifest.model_dump(mode="json"),
                }
                for s in shown
            ],
        }
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    header = f"{case_id} revision {revision}: {len(shown)} model request(s)"
    return "\n\n".join([header, *(manifest_text(s) for s in shown)]) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m vba_assets.context_show WORKSPACE CASE_ID REVISION [STAGE] [--json]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    positional = [a for a in args if a != "--json"]
    if len(positional) not in (3, 4):
        print(main.__doc__, file=sys.stderr)
        return 2
    try:
        workspace, case_id, revision = positional[:3]
        stage = positional[3] if len(positional) == 4 else None
        sys.stdout.write(show_context(workspace, case_id, revision, stage, as_json))
    except VbaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
