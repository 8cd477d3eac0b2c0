"""Pool limits on PostgreSQL: two races of Dagster 1.13.27 that ``deploy/dagster.yaml`` avoids.

1. **A default limit can fail a run** (dagster-io/dagster#33552, open). A run caches the instance's
   pool limits at its first step's claim. If, by its first step of another pool, a second run has
   already given that pool its default limit, the first run inserts the default again; on
   PostgreSQL the duplicate INSERT aborts the transaction, the follow-up UPDATE raises
   ``InFailedSqlTransaction`` and the claim, made outside any step, fails the whole run ("An
   exception was thrown during execution"). A CI run of the 10-case backfill lost one run with
   exactly that message; its log kept no stack (the GraphQL client now prints it), so that cause
   is inferred: this race is the one run-level fault found on that path, and ``vba_world_db`` was
   the one pool that test left to its default. The deployment file sets no default: a run never
   writes a pool limit; each pool's limit is set with ``dagster instance concurrency set``
   (README, "Concurrency"), and a pool without one is bounded by the run queue only.
2. **Two steps can claim one slot.** The slot claim's row lock ends with its SELECT (autocommit),
   so two claimers can take the same free slot; the same backfill, re-run here on the earlier
   configuration, once had 3 model calls in flight under a limit of 2. The deployment's event log
   storage (:mod:`vba_assets.defs.instance_storage`) claims in one transaction.

Both are replayed deterministically: the first with the executor's own claim object
(:class:`InstanceConcurrencyContext`), the second by holding one claimer after its SELECT (a
SQLAlchemy cursor event) while the other claims. Each race also runs on Dagster's own behaviour, as
a canary: when an upgrade fixes it, that test fails and the workaround can go.
"""

import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import yaml
from dagster import DagsterInstance, DagsterRun
from dagster._core.execution.plan.instance_concurrency_context import InstanceConcurrencyContext
from dagster._core.storage.event_log.sql_event_log import SqlEventLogStorage
from dagster._utils.concurrency import ConcurrencySlotStatus
from dagster_postgres import PostgresEventLogStorage
from sqlalchemy import event
from sqlalchemy.exc import InternalError

from tests.conftest import REPO
from vba_assets.defs.concurrency import MODEL_POOL, WORLD_DB_POOL
from vba_assets.defs.instance_storage import PoolSafePostgresEventLogStorage

CAPTURES_STEP = "resolution_captures"
PLAN_STEP = "resolution_plan"
#: Bounds a claimer held after its SELECT (a claim takes milliseconds); it stops a hang.
HOLD_TIMEOUT_S = 10.0


def _instance(
    home: Path, *, default_limit: int | None, config_file: str = "dagster.yaml"
) -> DagsterInstance:
    """An instance from ``deploy/<config_file>`` (plus a default pool limit) in ``home``."""
    home.mkdir()
    config = yaml.safe_load((REPO / "deploy" / config_file).read_text(encoding="utf-8"))
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


@pytest.mark.postgres
def test_the_deployed_instance_lets_two_runs_race_into_a_pool_without_a_limit(
    instances: Callable[..., DagsterInstance],
) -> None:
    instance = instances()
    assert "default_limit" not in instance.get_settings("concurrency").get("pools", {})
    assert instance.event_log_storage.get_pool_limits() == []

    assert _race(instance, WORLD_DB_POOL) == (True, True)
    # no run wrote a limit: the pool stays as the operator left it (none)
    assert instance.event_log_storage.get_pool_limits() == []


@pytest.mark.postgres
def test_a_limit_set_by_the_operator_is_enforced_and_never_rewritten_by_a_run(
    instances: Callable[..., DagsterInstance],
) -> None:
    instance = instances()
    instance.event_log_storage.set_concurrency_slots(WORLD_DB_POOL, 1)

    assert _race(instance, WORLD_DB_POOL) == (True, False)  # one slot: the second run waits
    [limit] = instance.event_log_storage.get_pool_limits()
    assert (limit.name, limit.limit, limit.from_default) == (WORLD_DB_POOL, 1, False)


@pytest.mark.postgres
def test_with_a_default_pool_limit_the_same_race_fails_the_earlier_run(
    instances: Callable[..., DagsterInstance],
) -> None:
    """The upstream bug this deployment avoids (a canary: when a Dagster upgrade fixes #33552,
    this fails, and ``default_limit`` may come back to ``deploy/dagster.yaml``)."""
    instance = instances(default_limit=4)

    with pytest.raises(InternalError, match="InFailedSqlTransaction"):
        _race(instance, WORLD_DB_POOL)


