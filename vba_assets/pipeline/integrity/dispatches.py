"""Dispatch records: each record against its frozen input and its event, the rejected record
recomputed from it, its context manifest, and every event that names a record."""

import re

from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.integrity.ledger import Ledger, Revision, check_bound

#: Fields of a context manifest that must equal its dispatch record's.
_MANIFEST_IDENTITY = ("stage", "attempt", "request_sha256", "outcome", "provider", "model")


def account_dispatches(ledger: Ledger, state: Revision, stage: Stage) -> None:
    assert state.frozen is not None and state.spec is not None
    layout = state.layout
    folder = layout.dispatches_dir(stage)
    pattern = re.compile(rf"^{re.escape(folder)}/{stage.value}-(?P<n>[1-9][0-9]*)\.json$")
    for relpath in sorted(state.files):
        match = pattern.match(relpath)
        if match is None:
            continue
        attempt = int(match["n"])
        ledger.accounted.add(relpath)
        record = ledger.model(relpath, DispatchRecord, "the dispatch record")
        if record is None:
            continue
        state.records[(stage, attempt)] = record
        _account_record(ledger, state, stage, attempt, relpath, record)
    # events naming records that are not there
    for event in state.events:
        if event["event"] not in ("dispatched", "rejected") or event.get("stage") != stage.value:
            continue
        named_attempt = event.get("attempt")
        if not isinstance(named_attempt, int) or (stage, named_attempt) not in state.records:
            named = event.get("record")
            if not (isinstance(named, str) and named in state.files):
                ledger.add(
                    ErrorCode.PACKAGE_FILE_MISSING,
                    named if isinstance(named, str) else layout.events,
                    f"event line {event['seq']} names this {stage.value} dispatch record",
                )


def _account_record(
    ledger: Ledger,
    state: Revision,
    stage: Stage,
    attempt: int,
    relpath: str,
    record: DispatchRecord,
) -> None:
    assert state.frozen is not None and state.spec is not None
    layout, frozen, spec = state.layout, state.frozen, state.spec
    if record.stage != stage.value or record.attempt != attempt:
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            relpath,
            f"holds stage {record.stage!r} attempt {record.attempt}, not what its name says",
        )
    expected_version = 1 if spec.timing_in_content else 2
    frozen_mismatch = []
    if record.record_version != expected_version:
        frozen_mismatch.append(
            f"record_version {record.record_version} (protocol v{spec.version} writes {expected_version})"
        )
    if record.protocol_version != frozen.protocol_version:
        frozen_mismatch.append(
            f"protocol_version {record.protocol_version} (frozen {frozen.protocol_version})"
        )
    if record.model != frozen.model:
        frozen_mismatch.append(f"model {record.model!r} (frozen {frozen.model!r})")
    if record.parameters != frozen.parameters:
        frozen_mismatch.append(f"parameters {record.parameters} (frozen {frozen.parameters})")
    for what in frozen_mismatch:
        ledger.add(
            ErrorCode.PACKAGE_FROZEN_INPUT_MISMATCH,
            relpath,
            f"the dispatch record holds {what}",
        )
    sha = ledger.sha(relpath)
    # the rejected record: recomputed from the dispatch record
    rejected_path = layout.rejected(stage, attempt)
    rejected = record.rejected_record()
    if rejected is not None:
        ledger.accounted.add(rejected_path)
        if rejected_path not in state.files:
            ledger.add(ErrorCode.PACKAGE_FILE_MISSING, rejected_path, f"{relpath} was rejected")
        elif ledger.package.read_bytes(rejected_path) != canonical_bytes(
            rejected.model_dump(mode="json")
        ):
            ledger.add(
                ErrorCode.RECOMPUTE_MISMATCH,
                rejected_path,
                f"differs from the rejected reply its dispatch record {relpath} holds",
            )
    # the context manifest: its identity fields are the record's
    manifest_path = layout.manifest(stage, attempt)
    if manifest_path in state.files:
        ledger.accounted.add(manifest_path)
        manifest = ledger.json(manifest_path, "the context manifest")
        if isinstance(manifest, dict):
            differ = [
                key for key in _MANIFEST_IDENTITY if manifest.get(key) != getattr(record, key)
            ]
            if differ:
                ledger.add(
                    ErrorCode.RECOMPUTE_MISMATCH,
                    manifest_path,
                    f"its {', '.join(differ)} differ from its dispatch record {relpath}",
                )
    elif spec.sealed_records:
        ledger.add(
            ErrorCode.PACKAGE_FILE_MISSING,
            manifest_path,
            f"every dispatch has its context manifest ({relpath} has none)",
        )
    else:
        ledger.add(
            ErrorCode.PACKAGE_FILE_MISSING,
            manifest_path,
            f"{relpath} has no context manifest (revisions before protocol v4 may predate them)",
            severity="info",
        )
    # its event
    if state.log is None:
        return
    events = [
        e
        for e in state.events
        if e["event"] in ("dispatched", "rejected")
        and e.get("stage") == stage.value
        and e.get("attempt") == attempt
    ]
    if not events:
        ledger.add(
            ErrorCode.PACKAGE_EVENT_MISSING,
            relpath,
            "no 'dispatched'/'rejected' event names this record: a run killed before its event "
            "(resume the revision to complete it) or an injected record",
        )
        return
    if len(events) > 1:
        ledger.add(
            ErrorCode.PACKAGE_EVENT_INVALID,
            relpath,
            f"{len(events)} events name attempt {attempt} of {stage.value}",
        )
    event = events[0]
    line = f"event line {event['seq']}"
    if event.get("record") != relpath or event.get("outcome") != record.outcome:
        ledger.add(
            ErrorCode.PACKAGE_EVENT_INVALID,
            relpath,
            f"{line} names {event.get('record')!r} with outcome {event.get('outcome')!r}; the "
            f"record says {record.outcome!r}",
        )
    if event.get("sha256") != sha:
        ledger.add(
            ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
            relpath,
            f"{line} records sha256 {event.get('sha256')}, the file has {sha}: the record was "
            "changed after it was written",
        )
    expected_event = "rejected" if record.outcome == "rejected" else "dispatched"
    if event["event"] != expected_event:
        ledger.add(
            ErrorCode.PACKAGE_EVENT_INVALID,
            relpath,
            f"{line} is a {event['event']!r} event for a {record.outcome} record",
        )
    if spec.sealed_records:
        bound = {"manifest_sha256": manifest_path}
        if rejected is not None:
            bound["rejected_sha256"] = rejected_path
        check_bound(ledger, line, event, bound)
