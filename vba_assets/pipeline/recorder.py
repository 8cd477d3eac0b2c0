"""Dispatch records in the case package: the store-backed :class:`DispatchRecorder`.

Every attempt is written to ``<dir>/dispatches/<stage>-<n>.json``; a rejected reply is also written to
``<dir>/rejected/<stage>-<n>.json`` with its body, finish reason and error codes; and each attempt is
logged in the revision's ``events.jsonl``. Records are append-only: the loop's attempt numbers never
repeat, and replay reads the same files back.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.model_contract import DispatchRecord
from vba_assets.store import CasePackage

_RECORD_NAME = re.compile(r"^(?P<stage>[a-z_]+)-(?P<attempt>[0-9]+)\.json$")


class PackageRecorder:
    """Writes and reads the dispatch records of one revision directory."""

    def __init__(self, package: CasePackage, revision: str, base_dir: str) -> None:
        self.package = package
        self.revision = revision
        self.base_dir = base_dir

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
            fields["retry_at"] = record.retry_at.isoformat()
        self.package.append_event(self.revision, "dispatched", **fields)

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
