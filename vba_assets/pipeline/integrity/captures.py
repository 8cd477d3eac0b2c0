"""Captures (each a search of the accepted plan, named by its sha256, with its ``captured``
event) and the recomputed artifacts of entity resolution (the candidate index and the F/N/D
context: whether they may exist, and whether a completed revision lacks one)."""

import re
from typing import Any

from vba_assets.domain.canonical import sha256_hex
from vba_assets.domain.resolution.batched import planned_searches
from vba_assets.domain.resolution.models import CaptureArtifact, ResolutionPlanOutput
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.artifacts import disabled_document
from vba_assets.pipeline.integrity.ledger import Ledger, Revision

_CAPTURE_NAME = re.compile(r"^[0-9a-f]{64}\.json$")


def _plan_searches(ledger: Ledger, state: Revision) -> dict[str, Any] | None:
    doc = ledger.package.read_json(state.layout.plan) if state.layout.plan in state.files else None
    if not isinstance(doc, dict) or doc.get("status") != "accepted":
        return None
    plan = ResolutionPlanOutput.model_validate(doc["plan"])
    assert state.spec is not None
    return dict(planned_searches(plan, state.spec.batched_exact_names))


def account_captures(ledger: Ledger, state: Revision) -> None:
    assert state.spec is not None
    layout = state.layout
    prefix = f"{layout.captures_dir}/"
    captures = sorted(f for f in state.files if f.startswith(prefix))
    if not captures:
        return
    searches = _plan_searches(ledger, state) or {}
    captured = [e for e in state.events if e["event"] == "captured"]
    events = {e.get("capture"): e for e in captured}
    for relpath in sorted({str(e.get("capture")) for e in captured}):
        lines = [e["seq"] for e in captured if e.get("capture") == relpath]
        if len(lines) > 1:
            ledger.add(
                ErrorCode.PACKAGE_EVENT_INVALID,
                relpath,
                f"'captured' events on lines {lines} name this capture (a capture is made once)",
            )
    claimed: dict[str, str] = {}
    expected_schema = 1 if state.spec.timing_in_content else 2
    for relpath in captures:
        name = relpath.removeprefix(prefix)
        if "/" in name or not _CAPTURE_NAME.match(name):
            continue  # unreferenced
        if sha256_hex(ledger.package.read_bytes(relpath)) != name.removesuffix(".json"):
            ledger.accounted.add(relpath)  # PACKAGE_HASH_MISMATCH, from the store's verification
            continue
        capture = ledger.model(relpath, CaptureArtifact, "the capture")
        if capture is None:
            ledger.accounted.add(relpath)
            continue
        search = searches.get(capture.search_id)
        if search is None or search != capture.search or capture.key in claimed:
            continue  # a capture of no search of the accepted plan, or a second one: unreferenced
        if capture.kind is not None and not state.spec.exact_name_coverage:
            continue  # an exact-name capture in a revision whose protocol has none: unreferenced
        claimed[capture.key] = relpath
        ledger.accounted.add(relpath)
        if capture.schema_version != expected_schema:
            ledger.add(
                ErrorCode.PACKAGE_ARTIFACT_INVALID,
                relpath,
                f"capture schema_version {capture.schema_version}; protocol v{state.spec.version} "
                f"writes {expected_schema}",
            )
        event = events.get(relpath)
        if state.log is None:
            continue
        if event is None:
            ledger.add(
                ErrorCode.PACKAGE_EVENT_MISSING,
                relpath,
                f"no 'captured' event names the capture of {capture.search_id} (a run killed "
                "before its event: resume the revision)",
            )
        elif (
            event.get("search_id"),
            event.get("rows"),
            event.get("truncated"),
            event.get("kind"),
        ) != (
            capture.search_id,
            len(capture.result.rows),
            capture.result.truncated,
            capture.kind,
        ):
            ledger.add(
                ErrorCode.PACKAGE_EVENT_INVALID,
                relpath,
                f"the 'captured' event (line {event['seq']}) disagrees with the capture",
            )
    for named_path, event in events.items():
        if isinstance(named_path, str) and named_path not in state.files:
            ledger.add(
                ErrorCode.PACKAGE_FILE_MISSING,
                named_path,
                f"the 'captured' event (line {event['seq']}) names it",
            )


def account_derived(ledger: Ledger, state: Revision) -> None:
    """candidates.json and context.json: recomputed by the replay verifiers; here only whether
    they may exist, and whether a completed revision lacks one."""
    assert state.frozen is not None
    layout = state.layout
    enabled = state.frozen.entity_resolution == "enabled"
    if not enabled:  # everything of entity resolution is the 'disabled' document, or absent
        if layout.candidates in state.files:
            ledger.accounted.add(layout.candidates)
            doc = ledger.json(layout.candidates, "the candidate index")
            if doc is not None and doc != disabled_document(Stage.CANDIDATE_INDEX):
                ledger.add(
                    ErrorCode.RECOMPUTE_MISMATCH,
                    layout.candidates,
                    "the revision froze entity resolution disabled, so this is the 'disabled' "
                    "document, and it is not",
                )
        # a context.json here is accounted for by nothing: reported as unreferenced
    else:
        plan = ledger.package.read_json(layout.plan) if layout.plan in state.files else None
        for relpath in (layout.candidates, layout.context):
            if relpath not in state.files:
                continue
            ledger.accounted.add(relpath)
            doc = ledger.json(relpath, "the derived artifact")
            if isinstance(doc, dict) and doc.get("status") == "disabled":
                ledger.add(
                    ErrorCode.PACKAGE_ARTIFACT_INVALID,
                    relpath,
                    "is 'disabled' in a revision with entity resolution",
                )
            elif not (isinstance(plan, dict) and plan.get("status") == "accepted"):
                ledger.add(
                    ErrorCode.PACKAGE_ARTIFACT_INVALID,
                    relpath,
                    "exists without an accepted plan to be recomputed from",
                )
    if layout.interpretation in state.files:
        required = [layout.plan, layout.candidates, layout.assessment]
        if enabled:
            required.append(layout.context)
        for relpath in required:
            if relpath not in state.files:
                ledger.add(
                    ErrorCode.PACKAGE_FILE_MISSING,
                    relpath,
                    "the revision has an interpretation, so every stage before it is complete",
                )
    elif enabled and layout.assessment in state.files and layout.context not in state.files:
        ledger.add(
            ErrorCode.PACKAGE_RECORDS_INCOMPLETE,
            layout.context,
            "the assessment is accepted but its F/N/D context was not written (resume the "
            "revision to complete it)",
        )