def test_the_make_run_instance_on_sqlite_survives_the_race_with_its_default_limit(
    tmp_path: Path,
) -> None:
    """``deploy/dagster.local.yaml`` keeps ``default_limit``: SQLite undoes only the failed
    INSERT, so the later claim goes on (``make run`` sets both pools anyway)."""
    with _instance(
        tmp_path / "home", default_limit=None, config_file="dagster.local.yaml"
    ) as local:
        assert local.get_settings("concurrency")["pools"]["default_limit"] == 2
        assert _race(local, WORLD_DB_POOL) == (True, True)
        [limit] = local.event_log_storage.get_pool_limits()
        assert (limit.name, limit.limit, limit.from_default) == (WORLD_DB_POOL, 2, True)


def _claim_while_another_holds_its_selected_slot(
    storage: SqlEventLogStorage, pool: str
) -> tuple[ConcurrencySlotStatus, ConcurrencySlotStatus]:
    """Run A's slot claim stops right after it selected a free slot; run B claims meanwhile.

    Returns (B's result, A's result).
    """
    engine = storage._engine  # PostgresEventLogStorage's engine
    a_selected, b_done = threading.Event(), threading.Event()
    held = threading.local()

    def hold_after_select(conn, cursor, statement, parameters, context, executemany) -> None:
        if getattr(held, "active", False) and "SKIP LOCKED" in statement:
            held.active = False
            a_selected.set()
            b_done.wait(HOLD_TIMEOUT_S)

    results: dict[str, ConcurrencySlotStatus] = {}

    def claim_a() -> None:
        held.active = True
        results["a"] = storage._claim_concurrency_slot(pool, "run-a", PLAN_STEP)

    event.listen(engine, "after_cursor_execute", hold_after_select)
    try:
        claimer = threading.Thread(target=claim_a)
        claimer.start()
        assert a_selected.wait(HOLD_TIMEOUT_S)
        results["b"] = storage._claim_concurrency_slot(pool, "run-b", PLAN_STEP)
        b_done.set()
        claimer.join(HOLD_TIMEOUT_S)
    finally:
        event.remove(engine, "after_cursor_execute", hold_after_select)
    return results["b"], results["a"]


@pytest.mark.postgres
def test_the_deployed_event_log_gives_a_slot_to_one_step_only(
    instances: Callable[..., DagsterInstance],
) -> None:
    storage = instances().event_log_storage
    assert isinstance(storage, PoolSafePostgresEventLogStorage)
    storage.set_concurrency_slots(MODEL_POOL, 1)

    blocked, claimed = _claim_while_another_holds_its_selected_slot(storage, MODEL_POOL)

    assert (blocked, claimed) == (ConcurrencySlotStatus.BLOCKED, ConcurrencySlotStatus.CLAIMED)
    assert [
        (s.run_id, s.step_key) for s in storage.get_concurrency_info(MODEL_POOL).claimed_slots
    ] == [("run-a", PLAN_STEP)]
    # with two slots, the second claimer skips the held one and takes the other
    storage.free_concurrency_slots_for_run("run-a")
    storage.set_concurrency_slots(MODEL_POOL, 2)
    assert _claim_while_another_holds_its_selected_slot(storage, MODEL_POOL) == (
        ConcurrencySlotStatus.CLAIMED,
        ConcurrencySlotStatus.CLAIMED,
    )
    assert len(storage.get_concurrency_info(MODEL_POOL).claimed_slots) == 2


@pytest.mark.postgres
def test_dagster_s_own_postgres_event_log_gives_one_slot_to_two_steps(
    instances: Callable[..., DagsterInstance],
) -> None:
    """The upstream race the deployment's storage fixes (a canary for a Dagster upgrade)."""
    deployed = instances().event_log_storage
    storage = PostgresEventLogStorage(deployed.postgres_url)
    try:
        storage.set_concurrency_slots(MODEL_POOL, 1)
        assert _claim_while_another_holds_its_selected_slot(storage, MODEL_POOL) == (
            ConcurrencySlotStatus.CLAIMED,
            ConcurrencySlotStatus.CLAIMED,
        )
        # both steps run, on one slot: the slot row names only the later writer
        assert len(storage.get_concurrency_info(MODEL_POOL).claimed_slots) == 1
    finally:
        storage.dispose()
