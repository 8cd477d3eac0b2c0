"""Offline verification of a case package: everything needed is inside the folder (ARCHITECTURE 4).

Checks, each reported as a :class:`~vba_assets.domain.findings.Finding` (``artifact`` is the
package-relative path) instead of raising:

* ``PACKAGE_HASH_MISMATCH``: a content-addressed object ``<sha256>.json`` whose bytes do not hash
  to its name;
* ``PACKAGE_NOT_CANONICAL``: a ``*.json`` artifact that is not RFC 8785 canonical JSON (raw imported
  files under ``report/`` are exempt: they are kept byte-for-byte as received);
* ``PACKAGE_EVENTS_INVALID``: an ``events.jsonl`` line that does not parse, is not canonical, or
  breaks the 1..n ``seq`` sequence;
* ``PACKAGE_SYMLINK``: a symlink inside the package (a portable package holds none);
* ``PACKAGE_UNEXPECTED_HIDDEN``: a hidden file that is neither a store temp file nor a lock file;
* severity ``info``, not errors: ``PACKAGE_STALE_TEMP`` (a temp file left by a killed or still
  running writer; harmless, deletable when no writer runs) and ``PACKAGE_EVENTS_TORN_TAIL`` (an
  uncommitted partial last line of ``events.jsonl``, ignored by readers and truncated by the next
  append).
"""

import os
import re
from pathlib import Path

from vba_assets.domain.canonical import parse_canonical, sha256_hex
from vba_assets.domain.findings import Finding
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store.atomic import TEMP_NAME_PATTERN
from vba_assets.store.events import parse_event_log
from vba_assets.store.layout import EVENTS_FILE
from vba_assets.store.lock import LOCK_FILE

CONTENT_ADDRESSED_NAME = re.compile(r"^(?P<digest>[0-9a-f]{64})\.json$")
RAW_DIRS = ("report",)


def _finding(code: ErrorCode, relpath: str, message: str, *, info: bool = False) -> Finding:
    return Finding(
        code=code, artifact=relpath, message=message, severity="info" if info else "error"
    )


def verify_package(root: Path) -> list[Finding]:
    """All findings for the package at ``root``, sorted by path then kind."""
    findings: list[Finding] = []
    if not root.is_dir():
        return findings
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(directory)
        for name in sorted(dirnames):
            if (here / name).is_symlink():
                findings.append(_symlink(root, here / name))
        for name in sorted(filenames):
            findings.extend(_check_file(root, here / name))
    return sorted(findings, key=lambda finding: (finding.artifact or "", finding.code.value))


def _check_file(root: Path, path: Path) -> list[Finding]:
    relpath = path.relative_to(root).as_posix()
    name = path.name
    if path.is_symlink():
        return [_symlink(root, path)]
    if name.startswith("."):
        match = TEMP_NAME_PATTERN.match(name)
        if match:
            message = (
                f"temp file of writer pid {match['pid']} for {match['final']!r}: harmless (never "
                "visible as an artifact); delete it when no writer is running"
            )
            return [_finding(ErrorCode.PACKAGE_STALE_TEMP, relpath, message, info=True)]
        if name == LOCK_FILE:
            return []
        return [
            _finding(
                ErrorCode.PACKAGE_UNEXPECTED_HIDDEN, relpath, "hidden file not created by the store"
            )
        ]
    if relpath.split("/", 1)[0] in RAW_DIRS:
        return []
    if name == EVENTS_FILE:
        return _check_events(path, relpath)
    if not name.endswith(".json"):
        return []
    data = path.read_bytes()
    findings: list[Finding] = []
    addressed = CONTENT_ADDRESSED_NAME.match(name)
    if addressed and sha256_hex(data) != addressed["digest"]:
        findings.append(
            _finding(
                ErrorCode.PACKAGE_HASH_MISMATCH,
                relpath,
                f"content sha256 is {sha256_hex(data)}, but the name promises "
                f"{addressed['digest']}: the object was altered after it was written",
            )
        )
    try:
        parse_canonical(data, relpath)
    except StoreError as exc:
        findings.append(_finding(ErrorCode.PACKAGE_NOT_CANONICAL, relpath, exc.message))
    return findings


def _check_events(path: Path, relpath: str) -> list[Finding]:
    try:
        log = parse_event_log(path.read_bytes(), relpath)
    except StoreError as exc:
        return [_finding(ErrorCode.PACKAGE_EVENTS_INVALID, relpath, exc.message)]
    if log.torn_tail:
        message = (
            f"{len(log.torn_tail)} byte(s) after the last complete line: an uncommitted write cut "
            "off by a crash; ignored by readers and removed by the next append"
        )
        return [_finding(ErrorCode.PACKAGE_EVENTS_TORN_TAIL, relpath, message, info=True)]
    return []


def _symlink(root: Path, path: Path) -> Finding:
    relpath = path.relative_to(root).as_posix()
    message = f"symlink to {os.readlink(path)!r}; packages hold no links"
    return _finding(ErrorCode.PACKAGE_SYMLINK, relpath, message)
