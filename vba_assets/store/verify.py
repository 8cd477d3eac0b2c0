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
* ``PACKAGE_FILE_UNREADABLE``: an entry that is not a regular file (a FIFO, socket or device: never
  opened) or a file that cannot be read; ``PACKAGE_FILE_TOO_LARGE``: a file over
  :data:`~vba_assets.store.reading.MAX_ARTIFACT_BYTES` (refused by its size, not read). Files are
  read as :func:`~vba_assets.store.reading.read_regular_file` reads them, and parsed with a depth
  limit (:func:`~vba_assets.domain.canonical.load_json`): too deep is ``PACKAGE_NOT_CANONICAL``;
* ``PACKAGE_UNEXPECTED_HIDDEN``: a hidden file that is neither a store temp file nor a lock file;
* severity ``info``, not errors: ``PACKAGE_STALE_TEMP`` (a temp file left by a killed or still
  running writer; harmless, deletable when no writer runs) and ``PACKAGE_EVENTS_TORN_TAIL`` (an
  uncommitted partial last line of ``events.jsonl``, ignored by readers and truncated by the next
  append).
"""

import os
import re
import stat
from pathlib import Path

from vba_assets.domain.canonical import parse_canonical, sha256_hex
from vba_assets.domain.findings import Finding
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.store.atomic import TEMP_NAME_PATTERN
from vba_assets.store.events import parse_event_log
from vba_assets.store.layout import EVENTS_FILE
from vba_assets.store.lock import LOCK_FILE
from vba_assets.store.reading import (
    MAX_ARTIFACT_BYTES,
    Refusal,
    UnreadableFile,
    not_regular_reason,
    read_regular_file,
)

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
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return []  # removed since the folder was listed
    if stat.S_ISLNK(mode):
        return [_symlink(root, path)]
    if not stat.S_ISREG(mode):  # never opened: a FIFO would block, a device never end
        return [_unreadable(relpath, UnreadableFile(Refusal.NOT_REGULAR, not_regular_reason(mode)))]
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
    try:
        data = read_regular_file(path, MAX_ARTIFACT_BYTES)
    except UnreadableFile as refused:
        return [_unreadable(relpath, refused)]
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
        data = read_regular_file(path, MAX_ARTIFACT_BYTES)
    except UnreadableFile as refused:
        return [_unreadable(relpath, refused)]
    try:
        log = parse_event_log(data, relpath)
    except StoreError as exc:
        return [_finding(ErrorCode.PACKAGE_EVENTS_INVALID, relpath, exc.message)]
    if log.torn_tail:
        message = (
            f"{len(log.torn_tail)} byte(s) after the last complete line: an uncommitted write cut "
            "off by a crash; ignored by readers and removed by the next append"
        )
        return [_finding(ErrorCode.PACKAGE_EVENTS_TORN_TAIL, relpath, message, info=True)]
    return []


def _unreadable(relpath: str, refused: UnreadableFile) -> Finding:
    if refused.kind is Refusal.TOO_LARGE:
        message = f"{refused.reason}: no file of a case package is that large"
        return _finding(ErrorCode.PACKAGE_FILE_TOO_LARGE, relpath, message)
    message = f"{refused.reason}; it was not read (a package holds only regular files)"
    return _finding(ErrorCode.PACKAGE_FILE_UNREADABLE, relpath, message)


def _symlink(root: Path, path: Path) -> Finding:
    relpath = path.relative_to(root).as_posix()
    message = f"symlink to {os.readlink(path)!r}; packages hold no links"
    return _finding(ErrorCode.PACKAGE_SYMLINK, relpath, message)
