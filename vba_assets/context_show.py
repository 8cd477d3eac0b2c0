"""``vba context show``: the context manifests of a revision's model requests, as a table or JSON.

Reads a case package only (no model, no database), through the revision's frozen inputs. Each
dispatch record (``dispatches/<stage>-<n>.json``) has its manifest beside it
(``<stage>-<n>.manifest.json``, written by the recorder). For a revision recorded before manifests existed, the manifest is
computed now from the recorded request and the items the frozen artifacts rebuild, and marked so;
nothing is written.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.prompting.items import ContextItem
from vba_assets.domain.prompting.manifest import ContextManifest, account_lines
from vba_assets.domain.prompting.requests import request_items_for
from vba_assets.domain.stages import MODEL_STAGES, Stage
from vba_assets.errors import ErrorCode, InputError, StoreError
from vba_assets.pipeline.frozen_revision import FrozenRevision, load_frozen
from vba_assets.pipeline.previews import manifest_rows, summary_lines
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.stage_requests import rebuild_request
from vba_assets.store import CasePackage, Workspace
from vba_assets.store.layout import CASE_JSON

#: The stages ``--stage`` accepts.
STAGE_CHOICES = tuple(stage.value for stage in MODEL_STAGES)


@dataclass(frozen=True)
class ShownDispatch:
    """One dispatch and its manifest; ``computed`` when no manifest file was recorded."""

    record_relpath: str
    manifest_relpath: str
    manifest: ContextManifest
    computed: bool


def revision_manifests(
    package: CasePackage, revision: str, stage: str | None = None
) -> list[ShownDispatch]:
    """Every dispatch of a revision (plan, assessment, interpretation; attempt order).

    Raises:
        InputError: ``INVALID_STAGE`` for a stage that is not a model stage.
        StoreError: ``ARTIFACT_MISSING`` when the revision has no dispatch (of that stage).
    """
    if stage is not None and stage not in STAGE_CHOICES:
        raise InputError(
            ErrorCode.INVALID_STAGE,
            f"--stage must be one of {', '.join(STAGE_CHOICES)}, not {stage!r}",
        )
    rev = load_frozen(package, revision)
    shown: list[ShownDispatch] = []
    for model_stage in MODEL_STAGES:
        if stage is not None and model_stage.value != stage:
            continue
        recorder = PackageRecorder(package, rev.layout, model_stage)
        rebuilt: list[ContextItem] | None = None
        for record in recorder.records():
            shown_dispatch, rebuilt = _shown(rev, recorder, record, rebuilt)
            shown.append(shown_dispatch)
    if not shown:
        what = f"stage {stage}" if stage else "any stage"
        raise StoreError(
            ErrorCode.ARTIFACT_MISSING,
            f"case {package.case_id} revision {rev.revision} has no model dispatch of {what}",
            case_id=package.case_id,
            revision=rev.revision,
        )
    return shown


def _shown(
    rev: FrozenRevision,
    recorder: PackageRecorder,
    record: DispatchRecord,
    rebuilt: list[ContextItem] | None,
) -> tuple[ShownDispatch, list[ContextItem] | None]:
    stage = Stage(record.stage)
    relpath = rev.layout.dispatch(stage, record.attempt)
    target = rev.layout.manifest(stage, record.attempt)
    if rev.package.exists(target):
        try:
            manifest = ContextManifest.model_validate(rev.package.read_json(target))
        except ValidationError as exc:
            raise StoreError(
                ErrorCode.ARTIFACT_CORRUPT,
                f"{target} is not a context manifest: {exc.errors()[0]['msg']}",
                relpath=target,
            ) from None
        return ShownDispatch(relpath, target, manifest, computed=False), rebuilt
    if rebuilt is None:  # the items of the stage's request, rebuilt from the frozen artifacts
        request, _ = rebuild_request(rev, stage)
        rebuilt = request_items_for(request, rev.prompts)
    manifest = recorder.manifest(record, rebuilt)
    return ShownDispatch(relpath, target, manifest, computed=True), rebuilt


# --- rendering ------------------------------------------------------------------------------------


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
        *account_lines(m),
    ]
    return "\n".join(lines)


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
    package.read_bytes(CASE_JSON)  # ARTIFACT_MISSING names the case if it was never imported
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
    return "\n\n".join([header, prefix_summary(shown), *(manifest_text(s) for s in shown)]) + "\n"


def prefix_summary(shown: Sequence[ShownDispatch]) -> str:
    """One line: the static prefix share of each request (what a provider's prompt cache can hold)."""
    shares = ", ".join(
        f"{s.manifest.stage} #{s.manifest.attempt} {s.manifest.static_prefix_share:.1%}"
        for s in shown
    )
    return f"static prefix share (cacheable, before the first per-case item): {shares}"
