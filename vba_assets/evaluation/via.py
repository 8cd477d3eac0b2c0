"""How ``vba eval`` runs each case (``--via``): the seam between the evaluation and the orchestration.

An :class:`EvalPath` opens a :class:`CaseRunner` for one evaluation run; the runner takes an
imported case's revision up to ``interpretation`` and raises the stage's
:class:`~vba_assets.errors.VbaError` when the case blocks, as
:func:`~vba_assets.pipeline.trial.run_trial` does. Two implementations:

* :class:`TrialPath` (``--via cli``, the default): :func:`~vba_assets.pipeline.trial.run_trial`,
  the code of ``vba trial run``;
* ``vba_assets.defs.eval_job.DagsterPath`` (``--via dagster``): the ``interpret_cases`` job of the
  project's Definitions, materialized in process, one partition per case.

This package never imports Dagster (import-linter); the ``vba`` entry point
(:mod:`vba_assets.app`) hands the Dagster path to :func:`vba_assets.evaluation.runner.main`.
"""

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from resources.world_db import WorldDatabase
from vba_assets.config import ProjectConfig
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.trial import run_trial
from vba_assets.store import Workspace


class CaseRunner(Protocol):
    """Runs one imported case of the evaluation's workspace."""

    def __call__(self, case_id: str, revision: str) -> None:
        """Run ``revision`` of ``case_id`` up to ``interpretation``.

        Raises:
            VbaError: the stage that stopped the case (a block, exhausted corrections, a
                configuration error), as :func:`~vba_assets.pipeline.trial.run_trial` raises it.
        """
        ...


class EvalPath(Protocol):
    """A way of running the cases of one evaluation (a strategy of the runner)."""

    def open(
        self, workspace: Workspace, project: ProjectConfig, llm: LlmConfig
    ) -> AbstractContextManager[CaseRunner]:
        """A runner for cases of ``workspace``, with the evaluation's configs; closing it
        releases what it holds (database connections, a Dagster instance). The runner may be
        called from several threads at once."""
        ...


#: ``--via`` names and how to make each path (a factory, so a path that is not chosen is never
#: imported: the Dagster one loads Dagster).
EvalPaths = Mapping[str, Callable[[], EvalPath]]

#: The default ``--via``.
DEFAULT_VIA = "cli"


class TrialPath:
    """``--via cli``: :func:`~vba_assets.pipeline.trial.run_trial`, what ``vba trial run`` runs.

    One world DB object per worker thread; ``run_trial`` closes it after each case and a later use
    reconnects, so the reflected schema and snapshot binding are computed once per thread.
    """

    def open(
        self, workspace: Workspace, project: ProjectConfig, llm: LlmConfig
    ) -> AbstractContextManager[CaseRunner]:
        return _trial_runner(workspace, project, llm)


@contextmanager
def _trial_runner(
    workspace: Workspace, project: ProjectConfig, llm: LlmConfig
) -> Iterator[CaseRunner]:
    local = threading.local()
    opened: list[WorldDatabase] = []
    lock = threading.Lock()

    def open_db() -> WorldDatabase:
        if not hasattr(local, "db"):
            local.db = WorldDatabase.from_config(project)
            with lock:
                opened.append(local.db)
        db: WorldDatabase = local.db
        return db

    def run(case_id: str, revision: str) -> None:
        run_trial(
            workspace,
            case_id,
            revision,
            project,
            llm,
            stop_after="interpretation",
            max_dispatches=llm.max_dispatches,
            open_db=open_db,
        )

    try:
        yield run
    finally:
        for db in opened:
            db.close()


#: The paths every entry of ``vba eval`` offers; :mod:`vba_assets.app` adds ``dagster``.
CLI_PATHS: EvalPaths = {DEFAULT_VIA: TrialPath}
