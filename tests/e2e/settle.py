"""Waiting, through the GraphQL API, until the inbox sensor's work on a set of partitions is done."""

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from tests.e2e.graphql import (
    TERMINAL_RUN_STATUSES,
    DagsterGraphQL,
    JobRef,
    RunSummary,
)
from vba_assets.defs.partitions import partition_key

#: The job, sensor and root asset named in the README and ARCHITECTURE (the UI's contract).
JOB = "interpret_cases"
SENSOR = "inbox_sensor"
CASE_ASSET = "case"


@dataclass(frozen=True)
class Settled:
    """Every expected partition is registered and every run of the job has finished."""

    job: JobRef
    partitions: list[str]
    latest_runs: dict[str, RunSummary]  # partition -> its newest run
    seconds: float


def partition_keys(case_ids: list[str], revision: str) -> list[str]:
    """``<case>|<revision>`` keys, built by the project's one partition-key module."""
    return [str(partition_key(case_id, revision)) for case_id in case_ids]


def latest_run_by_partition(runs: list[RunSummary]) -> dict[str, RunSummary]:
    latest: dict[str, RunSummary] = {}
    for run in sorted(runs, key=lambda r: r.creation_time):
        if run.partition is not None:
            latest[run.partition] = run
    return latest


def wait_until_settled(
    client: DagsterGraphQL,
    case_ids: list[str],
    revision: str,
    timeout_s: float,
    diagnostics: Callable[[], str] = lambda: "",
) -> Settled:
    """Poll until the sensor registered every ``<case>|<revision>`` and their runs finished.

    Raises:
        LocationLoadError: at once, when the code location does not load.
        TimeoutError: after ``timeout_s``, with what was reached and ``diagnostics()``.
    """
    started = time.monotonic()
    expected = partition_keys(case_ids, revision)
    progress = "the code location is still loading"
    while True:
        job = client.find_job(JOB)  # raises LocationLoadError when the definitions do not load
        if job is not None:
            registered = set(client.partition_keys(CASE_ASSET))
            unregistered = [key for key in expected if key not in registered]
            runs = client.runs(JOB)
            latest = latest_run_by_partition(runs)
            without_run = [p for p in expected if p not in latest]
            unfinished = [r for r in runs if r.status not in TERMINAL_RUN_STATUSES]
            if not unregistered and not without_run and not unfinished:
                return Settled(
                    job=job,
                    partitions=expected,
                    latest_runs={p: latest[p] for p in expected},
                    seconds=time.monotonic() - started,
                )
            statuses = Counter(r.status for r in runs)
            progress = (
                f"unregistered: {unregistered or 'none'}; partitions without a run: "
                f"{without_run or 'none'}; runs by status: {dict(statuses) or 'no runs'}"
            )
        if time.monotonic() - started > timeout_s:
            raise TimeoutError(
                f"the sensor's runs did not settle within {timeout_s:.0f} s: {progress}\n"
                f"{diagnostics()}"
            )
        time.sleep(2.0)
