"""One revision: its lifecycle log and hash chain, its frozen inputs (compared with ``case.json``
and with each other) and its ``started`` event; :func:`account_revision` runs these and the
accounting of its dispatch records, stage artifacts, captures and derived files."""

from functools import partial
from typing import Any

from pydantic import ValidationError

from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.findings import Finding
from vba_assets.domain.frozen_inputs import InterpretationInput, ResolutionInput
from vba_assets.domain.protocol import protocol
from vba_assets.domain.stages import MODEL_STAGES
from vba_assets.errors import ErrorCode, StoreError, VbaError
from vba_assets.pipeline.integrity.artifacts import account_artifact
from vba_assets.pipeline.integrity.captures import account_captures, account_derived
from vba_assets.pipeline.integrity.dispatches import account_dispatches
from vba_assets.pipeline.integrity.ledger import Ledger, Revision, safely
from vba_assets.store import CasePackage
from vba_assets.store.events import parse_event_log
from vba_assets.store.layout import (
    FIRST_REPORT_VERSION,
    PACKAGE_JSON,
    RevisionLayout,
    case_json,
    version_record,
)
from vba_assets.store.versions import REPORT_VERSION_FIELD, require_version


def account_revision(package: CasePackage, revision: str) -> list[Finding]:
    """Every file of one revision accounted for (see the package docstring)."""
    ledger = Ledger(package)
    layout = RevisionLayout(revision)
    state = Revision(layout, set(package.list_dir(layout.dir, recursive=True)))
    safely(ledger, layout.events, lambda: _account_log(ledger, state))
    safely(ledger, layout.input, lambda: _account_inputs(ledger, state))
    if state.frozen is not None and state.spec is not None:
        for stage in MODEL_STAGES:
            safely(
                ledger,
                layout.dispatches_dir(stage),
                partial(account_dispatches, ledger, state, stage),
            )
        for stage in MODEL_STAGES:
            safely(
                ledger,
                str(layout.artifact(stage)),
                partial(account_artifact, ledger, state, stage),
            )
        safely(ledger, layout.captures_dir, lambda: account_captures(ledger, state))
        safely(ledger, layout.er_dir, lambda: account_derived(ledger, state))
    elif layout.input in state.files:
        ledger.accounted |= state.files  # unreadable frozen input: nothing else can be judged
    for relpath in sorted(state.files - ledger.accounted):
        ledger.add(
            ErrorCode.PACKAGE_UNREFERENCED_FILE,
            relpath,
            "no record of the revision accounts for this file (an injected or misplaced file)",
        )
    return ledger.findings


def _account_log(ledger: Ledger, state: Revision) -> None:
    relpath = state.layout.events
    ledger.accounted.add(relpath)
    if relpath not in state.files:
        if state.files:
            ledger.add(
                ErrorCode.PACKAGE_FILE_MISSING,
                relpath,
                "the revision holds files but no lifecycle log",
            )
        return
    try:
        state.log = parse_event_log(ledger.package.read_bytes(relpath), relpath)
    except StoreError:
        return  # PACKAGE_EVENTS_INVALID, from the store's own verification
    _account_binding(ledger, state)


def _account_binding(ledger: Ledger, state: Revision) -> None:
    """The report version the ``created`` event binds: a complete version of the case."""
    created = [e for e in state.events if e["event"] == "created"]
    version = created[0].get(REPORT_VERSION_FIELD, FIRST_REPORT_VERSION) if created else None
    if version is None or version == FIRST_REPORT_VERSION:
        return
    try:
        state.report_version = require_version(ledger.package, str(version))
    except VbaError as exc:
        ledger.add(
            ErrorCode.PACKAGE_EVENT_INVALID,
            state.layout.events,
            f"the 'created' event binds report version {version!r}: {exc.message}",
        )


def _account_inputs(ledger: Ledger, state: Revision) -> None:
    package, layout = ledger.package, state.layout
    started = [e for e in state.events if e["event"] == "started"]
    if layout.input not in state.files:
        if started:
            ledger.add(ErrorCode.PACKAGE_FILE_MISSING, layout.input, "the 'started' event names it")
        return
    ledger.accounted.add(layout.input)
    frozen = ledger.model(layout.input, InterpretationInput, "the frozen interpretation input")
    if frozen is None:
        return
    try:
        spec = protocol(frozen.protocol_version)
    except StoreError as exc:
        ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, layout.input, exc.message)
        return
    state.frozen, state.spec = frozen, spec
    _check_chain(ledger, state)
    mismatch: list[str] = []
    if frozen.case_id != package.case_id:
        mismatch.append(f"case_id {frozen.case_id!r} (the package is {package.case_id})")
    if frozen.revision != layout.revision:
        mismatch.append(f"revision {frozen.revision!r} (the folder is {layout.revision})")
    case_relpath = case_json(state.report_version)  # the bound version's, not the top-level one
    case_sha = ledger.sha(case_relpath)
    if case_sha is not None and frozen.case_sha256 != case_sha:
        mismatch.append(f"case_sha256 {frozen.case_sha256} ({case_relpath} has {case_sha})")
    case_doc = _case_doc(ledger, case_relpath)
    if case_doc is not None:
        anchor = (case_doc.get("reported_at"), case_doc.get("reported_at_offset"))
        if (frozen.reported_at, frozen.reported_at_offset) != anchor:
            mismatch.append(
                f"clock anchor {frozen.reported_at} {frozen.reported_at_offset} ({case_relpath} "
                f"says {anchor[0]} {anchor[1]})"
            )
    for what in mismatch:
        ledger.add(
            ErrorCode.PACKAGE_FROZEN_INPUT_MISMATCH,
            layout.input,
            f"the frozen input records {what}",
        )
    _account_started(ledger, state, started)
    _account_resolution_input(ledger, state)


