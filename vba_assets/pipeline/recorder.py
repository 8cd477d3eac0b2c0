"""Dispatch records in the case package: the store-backed :class:`DispatchRecorder`.

Every attempt is written to ``<dir>/dispatches/<stage>-<n>.json``; a rejected reply is also written to
``<dir>/rejected/<stage>-<n>.json`` with its body, finish reason and error codes; and each attempt is
logged in the revision's ``events.jsonl``. Records are append-only: the loop's attempt numbers never
repeat, and replay reads the same files back. Given the items the stage request was built from, each
attempt also gets ``<dir>/dispatches/<stage>-<n>.manifest.json``: the context manifest of the body it
sent (:mod:`vba_assets.domain.prompting.manifest`).
"""

import re
from collections.abc import Sequence

from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.prompting.items import ContextItem, correction_items
from vba_assets.domain.prompting.manifest import (
    ContextManifest,
    manifest_for_record,
    manifest_relpath,
)
from vba_assets.errors import VbaError
from vba_assets.store import CasePackage, format_timestamp

_RECORD_NAME = re.compile(r"^(?P<stage>[a-z_]+)-(?P<attempt>[0-9]+)\.json$")


class PackageRecorder:
    """Writes and reads the dispatch records of one revision directory."""

    def __init__(
        self,
        package: CasePackage,
        revision: str,
        base_dir: str,
        items: Sequence[ContextItem] | None = None,
    ) -> None:
        """``items``: what the stage request was built from; None writes no manifests."""
        self.package = package
        self.revision = revision
        self.base_dir = base_dir
        self.items = items

    def _relpath(self, kind: str, stage: str, attempt: int) -> str:
        return f"{self.base_dir}/{kind}/{stage}-{attempt}.json"

    def record(self, record: DispatchRecord) -> None:
        ref = self.package.write_json(
            self._relpath("dispatches", record.stage, record.attempt),
            record.model_dump(mode="json"),
        )
        fields: dict[str, object] = {
            "stage": record.stage,
            "attempt": record.attempt,
            "outcome": record.outcome,
            "provider": record.provider,
            "model": record.model,
            "record": ref.relpath,
            "sha256": ref.sha256,
        }
        rejected = record.rejected_record()
        if rejected is not None:
            rejected_ref = self.package.write_json(
                self._relpath("rejected", record.stage, record.attempt),
                rejected.model_dump(mode="json"),
            )
            fields["rejected"] = rejected_ref.relpath
            fields["codes"] = [issue.code.value for issue in record.issues]
        if record.retry_at is not None:
            fields["retry_at"] = format_timestamp(record.retry_at)
        event = "rejected" if record.outcome == "rejected" else "dispatched"
        self.package.append_event(self.revision, event, **fields)
        if self.items is not None:  # after the record and its event: a manifest is derived data
            manifest = self.manifest(record, self.items)
            relpath = manifest_relpath(self._relpath("dispatches", record.stage, record.attempt))
            self.package.write_json(relpath, manifest.model_dump(mode="json"))

    def manifest(self, record: DispatchRecord, items: Sequence[ContextItem]) -> ContextManifest:
        """The context manifest of ``record``: ``items`` (the stage request's) plus the correction
        rounds of the stage's earlier rejected attempts, source hashes read from the package."""
        rev_dir = self.package.revision_dir(self.revision)
        stage_dir = self.base_dir.removeprefix(rev_dir).strip("/")
        rejected = [
            r
            for r in self.history(record.stage)
            if r.outcome == "rejected" and r.attempt < record.attempt
        ]
        rounds = correction_items(rejected, f"{stage_dir}/rejected" if stage_dir else "rejected")
        return manifest_for_record(record, [*items, *rounds], self._artifact_sha256)

    def _artifact_sha256(self, artifact: str) -> str | None:
        """sha256 of a package artifact named as in ``ContextItem.source`` (None if absent)."""
        if artifact != "case.json":
            artifact = f"{self.package.revision_dir(self.revision)}/{artifact}"
        try:
            exists = self.package.exists(artifact)
        except VbaError:  # not a package path (e.g. a field of the request)
            return None
        return self.package.artifact_ref(artifact).sha256 if exists else None

    def history(self, stage: str) -> Sequence[DispatchRecord]:
        return [r for r in self.all_records() if r.stage == stage]

    def all_records(self) -> list[DispatchRecord]:
        """Every record under this directory, ordered by stage then attempt."""
        records = []
        for relpath in self.package.list_dir(f"{self.base_dir}/dispatches"):
            match = _RECORD_NAME.match(relpath.rsplit("/", 1)[-1])
            if match:
                records.append(DispatchRecord.model_validate(self.package.read_json(relpath)))
        return sorted(records, key=lambda r: (r.stage, r.attempt))


def count_dispatch_records(package: CasePackage, base_dirs: Sequence[str]) -> int:
    """How many model requests were recorded under ``base_dirs`` (counts files; parses nothing)."""
    return sum(
        1
        for base in base_dirs
        for relpath in package.list_dir(f"{base}/dispatches")
        if _RECORD_NAME.match(relpath.rsplit("/", 1)[-1])
    )
