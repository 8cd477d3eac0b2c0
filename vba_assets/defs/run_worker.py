"""A run worker host of the several-host deployment: a Celery worker that executes whole runs.

    python -m vba_assets.defs.run_worker [--name NAME] [--concurrency N]
    python -m vba_assets.defs.run_worker --urls      # the broker/backend exports, from DAGSTER_PG_*

The instance file (``$DAGSTER_HOME/dagster.yaml``, ``deploy/dagster.several-hosts.yaml``) names
dagster-celery's ``CeleryRunLauncher``: the daemon turns each dequeued run into a Celery task, and
a worker started here executes it: ``dagster api execute_run``'s body in a worker process, the
six steps in one process with the job's in-process executor, as on one host. The worker takes its
broker, result backend, queue and Celery settings from that same launcher (one source of truth,
the instance file), registers dagster-celery's run tasks, and starts ``celery worker``.

Each run worker host has a ``DAGSTER_HOME`` of its own with the same ``dagster.yaml``, the
project installed, and its own environment (``VBA_PROJECT_CONFIG``, ``VBA_WORKSPACE`` or the
bucket, provider keys); it shares nothing with the other hosts but PostgreSQL and the bucket.

kombu's SQLAlchemy transport (the broker in PostgreSQL) never hands a taken message out again,
so a worker host that dies (power, SIGKILL) loses the messages it holds: at most ``--concurrency``
(prefetch 1 per process, acknowledged when the run ends). A run it was executing stays
``STARTED``: ``run_monitoring.max_runtime_seconds`` fails it; a run it had taken but not started
stays ``STARTING``: ``run_monitoring.start_timeout_seconds`` fails it; either way ``run_retries``
launches it again from the step that did not finish. Messages no worker took stay in the broker
for the next worker. (tests/dagster/test_several_hosts.py kills a worker mid-run.)
"""

import argparse
import os
import socket
import sys
import time
from collections.abc import Sequence
from urllib.parse import quote

#: Celery's worker pool: ``prefork`` runs each task in a child process of the worker (a crash of a
#: run does not take the worker down); each child is replaced after this many runs, so that no
#: state of one run (caches, open files) lives on in the next for long.
MAX_TASKS_PER_CHILD = 20
#: Attempts to create the broker and result tables when several workers start at once.
PREPARE_ATTEMPTS = 5


def celery_urls(environ: dict[str, str] | None = None) -> tuple[str, str]:
    """The broker and result backend URLs on the instance's PostgreSQL (``DAGSTER_PG_*``)."""
    env = os.environ if environ is None else environ
    user = quote(env["DAGSTER_PG_USER"], safe="")
    password = quote(env["DAGSTER_PG_PASSWORD"], safe="")
    where = f"{user}:{password}@{env['DAGSTER_PG_HOST']}:{env['DAGSTER_PG_PORT']}"
    database = quote(env["DAGSTER_PG_DB"], safe="")
    return (
        f"sqla+postgresql+psycopg2://{where}/{database}",
        f"db+postgresql+psycopg2://{where}/{database}",
    )


def _export_lines() -> str:
    broker, backend = celery_urls()
    return (
        f"export DAGSTER_CELERY_BROKER_URL='{broker}'\n"
        f"export DAGSTER_CELERY_BACKEND_URL='{backend}'\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vba_assets.defs.run_worker", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--name", default=None, help="worker name (default: vba-run-worker@host)")
    parser.add_argument(
        "--concurrency", type=int, default=1, help="runs this worker executes at once (1)"
    )
    parser.add_argument("--loglevel", default="INFO")
    parser.add_argument(
        "--urls", action="store_true", help="print the export lines of the Celery URLs and exit"
    )
    args = parser.parse_args(argv)
    if args.urls:
        sys.stdout.write(_export_lines())
        return 0
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")

    # Dagster and Celery are imported here: `--urls` needs neither
    import dagster as dg
    from dagster_celery.launcher import CeleryRunLauncher
    from dagster_celery.tasks import create_execute_job_task, create_resume_job_task

    with dg.DagsterInstance.get() as instance:
        launcher = instance.run_launcher
        if not isinstance(launcher, CeleryRunLauncher):
            parser.error(
                f"$DAGSTER_HOME/dagster.yaml must name dagster_celery's CeleryRunLauncher, not "
                f"{type(launcher).__name__} (deploy/dagster.several-hosts.yaml)"
            )
        app = launcher.celery
        queue = launcher.default_queue
    create_execute_job_task(app)
    create_resume_job_task(app)
    _prepare_tables(app)
    name = args.name or f"vba-run-worker-{os.getpid()}@{socket.gethostname()}"
    app.worker_main(
        [
            "worker",
            f"--hostname={name}",
            f"--queues={queue}",
            f"--concurrency={args.concurrency}",
            "--pool=prefork",
            f"--max-tasks-per-child={MAX_TASKS_PER_CHILD}",
            f"--loglevel={args.loglevel}",
            # no gossip, mingle or events: the SQLAlchemy transport has no broadcast
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )
    return 0


def _prepare_tables(app: object) -> None:
    """Create the broker's and the result backend's tables before the worker consumes.

    Two workers starting at once race on ``CREATE TABLE`` in PostgreSQL (one fails on a unique
    index of the catalog): the loser tries again, and finds the tables.
    """
    from celery import Celery

    assert isinstance(app, Celery)
    for attempt in range(1, PREPARE_ATTEMPTS + 1):
        try:
            with app.connection_for_read() as connection:
                connection.default_channel.queue_declare(queue=app.conf.task_default_queue)
            app.backend.ResultSession().close()  # creates celery_taskmeta on first use
            return
        except Exception:
            if attempt == PREPARE_ATTEMPTS:
                raise
            time.sleep(0.5 * attempt)


if __name__ == "__main__":
    sys.exit(main())
