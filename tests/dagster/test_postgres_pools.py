"""Pool limits on PostgreSQL: why ``deploy/dagster.yaml`` sets no ``pools.default_limit``.

Dagster 1.13.27 has a race (dagster-io/dagster#33552, open): a run caches the instance's pool
limits at its first step's claim. If, by its first step of another pool, a second run has already
given that pool its default limit, the first run inserts the default again; on PostgreSQL the
duplicate INSERT aborts the transaction, the follow-up UPDATE raises ``InFailedSqlTransaction`` and
the claim, made outside any step, fails the whole run ("An exception was thrown during
execution"). CI's 10-case backfill lost one run of ten this way, on ``vba_world_db``, the one pool
it had not set.

The deployment file therefore sets no default: a run never writes a pool limit, each pool's limit
is set with ``dagster instance concurrency set`` (README, "Concurrency"), and a pool without one is
bounded by the run queue only. These tests replay the race deterministically with the executor's
own claim object (:class:`InstanceConcurrencyContext`, what the in-process executor uses).
"""

import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import yaml
from dagster import DagsterInstance, DagsterRun
from dagster._core.execution.plan.instance_concurrency_context import InstanceConcurrencyContext
from sqlalchemy.exc import InternalError

from tests.conftest import REPO
from vba_assets.defs.concurrency import WORLD_DB_POOL

pytestmark = pytest.mark.postgres

CAPTURES_STEP = "resolution_captures"


def _instance(home: Path, *, default_limit: int | None) -> DagsterInstance:
    """An instance from ``deploy/dagster.yaml`` (plus a default pool limit) in ``home``."""
    home.mkdir()
    config = yaml.safe_load((REPO / "deploy" / "dagster.yaml").read_text(encoding="utf-8"))
    if default_limit is not None:
        config["concurrency"]["pools"]["default_limit"] = default_limit
    (home / "dagster.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return DagsterInstance.from_config(str(home))


@pytest.fixture
def instances(
    tmp_path: Path, pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., DagsterInstance]]:
    """Opens instances on the test's own PostgreSQL database; closes them afterwards."""
    monkeypatch.setenv("DAGSTER_PG_DB", pg_database)  # the storage reads it when it loads
    with ExitStack() as stack:

        def open_instance(default_limit: int | None = None) -> DagsterInstance:
            home = tmp_path / f"home-{uuid.uuid4().hex[:8]}"
            return stack.enter_context(_instance(home, default_limit=default_limit))

        yield open_instance


def _race(instance: DagsterInstance, pool: str) -> tuple[bool, bool]:
    """Two runs claim ``pool`` for their captures step; the first cached the pool limits earlier.

    Returns the two claims' results (the later run's first, then the earlier run's).
    """
    early, late = (DagsterRun(job_name="__ASSET_JOB", run_id=str(uuid.uuid4())) for _ in range(2))
    with (
        InstanceConcurrencyContext(instance, early) as early_run,
        InstanceConcurrencyContext(instance, late) as late_run,
    ):
        early_run.get_pool_info(pool)  # caches the pool limits as they are before either claim
        late_claim = late_run.claim(pool, CAPTURES_STEP)
        early_claim = early_run.claim(pool, CAPTURES_STEP)
        for run in (early_run, late_run):
            run.free_step(CAPTURES_STEP)
    return late_claim, early_claim


def test_the_deployed_instance_lets_two_runs_race_into_a_pool_without_a_limit(
    instances: Callable[..., DagsterInstance],
) -> None:
    instance = instances()
    assert "default_limit" not in instance.get_settings("concurrency").get("pools", {})
    assert instance.event_log_storage.get_pool_limits() == []

    assert _race(instance, WORLD_DB_POOL) == (True, True)
    # no run wrote a limit: the pool stays as the operator left it (none)
    assert instance.event_log_storage.get_pool_limits() == []


def test_a_limit_set_by_the_operator_is_enforced_and_never_rewritten_by_a_run(
    instances: Callable[..., DagsterInstance],
) -> None:
    instance = instances()
    instance.event_log_storage.set_concurrency_slots(WORLD_DB_POOL, 1)

    assert _race(instance, WORLD_DB_POOL) == (True, False)  # one slot: the second run waits
    [limit] = instance.event_log_storage.get_pool_limits()
    assert (limit.name, limit.limit, limit.from_default) == (WORLD_DB_POOL, 1, False)


def test_with_a_default_pool_limit_the_same_race_fails_the_earlier_run(
    instances: Callable[..., DagsterInstance],
) -> None:
    """The upstream bug this deployment avoids (a canary: when a Dagster upgrade fixes #33552,
    this fails, and ``default_limit`` may come back to ``deploy/dagster.yaml``)."""
    instance = instances(default_limit=4)

    with pytest.raises(InternalError, match="InFailedSqlTransaction"):
        _race(instance, WORLD_DB_POOL)
