"""Quality evaluation of entity resolution (``vba eval``; eval/README.md).

* :mod:`.dataset`: the JSONL gold dataset (loading and validation, pure);
* :mod:`.metrics`: the metric definitions and their computation (pure);
* :mod:`.runner`: imports each report into a scratch workspace and runs the pipeline (IO), and
  :func:`~vba_assets.evaluation.runner.main`, the command line;
* :mod:`.report`: ``results.json``, ``results.md`` and the baseline comparison.

``run_eval`` and ``main`` are importable from here; they load the pipeline only when used.
"""

from typing import Any

__all__ = ["main", "run_eval"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from vba_assets.evaluation import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
