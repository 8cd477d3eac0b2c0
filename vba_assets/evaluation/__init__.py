"""Quality evaluation of entity resolution (``vba eval``; eval/README.md).

* :mod:`.dataset`: the JSONL gold dataset (loading and validation, pure);
* :mod:`.observations`: what the pipeline produced for a case, as the metrics read it (pure);
* :mod:`.metrics`: the metric definitions and scoring one case (pure);
* :mod:`.aggregate`: sums over cases, per tag, language and tracker (pure);
* :mod:`.runner`: imports each report into a scratch workspace and runs the pipeline (IO), and
  :func:`~vba_assets.evaluation.runner.main`, the command line;
* :mod:`.via`: how each case runs (``--via``): the :class:`~.via.EvalPath` strategy, its CLI
  implementation (``run_trial``); the Dagster one is ``vba_assets.defs.eval_job``;
* :mod:`.observing`: reads an evaluated revision into an observation (IO), and
  :mod:`.pricing`: what one call costs (the price table, else genai-prices' list price);
* :mod:`.code_version`: the code an evaluation measured (``results.json`` ``code_version``);
* :mod:`.report`: ``results.json`` and ``results.md``;
* :mod:`.comparison`: the committed baseline and ``vba eval --compare``;
* :mod:`.search_key_parity`: how far the SQLite search key agrees with a MariaDB collation,
  measured on a real server.

``run_eval`` and ``main`` are importable from here; they load the pipeline only when used.
"""

from typing import Any

__all__ = ["main", "run_eval"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from vba_assets.evaluation import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
