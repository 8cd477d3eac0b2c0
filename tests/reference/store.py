"""A case package that resolves every relpath in full, as before it remembered folders and paths."""

from pathlib import Path

from vba_assets.store import CasePackage
from vba_assets.store.paths import confine


class PlainCasePackage(CasePackage):
    """:class:`CasePackage` with every path confined afresh (:func:`confine`: validated, every
    part resolved, symlink escapes refused) and every existence check taken on that path."""

    def _resolve(self, relpath: str) -> Path:
        return confine(self.root, relpath)

    def exists(self, relpath: str) -> bool:
        target = self._resolve(relpath)
        return self._batch.queued(target) is not None or target.is_file()
