"""Accounting for every file of a case package (ARCHITECTURE 4, "Everything is accounted for").

:func:`account_package` (the imported files) and :func:`account_revision` (one revision) say, for
every file, what vouches for it, and report as a :class:`~vba_assets.domain.findings.Finding` every
file nothing vouches for, every record that names a missing file or the wrong bytes, and every
frozen input that disagrees with what was recorded after it. They never raise for bad data and read
nothing outside the package (no DB, no key): a copy of the folder verifies the same anywhere.

What vouches for what:

* ``package.json`` lists every imported report file with its sha256 and size, and the sha256 of
  ``case.json``. Under a protocol with sealed records (v4 on) the ``started`` event of each
  revision binds ``package.json`` itself, ``input.json`` and ``entity-resolution/input.json``.
* ``events.jsonl`` is hash-chained (protocol v4 on; older logs are reported as ``info``). Its
  ``dispatched``/``rejected`` events name each dispatch record (and from v4 its manifest and
  rejected record) by sha256, its ``captured`` events each capture, its ``accepted`` events each
  accepted artifact (and from v4 the accepted dispatch record, its manifest and every rejected
  record before it). Every such file must have its event and every event its file.
* Derived files are recomputed: a rejected record from its dispatch record, a manifest's identity
  fields from its record, a ``disabled`` artifact from the frozen setting; the candidate index,
  the F/N/D context and every accepted artifact are recomputed by the replay verifiers
  (:mod:`vba_assets.pipeline.replay_verifiers`).
* Frozen inputs are compared with what came after them: the case hash and clock anchor with
  ``case.json``, the protocol, model and parameters with every dispatch record, the resolution
  input with the interpretation input; the captures' snapshot and row limit by the asset checks.

Limits (no secret, no external anchor): someone who rewrites a file *and* every hash that names
it, up to the end of a recomputed chain, is not detected; lines cut from the end of the log are
detected only when a remaining file names them (true for every line of a completed revision).
"""

from vba_assets.pipeline.integrity.imported import (
    account_package,
    revision_folders,
    revision_of,
)
from vba_assets.pipeline.integrity.revision_accounting import account_revision

__all__ = ["account_package", "account_revision", "revision_folders", "revision_of"]
