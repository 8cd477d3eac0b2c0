"""A Dagster run in a process of its own, for tests/dagster/test_faults.py to kill mid-step.

``python fault_child.py <DAGSTER_HOME> <project.toml> <partition key> <point> <marker file>``
materializes the whole graph of one partition in the instance at ``DAGSTER_HOME`` (SQLite
storage, the in-process executor: every step runs in this process) and stops for ever at
``point``, after writing ``marker``, so the parent can SIGKILL it there:

* ``model_call``: inside the assessment step, while its model request is in flight;
* ``after_record``: inside the assessment step, right after its accepted dispatch record was
  published (before its manifest, its event and its artifact);
* ``none``: no stop (a clean run).

Fault injection happens here, by patching functions inside this process only; the product code
carries no test hooks.
"""

import os
import sys
import time
from pathlib import Path
from typing import Any


def stop_here(marker: Path) -> None:
    marker.write_text(str(os.getpid()))
    while True:
        time.sleep(3600)


def main(home: str, project: str, partition: str, point: str, marker: str) -> None:
    os.environ["DAGSTER_HOME"] = home
    import dagster as dg

    from resources.llm.heuristic import HeuristicProvider
    from tests.dagster.support import GRAPH, resources
    from vba_assets.store import atomic

    if point == "model_call":
        real_send = HeuristicProvider.send

        def send(self: Any, request: Any, messages: Any) -> Any:
            if request.stage == "resolution_assessment":
                stop_here(Path(marker))
            return real_send(self, request, messages)

        HeuristicProvider.send = send  # type: ignore[method-assign]
    elif point == "after_record":
        real_link = atomic.os.link

        def link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            real_link(src, dst, *args, **kwargs)
            if Path(dst).name == "resolution_assessment-1.json":
                stop_here(Path(marker))

        atomic.os.link = link  # type: ignore[assignment]
    with dg.DagsterInstance.get() as instance:
        result = dg.materialize(
            GRAPH,
            partition_key=partition,
            resources=resources(Path(project)),
            instance=instance,
            raise_on_error=False,
        )
    print("success" if result.success else "failure", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