def _case_doc(ledger: Ledger, relpath: str) -> dict[str, Any] | None:
    try:
        doc = ledger.package.read_json(relpath)
    except VbaError:
        return None
    return doc if isinstance(doc, dict) else None


def _check_chain(ledger: Ledger, state: Revision) -> None:
    assert state.spec is not None
    if state.log is None:
        return
    unchained = [
        seq for seq in state.log.unchained if state.log.records[seq - 1]["event"] != "created"
    ]
    if not unchained:
        return
    if state.spec.sealed_records:
        ledger.add(
            ErrorCode.PACKAGE_EVENTS_UNCHAINED,
            state.layout.events,
            f"protocol v{state.spec.version} chains every line, but lines {unchained} carry no "
            "'chain': the log was rewritten",
        )
    else:
        ledger.add(
            ErrorCode.PACKAGE_EVENTS_UNCHAINED,
            state.layout.events,
            f"a protocol v{state.spec.version} revision: its log was written before events were "
            "hash-chained, so an edit of a line is detected only through the files it names",
            severity="info",
        )


def _account_started(ledger: Ledger, state: Revision, started: list[dict[str, Any]]) -> None:
    assert state.frozen is not None and state.spec is not None
    layout = state.layout
    if state.log is None:
        return
    if len(started) != 1:
        code = ErrorCode.PACKAGE_EVENT_MISSING if not started else ErrorCode.PACKAGE_EVENT_INVALID
        ledger.add(
            code, layout.events, f"{len(started)} 'started' events (a started revision has 1)"
        )
        return
    event = started[0]
    expected: dict[str, object] = {"input": layout.input, "case_sha256": state.frozen.case_sha256}
    if state.spec.sealed_records:
        expected |= {
            "input_sha256": ledger.sha(layout.input),
            "resolution_input_sha256": ledger.sha(layout.er_input),
            "package_sha256": ledger.sha(PACKAGE_JSON),
        }
    if state.report_version != FIRST_REPORT_VERSION:  # the chained line names the version
        expected |= {
            REPORT_VERSION_FIELD: state.report_version,
            "version_sha256": ledger.sha(version_record(state.report_version)),
        }
    for key, value in expected.items():
        if event.get(key) != value:
            code = (
                ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH
                if key.endswith("sha256")
                else ErrorCode.PACKAGE_EVENT_INVALID
            )
            what = {
                "input_sha256": layout.input,
                "resolution_input_sha256": layout.er_input,
                "package_sha256": PACKAGE_JSON,
                "version_sha256": version_record(state.report_version),
            }.get(key, layout.events)
            ledger.add(
                code,
                what,
                f"the 'started' event (line {event['seq']}) records {key} {event.get(key)!r}, "
                f"the package has {value!r}",
            )


def _account_resolution_input(ledger: Ledger, state: Revision) -> None:
    assert state.frozen is not None
    layout, frozen = state.layout, state.frozen
    if layout.er_input not in state.files:
        ledger.add(
            ErrorCode.PACKAGE_FILE_MISSING,
            layout.er_input,
            "a started revision freezes its entity-resolution input before its interpretation input",
        )
        return
    ledger.accounted.add(layout.er_input)
    resolution = ledger.model(
        layout.er_input, ResolutionInput, "the frozen entity-resolution input"
    )
    if resolution is None:
        return
    mismatch = []
    for key in ("protocol_version", "prompt_version", "case_sha256"):
        if getattr(resolution, key) != getattr(frozen, key):
            mismatch.append(
                f"{key} {getattr(resolution, key)!r} (input.json: {getattr(frozen, key)!r})"
            )
    if resolution.status != frozen.entity_resolution:
        mismatch.append(f"status {resolution.status!r} (input.json: {frozen.entity_resolution!r})")
    if resolution.max_invalid_responses != frozen.max_invalid_responses:
        mismatch.append(
            f"max_invalid_responses {resolution.max_invalid_responses} (input.json: "
            f"{frozen.max_invalid_responses})"
        )
    if resolution.status == "disabled" and (
        resolution.catalogs
        or resolution.snapshot is not None
        or resolution.max_searches
        or resolution.max_candidates
    ):
        mismatch.append("catalogs, a snapshot or limits although entity resolution is disabled")
    if resolution.status == "enabled" and resolution.snapshot is None:
        mismatch.append("no snapshot binding although entity resolution is enabled")
    for what in mismatch:
        ledger.add(
            ErrorCode.PACKAGE_FROZEN_INPUT_MISMATCH,
            layout.er_input,
            f"the frozen entity-resolution input records {what}",
        )
    for number, catalog in enumerate(resolution.catalogs):
        try:
            CatalogConfig.model_validate(catalog)
        except ValidationError as exc:
            ledger.add(
                ErrorCode.PACKAGE_ARTIFACT_INVALID,
                layout.er_input,
                f"catalogs[{number}] is not a catalog config: {exc.errors()[0]['msg']}",
            )
    state.resolution = resolution
