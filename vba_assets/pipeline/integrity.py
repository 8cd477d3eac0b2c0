"""Accounting for every file of a case package (ARCHITECTURE 4, "Everything is accounted for").

:func:`account_package` (the imported files) and :func:`account_revision` (one revision) say, for
every file, what vouches for it, and report as a :class:`~vba_assets.domain.findings.Finding` every
file nothing vouches for, every record that names a missing file or the wrong bytes, and every
frozen input that disagrees with what was recorded after it. They never raise for bad data and read
nothing outside the package (no DB, no key): a copy of the folder verifies the same anywhere.

What vouches for what:

* ``package.json`` lists every imported report file with its sha256 and size, and the sha256 of
  ``case.json``. Under a protocol with sealed records (v4 on) the ``started`` event of each
  revision binds ``package.json`` itself, ``input.json`` and ``entity-resolution/input.json``.
* ``events.jsonl`` is hash-chained (protocol v4 on; older logs are reported as ``info``). Its
  ``dispatched``/``rejected`` events name each dispatch record (and from v4 its manifest and
  rejected record) by sha256, its ``captured`` events each capture, its ``accepted`` events each
  accepted artifact (and from v4 the accepted dispatch record, its manifest and every rejected
  record before it). Every such file must have its event and every event its file.
* Derived files are recomputed: a rejected record from its dispatch record, a manifest's identity
  fields from its record, a ``disabled`` artifact from the frozen setting; the candidate index,
  the F/N/D context and every accepted artifact are recomputed by the replay verifiers
  (:mod:`vba_assets.pipeline.replay`).
* Frozen inputs are compared with what came after them: the case hash and clock anchor with
  ``case.json``, the protocol, model and parameters with every dispatch record, the resolution
  input with the interpretation input; the captures' snapshot and row limit by the asset checks.

Limits (no secret, no external anchor): someone who rewrites a file *and* every hash that names
it, up to the end of a recomputed chain, is not detected; lines cut from the end of the log are
detected only when a remaining file names them (true for every line of a completed revision).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import ValidationError

from vba_assets.config import CatalogConfig
from vba_assets.domain.canonical import canonical_bytes, sha256_hex
from vba_assets.domain.case.ids import validate_revision
from vba_assets.domain.findings import Finding, Severity
from vba_assets.domain.frozen import InterpretationInput, ResolutionInput
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.protocol import ProtocolSpec, protocol
from vba_assets.domain.resolution.models import CaptureArtifact, ResolutionPlanOutput
from vba_assets.domain.stages import MODEL_STAGES, Stage
from vba_assets.errors import ErrorCode, InputError, StoreError, VbaError
from vba_assets.pipeline.artifacts import disabled_document
from vba_assets.store import CasePackage
from vba_assets.store.events import EventLog, parse_event_log
from vba_assets.store.layout import (
    CASE_JSON,
    INTERPRETATIONS_DIR,
    PACKAGE_JSON,
    REPORT_DIR,
    RevisionLayout,
)

_CAPTURE_NAME = re.compile(r"^[0-9a-f]{64}\.json$")
#: Fields of a context manifest that must equal its dispatch record's.
_MANIFEST_IDENTITY = ("stage", "attempt", "request_sha256", "outcome", "provider", "model")


@dataclass
class Ledger:
    """Findings, and the files something vouches for (everything else is unreferenced)."""

    package: CasePackage
    findings: list[Finding] = field(default_factory=list)
    accounted: set[str] = field(default_factory=set)

    def add(
        self,
        code: ErrorCode,
        artifact: str | None,
        message: str,
        *,
        subject: str | None = None,
        severity: Severity = "error",
    ) -> None:
        self.findings.append(
            Finding(
                code=code, artifact=artifact, message=message, subject=subject, severity=severity
            )
        )

    def sha(self, relpath: str) -> str | None:
        """sha256 of a file of the package, or None when it does not exist."""
        try:
            return (
                self.package.artifact_ref(relpath).sha256 if self.package.exists(relpath) else None
            )
        except VbaError:
            return None

    def json(self, relpath: str, what: str) -> Any:
        """The parsed (canonical) JSON at ``relpath``; a finding and None when it cannot be read."""
        try:
            return self.package.read_json(relpath)
        except VbaError as exc:
            if exc.code is ErrorCode.ARTIFACT_MISSING:
                self.add(ErrorCode.PACKAGE_FILE_MISSING, relpath, f"{what} does not exist")
            else:
                self.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, relpath, f"{what}: {exc.message}")
            return None

    def model(self, relpath: str, model: Any, what: str) -> Any:
        """``model`` validated from the JSON at ``relpath``; a finding and None when it is not."""
        doc = self.json(relpath, what)
        if doc is None:
            return None
        try:
            return model.model_validate(doc)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = "/".join(str(part) for part in error["loc"]) or "<root>"
            self.add(
                ErrorCode.PACKAGE_ARTIFACT_INVALID,
                relpath,
                f"{what} is malformed: {where}: {error['msg']}",
            )
            return None


def safely(ledger: Ledger, where: str, step: Callable[[], None]) -> None:
    """Run one accounting step; anything it could not read is a finding, never a crash."""
    try:
        step()
    except (VbaError, ValidationError, ValueError, KeyError, TypeError, AttributeError) as exc:
        message = exc.message if isinstance(exc, VbaError) else f"{type(exc).__name__}: {exc}"
        ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, where, f"cannot be accounted for: {message}")


# --- the imported files ---------------------------------------------------------------------------


def account_package(package: CasePackage) -> list[Finding]:
    """``package.json``, the raw report files and ``case.json``; files outside any revision that
    nothing vouches for."""
    ledger = Ledger(package)
    files = package.list_dir("", recursive=True)
    safely(ledger, PACKAGE_JSON, lambda: _account_import(ledger, files))
    for relpath in files:
        if relpath in ledger.accounted or revision_of(relpath) is not None:
            continue
        ledger.add(
            ErrorCode.PACKAGE_UNREFERENCED_FILE,
            relpath,
            "no record of the package accounts for this file (package.json lists the imported "
            "files; revisions live in analysis/interpretations/<NNNN>/)",
        )
    return ledger.findings


def _account_import(ledger: Ledger, files: list[str]) -> None:
    package = ledger.package
    if not files:
        return
    ledger.accounted.add(PACKAGE_JSON)
    record = ledger.json(PACKAGE_JSON, "the import record")
    if not isinstance(record, dict):
        if record is not None:
            ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, PACKAGE_JSON, "is not a JSON object")
        return
    if record.get("case_id") != package.case_id:
        ledger.add(
            ErrorCode.PACKAGE_ARTIFACT_INVALID,
            PACKAGE_JSON,
            f"records case {record.get('case_id')!r}, but the package is {package.case_id}",
        )
    imported = (
        record.get("import", {}).get("files") if isinstance(record.get("import"), dict) else None
    )
    if not isinstance(imported, list):
        ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, PACKAGE_JSON, "has no import.files list")
        imported = []
    for entry in imported:
        relpath = entry.get("relpath") if isinstance(entry, dict) else None
        if not isinstance(relpath, str) or not relpath.startswith(f"{REPORT_DIR}/"):
            ledger.add(
                ErrorCode.PACKAGE_ARTIFACT_INVALID,
                PACKAGE_JSON,
                f"import.files holds an entry that is not a report file: {entry!r}",
            )
            continue
        ledger.accounted.add(relpath)
        actual = ledger.sha(relpath)
        if actual is None:
            ledger.add(ErrorCode.PACKAGE_FILE_MISSING, relpath, "package.json lists it")
        elif actual != entry.get("sha256") or package.path(relpath).stat().st_size != entry.get(
            "size"
        ):
            ledger.add(
                ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
                relpath,
                f"package.json records sha256 {entry.get('sha256')} ({entry.get('size')} bytes), "
                f"the file has {actual}: the raw report was changed after its import",
            )
    ledger.accounted.add(CASE_JSON)
    case_sha = ledger.sha(CASE_JSON)
    if case_sha is None:
        ledger.add(ErrorCode.PACKAGE_FILE_MISSING, CASE_JSON, "the case built at import is missing")
    elif case_sha != record.get("case_json_sha256"):
        ledger.add(
            ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
            CASE_JSON,
            f"package.json records case.json sha256 {record.get('case_json_sha256')}, the file "
            f"has {case_sha}",
        )


def revision_of(relpath: str) -> str | None:
    """The revision a package path belongs to (``analysis/interpretations/<NNNN>/...``)."""
    prefix = f"{INTERPRETATIONS_DIR}/"
    if not relpath.startswith(prefix):
        return None
    name = relpath.removeprefix(prefix).split("/", 1)
    if len(name) < 2:
        return None
    try:
        return validate_revision(name[0])
    except InputError:
        return None


def revision_folders(package: CasePackage) -> list[str]:
    """Every revision folder that holds a file (started or not, with or without a log)."""
    found = {revision_of(relpath) for relpath in package.list_dir("", recursive=True)}
    return sorted(revision for revision in found if revision is not None)


# --- one revision ---------------------------------------------------------------------------------


@dataclass
class _Revision:
    """What the accounting of one revision has read so far."""

    layout: RevisionLayout
    files: set[str]
    log: EventLog | None = None
    frozen: InterpretationInput | None = None
    spec: ProtocolSpec | None = None
    resolution: ResolutionInput | None = None
    records: dict[tuple[Stage, int], DispatchRecord] = field(default_factory=dict)

    @property
    def events(self) -> list[dict[str, Any]]:
        return [] if self.log is None else self.log.records

    def named(self, event: str, key: str, value: object) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == event and e.get(key) == value]


def account_revision(package: CasePackage, revision: str) -> list[Finding]:
    """Every file of one revision accounted for (see the module docstring)."""
    ledger = Ledger(package)
    layout = RevisionLayout(revision)
    state = _Revision(layout, set(package.list_dir(layout.dir, recursive=True)))
    safely(ledger, layout.events, lambda: _account_log(ledger, state))
    safely(ledger, layout.input, lambda: _account_inputs(ledger, state))
    if state.frozen is not None and state.spec is not None:
        for stage in MODEL_STAGES:
            safely(
                ledger,
                layout.dispatches_dir(stage),
                partial(_account_dispatches, ledger, state, stage),
            )
        for stage in MODEL_STAGES:
            safely(
                ledger,
                str(layout.artifact(stage)),
                partial(_account_artifact, ledger, state, stage),
            )
        safely(ledger, layout.captures_dir, lambda: _account_captures(ledger, state))
        safely(ledger, layout.er_dir, lambda: _account_derived(ledger, state))
    elif layout.input in state.files:
        ledger.accounted |= state.files  # unreadable frozen input: nothing else can be judged
    for relpath in sorted(state.files - ledger.accounted):
        ledger.add(
            ErrorCode.PACKAGE_UNREFERENCED_FILE,
            relpath,
            "no record of the revision accounts for this file (an injected or misplaced file)",
        )
    return ledger.findings


def _account_log(ledger: Ledger, state: _Revision) -> None:
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


def _account_inputs(ledger: Ledger, state: _Revision) -> None:
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
    case_sha = ledger.sha(CASE_JSON)
    if case_sha is not None and frozen.case_sha256 != case_sha:
        mismatch.append(f"case_sha256 {frozen.case_sha256} (case.json has {case_sha})")
    case_doc = _case_doc(ledger)
    if case_doc is not None:
        anchor = (case_doc.get("reported_at"), case_doc.get("reported_at_offset"))
        if (frozen.reported_at, frozen.reported_at_offset) != anchor:
            mismatch.append(
                f"clock anchor {frozen.reported_at} {frozen.reported_at_offset} (case.json "
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


def _case_doc(ledger: Ledger) -> dict[str, Any] | None:
    try:
        doc = ledger.package.read_json(CASE_JSON)
    except VbaError:
        return None
    return doc if isinstance(doc, dict) else None


def _check_chain(ledger: Ledger, state: _Revision) -> None:
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


def _account_started(ledger: Ledger, state: _Revision, started: list[dict[str, Any]]) -> None:
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
            }.get(key, layout.events)
            ledger.add(
                code,
                what,
                f"the 'started' event (line {event['seq']}) records {key} {event.get(key)!r}, "
                f"the package has {value!r}",
            )


def _account_resolution_input(ledger: Ledger, state: _Revision) -> None:
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


# --- dispatch records -----------------------------------------------------------------------------


def _account_dispatches(ledger: Ledger, state: _Revision, stage: Stage) -> None:
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
    state: _Revision,
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
        _check_bound(ledger, line, event, bound)


# --- stage artifacts ------------------------------------------------------------------------------


def _check_bound(ledger: Ledger, line: str, event: dict[str, Any], bound: dict[str, str]) -> None:
    """Each ``key -> path`` of ``bound``: the event's ``key`` is the sha256 the file has now."""
    for key, path in bound.items():
        if event.get(key) != ledger.sha(path):
            ledger.add(
                ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
                path,
                f"{line} records {key} {event.get(key)}, the file has {ledger.sha(path)}",
            )


def _account_artifact(ledger: Ledger, state: _Revision, stage: Stage) -> None:
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
    state: _Revision,
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
    _check_bound(ledger, line, event, bound)
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


# --- captures and recomputed artifacts ------------------------------------------------------------


def _plan_searches(ledger: Ledger, state: _Revision) -> dict[str, Any] | None:
    doc = ledger.package.read_json(state.layout.plan) if state.layout.plan in state.files else None
    if not isinstance(doc, dict) or doc.get("status") != "accepted":
        return None
    plan = ResolutionPlanOutput.model_validate(doc["plan"])
    return {f"Q{number}": search for number, search in enumerate(plan.searches, start=1)}


def _account_captures(ledger: Ledger, state: _Revision) -> None:
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
        if search is None or search != capture.search or capture.search_id in claimed:
            continue  # a capture of no search of the accepted plan, or a second one: unreferenced
        claimed[capture.search_id] = relpath
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
        elif (event.get("search_id"), event.get("rows"), event.get("truncated")) != (
            capture.search_id,
            len(capture.result.rows),
            capture.result.truncated,
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


def _account_derived(ledger: Ledger, state: _Revision) -> None:
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


__all__ = ["account_package", "account_revision", "revision_folders", "revision_of"]
