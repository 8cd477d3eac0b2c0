"""The trivial graph of ``bench/throughput.py``: our graph's shape with nothing inside.

Six chained assets with our names, partitions (``case_revision``), pools, code versions and one
check definition per stage holding our check names, all passing; the three model-calling assets
sleep ``VBA_SIM_LATENCY_S`` once each (one simulated model call, logged like the real ones to
``VBA_SIM_CALL_LOG``). What a backfill of it costs is Dagster's own cost for our shape: launching a
process per run, the steps, the event log, the queue. Loaded by a code server as
``-m throughput_defs -a defs`` (working directory ``bench/``).

It imports nothing of the project (so a run's process does not load our code): the shape comes
from ``VBA_TRIVIAL_SHAPE``, which ``throughput.py`` writes from the stage registry as JSON:
``[{"name", "pool", "calls_model", "checks": [[name, blocking], ...]}, ...]`` in pipeline order.
"""

import json
import os
import time
from collections.abc import Iterator, Sequence
from typing import Any

import dagster as dg

#: The same name as the project's partitions (vba_assets.defs.partitions.PARTITIONS_NAME).
case_revision_partitions = dg.DynamicPartitionsDefinition(name="case_revision")


def _simulated_call(context: dg.AssetExecutionContext, stage: str) -> None:
    latency = float(os.environ.get("VBA_SIM_LATENCY_S", "0"))
    start = time.time()
    time.sleep(latency)
    log = os.environ.get("VBA_SIM_CALL_LOG")
    if log:
        line = {
            "pid": os.getpid(),
            "partition": context.partition_key,
            "stage": stage,
            "start": start,
            "end": time.time(),
        }
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def _asset(stage: dict[str, Any], deps: Sequence[dg.AssetsDefinition]) -> dg.AssetsDefinition:
    @dg.asset(
        name=stage["name"],
        partitions_def=case_revision_partitions,
        deps=list(deps),
        group_name="trivial",
        code_version="trivial",
        pool=stage["pool"],
    )
    def trivial(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        if stage["calls_model"]:
            _simulated_call(context, stage["name"])
        return dg.MaterializeResult(data_version=dg.DataVersion(context.partition_key))

    return trivial


def _checks(stage: dict[str, Any]) -> dg.AssetChecksDefinition:
    @dg.multi_asset_check(
        name=f"{stage['name']}_checks",
        specs=[
            dg.AssetCheckSpec(
                name,
                asset=stage["name"],
                blocking=blocking,
                partitions_def=case_revision_partitions,
            )
            for name, blocking in stage["checks"]
        ],
        can_subset=True,
    )
    def trivial_checks(context: dg.AssetCheckExecutionContext) -> Iterator[dg.AssetCheckResult]:
        for key in context.selected_asset_check_keys:
            yield dg.AssetCheckResult(asset_key=key.asset_key, check_name=key.name, passed=True)

    return trivial_checks


def _build() -> tuple[list[dg.AssetsDefinition], list[dg.AssetChecksDefinition]]:
    shape: list[dict[str, Any]] = json.loads(os.environ["VBA_TRIVIAL_SHAPE"])
    assets: list[dg.AssetsDefinition] = []
    for stage in shape:
        assets.append(_asset(stage, assets[-1:]))
    return assets, [_checks(stage) for stage in shape if stage["checks"]]


ASSETS, CHECKS = _build()

defs = dg.Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[dg.define_asset_job("interpret_cases", selection=dg.AssetSelection.assets(*ASSETS))],
    executor=dg.in_process_executor,
)
