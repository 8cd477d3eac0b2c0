"""Stage artifacts: each accepted (or 'disabled') artifact against its ``accepted`` event and
the frozen input, and under sealed records the dispatch, manifest and rejected records it binds."""

from typing import Any

from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.artifacts import disabled_document
from vba_assets.pipeline.integrity.ledger import Ledger, Revision, check_bound


def account_artifact(ledger: Ledger, state: Revision, stage: Stage) -> None:
    assert state.frozen is not None and state.spec is not None
    layout, spec = state.layout, state.spec
    relpath = layout.artifact(stage)
    assert relpath is not None
    accepted_events = state.named("accepted", "stage", stage.value)
    accepted_records = [
        attempt
        for (s, attempt), r in state.records.items()
        if s is stage and r.outcome == "accepted"
    ]
    if len(accepted_records) > 1:
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            layout.dispatches_dir(stage),
            f"{len(accepted_records)} accepted dispatch records of {stage.value} (attempts "
            f"{sorted(accepted_records)}); a stage accepts one reply",
        )
    if relpath not in state.files:
        for event in accepted_events:
            ledger.add(
                ErrorCode.PACKAGE_FILE_MISSING,
                relpath,
                f"the 'accepted' event (line {event['seq']}) names it",
            )
        if accepted_records and not accepted_events:
            ledger.add(
                ErrorCode.PACKAGE_RECORDS_INCOMPLETE,
                relpath,
                f"{stage.value} has an accepted dispatch but no artifact: a run killed between "
                "the two writes (resume the revision to complete it)",
            )
        return
    ledger.accounted.add(relpath)
    doc = ledger.json(relpath, f"the {stage.value} artifact")
    if not isinstance(doc, dict):
        return
    status = doc.get("status")
    if status == "disabled":
        if stage is Stage.INTERPRETATION or state.frozen.entity_resolution != "disabled":
            ledger.add(
                ErrorCode.PACKAGE_ARTIFACT_INVALID,
                relpath,
                "is 'disabled' although the revision froze entity resolution enabled",
            )
        elif doc != disabled_document(stage):
            ledger.add(ErrorCode.RECOMPUTE_MISMATCH, relpath, "is not the 'disabled' document")
        return
    if status != "accepted":
        ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, relpath, f"has status {status!r}")
        return
    if stage.is_resolution and state.frozen.entity_resolution != "enabled":
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            relpath,
            "is accepted although the revision froze entity resolution disabled",
        )
    if state.log is None:
        return
    if len(accepted_events) != 1:
        code = (
            ErrorCode.PACKAGE_EVENT_MISSING
            if not accepted_events
            else ErrorCode.PACKAGE_EVENT_INVALID
        )
        ledger.add(
            code,
            relpath,
            f"{len(accepted_events)} 'accepted' events of {stage.value} (an accepted stage has "
            "1; a missing one means a run killed before it: resume the revision)",
        )
        if not accepted_events:
            return
    event = accepted_events[0]
    line = f"the 'accepted' event (line {event['seq']})"
    if event.get("artifact") != relpath:
        ledger.add(
            ErrorCode.PACKAGE_EVENT_INVALID, relpath, f"{line} names {event.get('artifact')!r}"
        )
    sha = ledger.sha(relpath)
    if ("sha256" in event or spec.sealed_records) and event.get("sha256") != sha:
        ledger.add(
            ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
            relpath,
            f"{line} records sha256 {event.get('sha256')}, the file has {sha}: the artifact "
            "was changed after it was accepted",
        )
    if spec.sealed_records:
        _account_accepted_bindings(ledger, state, stage, doc, event, line)


def _account_accepted_bindings(
    ledger: Ledger,
    state: Revision,
    stage: Stage,
    doc: dict[str, Any],
    event: dict[str, Any],
    line: str,
) -> None:
    layout = state.layout
    name = doc.get("accepted_dispatch")
    attempt_text = (
        name.removeprefix(f"dispatches/{stage.value}-").removesuffix(".json")
        if isinstance(name, str)
        else ""
    )
    if not attempt_text.isdigit():
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            layout.artifact(stage),
            f"names no dispatch ({name!r})",
        )
        return
    attempt = int(attempt_text)
    dispatch, manifest = layout.dispatch(stage, attempt), layout.manifest(stage, attempt)
    bound = {
        "accepted_dispatch_sha256": dispatch,
        "accepted_manifest_sha256": manifest,
    }
    if event.get("accepted_dispatch") != dispatch:
        ledger.add(
            ErrorCode.PACKAGE_EVENT_INVALID,
            dispatch,
            f"{line} names {event.get('accepted_dispatch')!r}",
        )
    check_bound(ledger, line, event, bound)
    rejected = sorted(
        a
        for (s, a), r in state.records.items()
        if s is stage and r.outcome == "rejected" and a < attempt
    )
    expected = [
        {"record": layout.dispatch(stage, a), "sha256": ledger.sha(layout.dispatch(stage, a))}
        for a in rejected
    ]
    if event.get("rejected_dispatches") != expected:
        ledger.add(
            ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
            layout.rejected_dir(stage),
            f"{line} records the rejected dispatches {event.get('rejected_dispatches')}, the "
            f"package has {expected}",
        )
