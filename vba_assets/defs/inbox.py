"""What the inbox sensor does with a report that admission refused: move it aside, say why.

A refused entry of ``<workspace>/inbox/`` (a ``.json`` file or a report folder) is moved to
``<workspace>/inbox/rejected/<name>`` with ``<name>.reason.txt`` beside it (the code and the
message), so the inbox holds only what is still to be imported and the reason stays next to the
file. A name already taken in ``rejected/`` gets a numbered suffix; nothing is overwritten. The
sensor logs each rejection once, with the entry's own file name.
"""

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from vba_assets.intake import REPORT_FILE, InboxRejection

REJECTED_DIR = "rejected"
REASON_SUFFIX = ".reason.txt"


@dataclass(frozen=True)
class RejectedEntry:
    """A refused inbox entry: its own name, code and message, and where it went."""

    name: str
    code: str
    message: str
    moved_to: Path | None

    def line(self) -> str:
        """``<file name>: rejected (<CODE>): <message>[; moved to inbox/rejected/<name>]``."""
        where = f"; moved to inbox/{REJECTED_DIR}/{self.moved_to.name}" if self.moved_to else ""
        return f"{self.name}: rejected ({self.code}): {self.message}{where}"


def rejection_message(rejection: InboxRejection, entry: Path) -> str:
    """The admission message, worded for the entry: a plain ``X.json`` file is not called
    ``report.json`` (admission names the document that way for both forms of a report)."""
    prefix = f"{REPORT_FILE}: "
    if entry.is_file() and entry.name != REPORT_FILE and rejection.message.startswith(prefix):
        return rejection.message[len(prefix) :]
    return rejection.message


def _free_name(folder: Path, name: str) -> Path:
    target = folder / name
    number = 1
    while os.path.lexists(target) or os.path.lexists(f"{target}{REASON_SUFFIX}"):
        number += 1
        stem, dot, suffix = name.partition(".")
        target = folder / (f"{stem}-{number}{dot}{suffix}" if dot else f"{name}-{number}")
    return target


def move_rejected(inbox: Path, rejection: InboxRejection) -> RejectedEntry:
    """Move a refused entry to ``inbox/rejected/`` and write its reason file beside it.

    If the entry cannot be moved (gone, or no permission), it stays where it is and
    ``moved_to`` is None; the caller still reports it (once, by its fingerprint).
    """
    entry = inbox / rejection.source_name
    message = rejection_message(rejection, entry)
    rejected = RejectedEntry(rejection.source_name, rejection.code.value, message, None)
    if not os.path.lexists(entry):
        return rejected
    folder = inbox / REJECTED_DIR
    try:
        folder.mkdir(exist_ok=True)
        target = _free_name(folder, rejection.source_name)
        os.replace(entry, target)
    except OSError:
        return rejected
    # the file is out of the inbox; if the reason cannot be written, the log line still says why
    with contextlib.suppress(OSError):
        Path(f"{target}{REASON_SUFFIX}").write_text(
            f"{rejection.source_name}\ncode: {rejection.code.value}\n{message}\n", encoding="utf-8"
        )
    return RejectedEntry(rejection.source_name, rejection.code.value, message, target)


def is_rejected_folder(rejection: InboxRejection) -> bool:
    """``inbox/rejected/`` itself, which the importer sees as a folder without a report."""
    return rejection.source_name == REJECTED_DIR
