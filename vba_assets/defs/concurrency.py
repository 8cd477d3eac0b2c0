"""How many cases, model calls and world-DB queries run at once (README, "Concurrency").

Three limits, all set per deployment, none in code:

* **Pools** (Dagster concurrency pools, op granularity): the three model-calling assets take a slot
  of :data:`MODEL_POOL` while their step runs, the captures one of :data:`WORLD_DB_POOL`. A step
  that finds its pool full waits (the run keeps its process; a blocked run holds no model call).
  Limits: ``dagster instance concurrency set vba_model_calls 4`` (stored in the instance's
  database; ``make run`` sets them from ``MODEL_CALLS`` / ``DB_QUERIES``). ``deploy/dagster.yaml``
  sets no ``concurrency.pools.default_limit``: on PostgreSQL a default can fail a run when two runs
  first use a pool at once (Dagster 1.13.27, dagster-io/dagster#33552); its event log storage
  (:mod:`vba_assets.defs.instance_storage`) claims each slot atomically.
* **The run queue** (``concurrency.runs.max_concurrent_runs``): how many cases run at once.
* **One run per revision** (``concurrency.runs.tag_concurrency_limits`` on
  :data:`REVISION_RUN_TAG`, one per unique value): a second run of the same partition waits in the
  queue instead of colliding on the revision lock.

The files are ``deploy/dagster.yaml`` (PostgreSQL) and ``deploy/dagster.local.yaml`` (``make run``).
"""

#: The pool of the steps that send model requests (plan, assessment, interpretation).
MODEL_POOL = "vba_model_calls"
#: The pool of the step that queries the world database (captures).
WORLD_DB_POOL = "vba_world_db"
#: Every run of a partition carries this tag with the partition key (``<case>|<revision>``).
REVISION_RUN_TAG = "dagster/partition"

POOLS = (MODEL_POOL, WORLD_DB_POOL)
