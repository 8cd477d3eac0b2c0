"""The workspace: the root of all case packages, local or in a bucket (ARCHITECTURE 4, issue 31).

```
<workspace>/cases/<CASE-ID>/...                      one self-contained, portable folder per case
<workspace>/inbox/                                   reports waiting for import (per host)
```

With a bucket (:mod:`vba_assets.store.remote`) the folder is this host's working copy and the
bucket the system of record. Nothing here imports Dagster.
"""

from pathlib import Path

from vba_assets.domain.case.ids import CASE_ID_PATTERN, validate_case_id
from vba_assets.domain.clock import utc_now
from vba_assets.objectstore import ObjectStore
from vba_assets.store.package import CasePackage, Clock
from vba_assets.store.remote import RemoteCase, remote_case_ids


class Workspace:
    """The root of all case packages: ``root/cases/<CASE-ID>`` and ``root/inbox``.

    Args:
        root: The workspace folder (created lazily, by the first write).
        clock: Returns the current time (timezone-aware); used for event and lock timestamps.
        bucket: The case packages' system of record, when they live in a bucket (issue 31):
            ``root`` is then this host's working copy (:mod:`vba_assets.store.remote`).
        lease_s: How long a revision lease in the bucket lasts unless renewed.
    """

    def __init__(
        self,
        root: Path | str,
        clock: Clock = utc_now,
        *,
        bucket: ObjectStore | None = None,
        lease_s: float = 60.0,
    ) -> None:
        self.root = Path(root)
        self.cases_dir = self.root / "cases"
        self.inbox_dir = self.root / "inbox"
        self.clock = clock
        self.bucket = bucket
        self.lease_s = lease_s

    def case(self, case_id: str) -> "CasePackage":
        """The package of ``case_id`` (raises ``InputError`` ``INVALID_CASE_ID`` if invalid);
        with a bucket, its working copy is brought up to the bucket's first."""
        validate_case_id(case_id)
        remote = None
        if self.bucket is not None:
            remote = RemoteCase(self.bucket, case_id, lease_s=self.lease_s)
        package = CasePackage(self.cases_dir / case_id, case_id, clock=self.clock, remote=remote)
        package.pull()
        return package

    def case_ids(self) -> list[str]:
        """Ids of existing case folders (with a bucket: of the bucket's cases), sorted; folders
        with an invalid id are skipped."""
        if self.bucket is not None:
            return remote_case_ids(self.bucket)
        if not self.cases_dir.is_dir():
            return []
        return sorted(
            entry.name
            for entry in self.cases_dir.iterdir()
            if entry.is_dir() and CASE_ID_PATTERN.fullmatch(entry.name)
        )


__all__ = ["Workspace"]
