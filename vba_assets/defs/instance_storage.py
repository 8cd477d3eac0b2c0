"""The PostgreSQL event log storage of ``deploy/dagster.yaml``, with pool slots claimed atomically.

Dagster 1.13.27 claims a pool slot with ``SELECT ... FOR UPDATE SKIP LOCKED`` and then
``UPDATE ... WHERE id = <that slot>``, on a PostgreSQL connection in autocommit mode: the row lock
ends with the SELECT, so two steps can select the same free slot and both "claim" it (the second
UPDATE overwrites the first). Both steps then run; a pool of 2 had 3 model calls in flight in a
backfill here. :class:`PoolSafePostgresEventLogStorage` claims in one transaction (the lock holds
until the slot is taken, so a concurrent claimer skips that slot) and takes a slot only while it
is free (``step_key IS NULL``), so a pool never has more steps holding slots than it has slots.
Everything else is Dagster's ``PostgresEventLogStorage``.

``tests/dagster/test_pool_limits.py`` replays the interleaving on both classes.
"""

from collections.abc import Mapping
from typing import Any

import sqlalchemy as db
from dagster._core.storage.event_log.schema import ConcurrencySlotsTable
from dagster._core.storage.sqlalchemy_compat import db_select
from dagster._serdes import ConfigurableClassData
from dagster._utils.concurrency import ConcurrencySlotStatus
from dagster_postgres import PostgresEventLogStorage
from dagster_postgres.utils import get_token_provider_from_config, pg_url_from_config


class PoolSafePostgresEventLogStorage(PostgresEventLogStorage):
    """``PostgresEventLogStorage`` whose pool slot claim cannot give one slot to two steps."""

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData | None, config_value: Mapping[str, Any]
    ) -> "PoolSafePostgresEventLogStorage":
        # the parent builds a PostgresEventLogStorage by name; the same arguments, this class
        return cls(
            inst_data=inst_data,
            postgres_url=pg_url_from_config(config_value),
            should_autocreate_tables=config_value.get("should_autocreate_tables", True),
            token_provider=get_token_provider_from_config(config_value),
        )

    def _claim_concurrency_slot(
        self, concurrency_key: str, run_id: str, step_key: str
    ) -> ConcurrencySlotStatus:
        free_slot = (
            db_select([ConcurrencySlotsTable.c.id])
            .select_from(ConcurrencySlotsTable)
            .where(
                db.and_(
                    ConcurrencySlotsTable.c.concurrency_key == concurrency_key,
                    ConcurrencySlotsTable.c.step_key.is_(None),
                    ConcurrencySlotsTable.c.deleted.is_(False),
                )
            )
            .with_for_update(skip_locked=True)
            .limit(1)
        )
        with self.index_transaction() as conn:
            row = conn.execute(free_slot).fetchone()
            if row is None:
                return ConcurrencySlotStatus.BLOCKED
            taken = conn.execute(
                ConcurrencySlotsTable.update()
                .values(run_id=run_id, step_key=step_key)
                .where(
                    db.and_(
                        ConcurrencySlotsTable.c.id == row[0],
                        ConcurrencySlotsTable.c.step_key.is_(None),
                    )
                )
            ).rowcount
        return ConcurrencySlotStatus.CLAIMED if taken else ConcurrencySlotStatus.BLOCKED
