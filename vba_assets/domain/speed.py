"""One switch for the controller's speed-ups, so a benchmark can time the plain path in the same run.

``VBA_FAST_PATHS=off`` turns off: the C-encoder path of canonical JSON
(:mod:`vba_assets.domain.canonical`), the per-process caches of the packaged prompt files and of
rendered system prompts (:mod:`vba_assets.domain.prompting`), and the store's remembered folders
and batched folder fsyncs (:mod:`vba_assets.store`). Every artifact is byte-identical either way
(the benchmarks and tests check it); only the time differs. The embedded world DB's trigram index
has its own switch (``VBA_WORLD_DB_INDEX``): it changes a capture's recorded SQL.
"""

import os

FAST_PATHS_ENV = "VBA_FAST_PATHS"


def fast_paths_enabled() -> bool:
    """Whether the speed-ups may be used (read at each call, so a benchmark can toggle it)."""
    return os.environ.get(FAST_PATHS_ENV, "on") != "off"
