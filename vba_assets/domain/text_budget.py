"""A stage's CPU budget for its own text work: a cooperative deadline (issue 30, item 2).

A stage runs inside :func:`stage_budget` (``vba_assets.pipeline.stage_budget`` sets it from the
project config); text work checks it with :func:`check_budget` at the head of its loops: per term,
per mention, per line, per search of the heuristic planner and of the controller's rules. Past the
budget the check raises :class:`~vba_assets.errors.BudgetExceeded` (``STAGE_BUDGET_EXCEEDED``),
which the stage records as a block.

Why cooperative, and why CPU time:

* A stage runs in a Dagster run worker (not always the main thread) and in the CLI, ``vba eval``
  runs cases in a thread pool. ``SIGALRM`` only reaches the main thread, and a Python thread
  cannot be killed from outside; a check that the running code makes itself works in any thread.
  What it cannot stop is one call that never returns (a regex that backtracks); that is why the
  text scans themselves must be linear, and the checks sit where the work repeats.
* The budget is the thread's own CPU time (``time.thread_time``), not wall time: waiting for a
  model's reply, a database query or a retry delay costs none of it (those have their own
  timeouts), and other processes on a busy machine do not make a report overrun.
* The budget lives in a :class:`contextvars.ContextVar`, so each thread (each case of a parallel
  ``vba eval``) has its own, and code outside any stage (tests, ``vba lookup``) is never limited.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from vba_assets.errors import BudgetExceeded, ErrorCode


@dataclass(frozen=True)
class _Deadline:
    stage: str
    cpu_s: float
    started: float

    @property
    def until(self) -> float:
        return self.started + self.cpu_s


_DEADLINE: ContextVar[_Deadline | None] = ContextVar("vba_stage_text_budget", default=None)


@contextmanager
def stage_budget(stage: str, cpu_s: float) -> Iterator[None]:
    """Limit the text work of ``stage`` in this thread to ``cpu_s`` seconds of its CPU time."""
    token = _DEADLINE.set(_Deadline(stage, cpu_s, time.thread_time()))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_budget() -> None:
    """Raise :class:`~vba_assets.errors.BudgetExceeded` once the running stage's budget is spent
    (nothing outside a stage). About a microsecond: call it once per unit of repeated work."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return
    now = time.thread_time()
    if now > deadline.until:
        raise BudgetExceeded(
            ErrorCode.STAGE_BUDGET_EXCEEDED,
            f"stage {deadline.stage} spent {now - deadline.started:.1f} s of CPU time on its text "
            f"work, over its budget of {deadline.cpu_s:g} s; it stopped. Raise "
            "[budget] stage_cpu_s in the project config, then resume the revision",
            stage=deadline.stage,
            cpu_budget_s=deadline.cpu_s,
            cpu_spent_s=round(now - deadline.started, 3),
        )
