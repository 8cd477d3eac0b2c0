"""One switch for the controller's speed-ups, so a benchmark can time the plain path in the same run.

``VBA_FAST_PATHS=off`` turns off every speed-up that has a plain path to compare with:

* canonical JSON's C-encoder path, its check of plain data without a converted copy, and the
  entry of the bytes the store writes into the memo of bytes proven canonical
  (:mod:`vba_assets.domain.canonical`; that memo itself predates issue 14 and stays on);
* the canonical text of each output schema, once per model class and dialect
  (:mod:`vba_assets.domain.llm.schemas`), and the per-request memos of the request hash and schema
  text (:mod:`vba_assets.domain.llm.contract`);
* the per-process caches of packaged prompt files, rendered system prompts and rebuilt stage
  requests (:mod:`vba_assets.domain.prompting`, :mod:`vba_assets.pipeline.requests`), and the
  packaged demo DB's fingerprint (:mod:`vba_assets.worlddata.build`);
* for context manifests: a built request's items laid out from the pieces its builder rendered
  (:mod:`vba_assets.domain.prompting.requests`) and only the dispatch records of earlier attempts
  read for the correction rounds (:mod:`vba_assets.pipeline.recorder`);
* the store's remembered folders and relpaths and batched folder fsyncs
  (:mod:`vba_assets.store`), its batched file fsyncs under a lock (one ``syncfs`` for the files,
  one for their names, :mod:`vba_assets.store.batch`) and unsynced lock-holder details
  (:mod:`vba_assets.store.lock`), and the once-per-run completion of dispatch records
  (:mod:`vba_assets.pipeline.stages`);
* in the heuristic planner: the name index kept in the cache directory and read back lazily
  (``resources/llm/heuristic_index.py``, built from the CSVs instead) and what it read frozen
  out of the garbage collector's scans (``gc.freeze``), the structures derived from it once per
  process and kept beside it for later processes (inflection indexes, whose stems read back as
  one JSON object; the keys laid out in blobs by script for the contains scan and by shape for
  the shortlist of names a misspelling is scored against,
  :mod:`vba_assets.domain.heuristics.name_scan`), and the catalog kinds of a contains match
  found with the fewest names normalized (:mod:`vba_assets.domain.heuristics.gazetteer`).

Every artifact is byte-identical either way (the benchmarks and tests check it); only the time
differs. The embedded world DB's trigram index
has its own switch (``VBA_WORLD_DB_INDEX``): it changes a capture's recorded SQL.
"""

import os

FAST_PATHS_ENV = "VBA_FAST_PATHS"


def fast_paths_enabled() -> bool:
    """Whether the speed-ups may be used (read at each call, so a benchmark can toggle it)."""
    return os.environ.get(FAST_PATHS_ENV, "on") != "off"
