"""Publications made durable together: one ``syncfs`` for their bytes, one for their names.

While a :class:`~vba_assets.store.package.CasePackage` holds a lock (``syncfs`` usable,
:mod:`vba_assets.store.durability`), a write does not fsync its temp file or link it at
once: :meth:`PublicationBatch.publish` writes the temp file and queues it. :meth:`settle` then
makes every queued temp file durable with one barrier and only *then* links them, in write
order; :meth:`flush` settles and makes the new names durable with a second barrier. So the
order each file had alone still holds for every file of the batch:

    data durable (barrier 1) -> name linked -> name durable (barrier 2) -> anything referring to it

The package settles before anything could observe a queued file on disk (a path handed out, a
folder listed, a verify, an import's temp cleanup) and flushes before every event and before
releasing a lock (also on an exception), so nothing outside the package ever sees the
difference; reads and listings through the package answer from the queue. A process killed
before the settle leaves temp files, exactly what a kill between write and link always left:
invisible, reported by ``verify`` as stale, removed under the next lock of their folder.

No ``syncfs``, or a file on another filesystem: each write is published at once with its own
fsyncs (:func:`~vba_assets.store.atomic.publish_bytes`).
"""

import hashlib
from pathlib import Path

from vba_assets.errors import StoreError
from vba_assets.store.atomic import (
    conflict_error,
    fsync_dir,
    link_temp,
    publish_bytes,
    unlink_quietly,
    write_temp,
)
from vba_assets.store.durability import Barrier


class PublicationBatch:
    """The queued publications and not-yet-durable folders of one package."""

    def __init__(self) -> None:
        #: Folders whose new entries are not durable yet.
        self.pending_dirs: set[Path] = set()
        #: Queued publications: final path -> (temp path, bytes); dicts keep write order.
        self._queued: dict[Path, tuple[Path, bytes]] = {}
        self._barrier: Barrier | None = None
        self._holds = 0

    # -- the scope: a held lock ------------------------------------------------------------------

    def begin(self, directory: Path) -> None:
        """A lock is taken (``directory``: its folder); the outermost one opens the barrier,
        before anything it covers is written."""
        self._holds += 1
        if self._holds == 1:
            self._barrier = Barrier.open(directory)

    def end(self) -> None:
        """A lock is released (after :meth:`flush`); the outermost one closes the barrier."""
        self._holds -= 1
        if self._holds == 0 and self._barrier is not None:
            barrier, self._barrier = self._barrier, None
            barrier.close()

    # -- writes ----------------------------------------------------------------------------------

    def publish(self, target: Path, data: bytes) -> bool:
        """Publish ``data`` at ``target`` (see the module docstring for when it is queued).

        Returns:
            ``True`` if the file is new, ``False`` if identical bytes are already there or queued.

        Raises:
            StoreError: ``ARTIFACT_CONFLICT`` if different bytes are there or queued.
        """
        queued = self._queued.get(target)
        if queued is not None:
            if queued[1] != data:
                raise conflict_error(target, hashlib.sha256(queued[1]).hexdigest(), data)
            return False
        barrier = self._barrier
        if barrier is None:
            return publish_bytes(target, data, self.pending_dirs)
        written = write_temp(target, data, self.pending_dirs, unsynced_dev=barrier.dev)
        if written is None:
            return False
        temp, synced = written
        if synced:  # another filesystem: fsynced, so it may be linked at once
            return link_temp(temp, target, data, self.pending_dirs)
        self._queued[target] = (temp, data)
        return True

    def queued(self, target: Path) -> bytes | None:
        """The bytes queued for ``target`` (None if nothing is)."""
        entry = self._queued.get(target)
        return None if entry is None else entry[1]

    def queued_names(self, directory: Path) -> list[str]:
        """The names of the files queued directly in ``directory``."""
        return [target.name for target in self._queued if target.parent == directory]

    def settle(self) -> None:
        """Make the queued temp files durable (one barrier), then link them in write order.

        Raises:
            StoreError: ``ARTIFACT_NOT_DURABLE`` if the barrier failed (the temp files are removed
                and nothing is linked); ``ARTIFACT_CONFLICT`` if another writer published
                different bytes at a queued name meanwhile (the rest is still linked).
        """
        if not self._queued:
            return
        queued, self._queued = self._queued, {}
        assert self._barrier is not None
        try:
            self._barrier.sync(f"{len(queued)} new file(s) before naming them")
        except StoreError:
            for temp, _ in queued.values():
                unlink_quietly(temp)
            raise
        failure: StoreError | None = None
        for target, (temp, data) in queued.items():
            try:
                link_temp(temp, target, data, self.pending_dirs)
            except StoreError as exc:
                failure = failure or exc
        if failure is not None:
            raise failure

    def flush(self) -> None:
        """Settle, then make every new folder entry durable: one barrier for those on its
        filesystem (two or more of them), one fsync per folder otherwise."""
        self.settle()
        barrier = self._barrier
        if barrier is not None and len(self.pending_dirs) > 1:
            elsewhere = {folder for folder in self.pending_dirs if not barrier.covers(folder)}
            barrier.sync(f"the new entries of {len(self.pending_dirs)} folder(s)")
            self.pending_dirs = elsewhere
        while self.pending_dirs:
            fsync_dir(self.pending_dirs.pop())
