"""Dispatch records in the case package: the store-backed :class:`DispatchRecorder`.

Every attempt of a model stage is written to ``<stage dir>/dispatches/<stage>-<n>.json``; a
rejected reply is also written to ``<stage dir>/rejected/<stage>-<n>.json`` with its body, finish
reason and error codes; and each attempt is logged in the revision's ``events.jsonl`` with its
timing (``started_at``, ``elapsed_ms``: beside the record, never in a protocol v3 record). Records
are append-only: the loop's attempt numbers never repeat, and replay reads the same files back.
Given the items the stage request was built from, each attempt also gets its context manifest
(``<stage>-<n>.manifest.json``, :mod:`vba_assets.domain.prompting.manifest`), written before the
attempt's event, which names the record, the rejected record and the manifest by sha256.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.clock import format_timestamp
from vba_assets.domain.llm.contract import DispatchRecord, DispatchTiming
from vba_assets.domain.prompting.items import ContextItem, correction_items
from vba_assets.domain.prompting.manifest import ContextManifest, manifest_for_record
from vba_assets.domain.stages import MODEL_STAGES, Stage
from vba_assets.errors import VbaError
from vba_assets.store import ArtifactRef, CasePackage
from vba_assets.store.layout import CASE_JSON, RevisionLayout
from vba_assets.store.versions import revision_case_json

_RECORD_NAME = re.compile(r"^(?P<stage>[a-z_]+)-(?P<attempt>[0-9]+)\.json$")


class PackageRecorder:
    """Writes and reads the dispatch records of one model stage of one revision."""

    def __init__(
        self,
        package: CasePackage,
        layout: RevisionLayout,
        stage: Stage,
        items: Sequence[ContextItem] | None = None,
    ) -> None:
        """``items``: what the stage request was built from; None writes no manifests."""
        self.package = package
        self.layout = layout
        self.stage = stage
        self.items = items
        self._case_relpath: str | None = None

    @property
    def case_relpath(self) -> str:
        """The revision's ``case.json`` (``reports/<VVVV>/case.json`` for a later version)."""
        if self._case_relpath is None:
            self._case_relpath = revision_case_json(self.package, self.layout.revision)
        return self._case_relpath

    def record(self, record: DispatchRecord, timing: DispatchTiming) -> None:
        """Publish one attempt: its record, its rejected record, its manifest, then its event.

        The event comes last and names every file of the attempt by sha256, so a crash leaves
        either a complete attempt or files without their event, which a resume completes
        (:mod:`vba_assets.pipeline.completion`).
        """
        ref = self.package.write_json(
            self.layout.dispatch(self.stage, record.attempt), record.model_dump(mode="json")
        )
        self._publish(record, ref, timing)

    def complete(self, record: DispatchRecord) -> None:
        """The files and the event a crash left unwritten after ``record`` was published; the
        event is marked ``recovered`` (the attempt's timing was never recorded)."""
        ref = self.package.artifact_ref(self.layout.dispatch(self.stage, record.attempt))
        self._publish(record, ref, None)

    def complete_files(self, record: DispatchRecord) -> list[str]:
        """Only the missing rejected record and manifest of an attempt that has its event."""
        fields: dict[str, object] = {}
        self._files(record, fields)
        return [
            f"{key} of {record.stage}-{record.attempt}"
            for key in ("rejected", "manifest")
            if key in fields
        ]

    def _publish(
        self, record: DispatchRecord, ref: ArtifactRef, timing: DispatchTiming | None
    ) -> None:
        fields: dict[str, object] = {
            "stage": record.stage,
            "attempt": record.attempt,
            "outcome": record.outcome,
            "provider": record.provider,
            "model": record.model,
            "record": ref.relpath,
            "sha256": ref.sha256,
        }
        if timing is None:
            fields["recovered"] = True
        else:
            fields["started_at"] = format_timestamp(timing.started_at)
            fields["elapsed_ms"] = round(timing.elapsed_ms, 3)
        files: dict[str, object] = {}
        self._files(record, files, fields)
        if record.outcome == "rejected":
            fields["codes"] = [issue.code.value for issue in record.issues]
        if record.retry_at is not None:
            fields["retry_at"] = format_timestamp(record.retry_at)
        event = "rejected" if record.outcome == "rejected" else "dispatched"
        self.package.append_event(self.layout.revision, event, **fields)

    def _files(
        self,
        record: DispatchRecord,
        written: dict[str, object],
        fields: dict[str, object] | None = None,
    ) -> None:
        """The rejected record and the manifest of ``record``: written when missing (never
        rewritten: a manifest computed by an older release keeps its bytes), then named in
        ``fields`` with their sha256. ``written`` receives the names of those written now."""
        fields = {} if fields is None else fields
        rejected = record.rejected_record()
        if rejected is not None:
            relpath = self.layout.rejected(self.stage, record.attempt)
            ref = self._ensure(relpath, rejected.model_dump(mode="json"), "rejected", written)
            fields["rejected"] = ref.relpath
            fields["rejected_sha256"] = ref.sha256
        if self.items is not None:
            relpath = self.layout.manifest(self.stage, record.attempt)
            if self.package.exists(relpath):
                ref = self.package.artifact_ref(relpath)
            else:
                manifest = self.manifest(record, self.items)
                ref = self._ensure(relpath, manifest.model_dump(mode="json"), "manifest", written)
            fields["manifest"] = ref.relpath
            fields["manifest_sha256"] = ref.sha256

    def _ensure(
        self, relpath: str, doc: object, name: str, written: dict[str, object]
    ) -> ArtifactRef:
        if self.package.exists(relpath):
            return self.package.artifact_ref(relpath)
        written[name] = relpath
        return self.package.write_json(relpath, doc)

    def manifest(self, record: DispatchRecord, items: Sequence[ContextItem]) -> ContextManifest:
        """The context manifest of ``record``: ``items`` (the stage request's) plus the correction
        rounds of the stage's earlier rejected attempts, source hashes read from the package."""
        rejected = [
            r
            for r in self._earlier(record)
            if r.outcome == "rejected" and r.attempt < record.attempt
        ]
        rounds = correction_items(
            rejected, self.layout.relative(self.layout.rejected_dir(self.stage))
        )
        if self.case_relpath != CASE_JSON:  # name the version's file: the manifest says what it is
            items = [
                item.model_copy(
                    update={"source": self.case_relpath + item.source[len(CASE_JSON) :]}
                )
                if item.artifact == CASE_JSON
                else item
                for item in items
            ]
        return manifest_for_record(record, [*items, *rounds], self._artifact_sha256)

    def _artifact_sha256(self, artifact: str) -> str | None:
        """sha256 of a package artifact named as in ``ContextItem.source`` (None if absent)."""
        if artifact in (CASE_JSON, self.case_relpath):  # the revision's own case.json
            artifact = self.case_relpath
        else:
            artifact = f"{self.layout.dir}/{artifact}"
        try:
            exists = self.package.exists(artifact)
        except VbaError:  # not a package path (e.g. a field of the request)
            return None
        return self.package.artifact_ref(artifact).sha256 if exists else None

    def _earlier(self, record: DispatchRecord) -> Sequence[DispatchRecord]:
        """The records of ``record``'s stage that may come before it: only those whose file name
        has a smaller attempt number (each record is written as ``<stage>-<attempt>.json``), so a
        first attempt reads none."""
        return [r for r in self._read(before=record.attempt) if r.stage == record.stage]

    def history(self, stage: str) -> Sequence[DispatchRecord]:
        """Every record of this recorder's stage, in attempt order (``stage`` must be it)."""
        return [r for r in self.records() if r.stage == stage]

    def records(self) -> list[DispatchRecord]:
        """Every record of the stage, in attempt order."""
        return self._read()

    def _read(self, before: int | None = None) -> list[DispatchRecord]:
        """The stage's records in attempt order; with ``before``, only the files whose name
        carries a smaller attempt number are read."""
        records = []
        for relpath in self.package.list_dir(self.layout.dispatches_dir(self.stage)):
            match = _RECORD_NAME.match(relpath.rsplit("/", 1)[-1])
            if not match or match["stage"] != self.stage.value:
                continue
            if before is None or int(match["attempt"]) < before:
                records.append(DispatchRecord.model_validate(self.package.read_json(relpath)))
        return sorted(records, key=lambda r: r.attempt)


def revision_records(package: CasePackage, layout: RevisionLayout) -> list[DispatchRecord]:
    """Every dispatch record of a revision, in stage then attempt order."""
    return [
        record
        for stage in MODEL_STAGES
        for record in PackageRecorder(package, layout, stage).records()
    ]


def count_dispatch_records(package: CasePackage, layout: RevisionLayout) -> int:
    """How many model requests were recorded in a revision (counts files; parses nothing)."""
    return sum(
        1
        for stage in MODEL_STAGES
        for relpath in package.list_dir(layout.dispatches_dir(stage))
        if (match := _RECORD_NAME.match(relpath.rsplit("/", 1)[-1])) and match["stage"] == stage
    )
