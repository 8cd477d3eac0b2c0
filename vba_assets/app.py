"""The ``vba`` command: :func:`vba_assets.cli.main`, with the Dagster path of ``vba eval``.

The command's composition root. :mod:`vba_assets.cli` and :mod:`vba_assets.evaluation` never import
Dagster (import-linter), so this is the one place that hands ``vba eval --via dagster``
(:class:`vba_assets.defs.eval_job.DagsterPath`) to the evaluation runner. Imports are lazy, as in
:mod:`vba_assets.cli`: Dagster is imported only when that path is chosen.
"""

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from vba_assets.cli import main as cli_main

if TYPE_CHECKING:
    from vba_assets.evaluation.via import EvalPath, EvalPaths


def _dagster_path() -> "EvalPath":
    from vba_assets.defs.eval_job import DagsterPath

    return DagsterPath()


def eval_paths() -> "EvalPaths":
    """The ``--via`` choices of ``vba eval``: ``cli`` (the default) and ``dagster``."""
    from vba_assets.evaluation.via import CLI_PATHS

    return {**CLI_PATHS, "dagster": _dagster_path}


def main(argv: Sequence[str] | None = None) -> int:
    """``vba``: every command of :mod:`vba_assets.cli`; ``vba eval`` also offers ``--via dagster``."""
    args = list(sys.argv[1:] if argv is None else argv)
    return cli_main(args, eval_paths=eval_paths() if args[:1] == ["eval"] else None)


if __name__ == "__main__":
    raise SystemExit(main())
