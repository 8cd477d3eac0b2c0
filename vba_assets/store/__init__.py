"""The case-package artifact store (ARCHITECTURE 4). Pure Python, no Dagster import.

* :mod:`.canonical`: RFC 8785 canonical JSON and the sha256 built on it;
* :mod:`.atomic`: atomic, append-only file publication (temp file, fsync, ``link``);
* :mod:`.layout`: every path of a case package and of a revision (the contract);
* :mod:`.paths`: relpath validation and confinement to the package;
* :mod:`.lock`: the per (case, revision) writer lock (``flock``, fails fast, recovered on kill);
* :mod:`.events`: the append-only ``events.jsonl`` lifecycle log;
* :mod:`.verify`: offline package verification;
* :mod:`.package`: :class:`CasePackage`, the API the assets use; :mod:`.workspace`:
  :class:`Workspace`, local or with a bucket (:mod:`.remote`, :mod:`.lease`, :mod:`.transfer`).
"""

from vba_assets.domain.canonical import (
    canonical_bytes,
    content_hash,
    parse_canonical,
    sha256_hex,
    to_json_value,
)
from vba_assets.domain.clock import format_timestamp, utc_now
from vba_assets.store.atomic import publish_bytes
from vba_assets.store.layout import EVENTS_FILE, INTERPRETATIONS_DIR, RevisionLayout
from vba_assets.store.lock import LOCK_FILE, LockHolder, RevisionLock
from vba_assets.store.package import ArtifactRef, CasePackage
from vba_assets.store.paths import validate_relpath
from vba_assets.store.workspace import Workspace

__all__ = [
    "EVENTS_FILE",
    "INTERPRETATIONS_DIR",
    "LOCK_FILE",
    "ArtifactRef",
    "CasePackage",
    "LockHolder",
    "RevisionLayout",
    "RevisionLock",
    "Workspace",
    "canonical_bytes",
    "content_hash",
    "format_timestamp",
    "parse_canonical",
    "publish_bytes",
    "sha256_hex",
    "to_json_value",
    "utc_now",
    "validate_relpath",
]
