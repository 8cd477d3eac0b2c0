"""Failed runs surfaced: one alert record per failed run, optionally POSTed to a webhook.

``run_failure_alerts`` is a Dagster ``@run_failure_sensor`` (the daemon calls it once per run that
ends in ``FAILURE``, tracked by its own cursor). For each it writes
``<workspace>/alerts/<run id>.json``: the run id, job, case, revision, partition, the failed steps
with their error code (a project error's ``code`` metadata, else the exception's class), the
failure message and when. The file is created exclusively (hard link of a finished temporary file),
so a run redelivered to the sensor (a daemon restart before its cursor moved) still has exactly
one record, and only the evaluation that created it POSTs it to ``[operations]
alert_webhook_url`` (JSON body, ``alert_timeout_s``). A POST that fails is logged on the sensor's
tick (UI: Automation, the sensor's ticks) and not retried; the record stays for the operator.

It runs by default (``DefaultSensorStatus.RUNNING``): it only writes into the workspace. Each
alert is also a warning line of the tick's log.
"""

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg
import httpx

from vba_assets.defs.resources import ProjectResource
from vba_assets.domain.clock import format_timestamp, utc_now

ALERT_SENSOR_NAME = "run_failure_alerts"
ALERTS_DIR = "alerts"


def failed_steps(events: Sequence[dg.DagsterEvent]) -> list[dict[str, Any]]:
    """``{"step", "code", "message"}`` per STEP_FAILURE event."""
    steps = []
    for event in events:
        data = event.step_failure_data
        metadata = data.user_failure_data.metadata if data.user_failure_data else {}
        code_value = metadata.get("code")
        code = getattr(code_value, "value", None) if code_value is not None else None
        if code is None and data.error is not None:
            code = data.error.cause.cls_name if data.error.cause else data.error.cls_name
        message = (
            data.user_failure_data.description
            if data.user_failure_data and data.user_failure_data.description
            else (data.error.message.strip() if data.error else "")
        )
        steps.append({"step": event.step_key, "code": str(code or "unknown"), "message": message})
    return steps


def alert_record(
    run: dg.DagsterRun, failure_message: str | None, steps: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The alert of one failed run (JSON-able)."""
    tags = run.tags
    partition = tags.get("dagster/partition")
    case, _, revision = (partition or "").partition("|")
    first = steps[0] if steps else {}
    return {
        "run_id": run.run_id,
        "job": run.job_name,
        "case": tags.get("vba/case") or case or None,
        "revision": tags.get("vba/revision") or revision or None,
        "partition": partition,
        "step": first.get("step"),
        "code": first.get("code"),
        "steps": list(steps),
        "message": failure_message or first.get("message") or "",
        "alerted_at": format_timestamp(utc_now()),
    }


def write_alert(root: Path, record: Mapping[str, Any]) -> Path | None:
    """Create ``<root>/alerts/<run id>.json``; None if the run already has one (nothing written)."""
    folder = root / ALERTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{record['run_id']}.json"
    if target.exists():
        return None
    data = (json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
    fd, tmp = tempfile.mkstemp(prefix=".alert-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, target)  # atomic and exclusive: a second writer gets FileExistsError
        except FileExistsError:
            return None
    finally:
        os.unlink(tmp)
    return target


def post_alert(url: str, record: Mapping[str, Any], timeout_s: float) -> str | None:
    """POST the record as JSON; None on a 2xx answer, else why it failed (one line)."""
    try:
        response = httpx.post(url, json=dict(record), timeout=timeout_s)
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}"
    if response.is_success:
        return None
    return f"HTTP {response.status_code}"


@dg.run_failure_sensor(
    name=ALERT_SENSOR_NAME,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Writes one alert record per failed run to `<workspace>/alerts/<run id>.json` "
    "(case, revision, failed step, error code, run id) and, when `[operations] "
    "alert_webhook_url` is set, POSTs it there once.",
)
def run_failure_alerts(context: dg.RunFailureSensorContext, project: ProjectResource) -> None:
    """One alert per failed run (see the module docstring)."""
    run = context.dagster_run
    record = alert_record(
        run, context.failure_event.message, failed_steps(context.get_step_failure_events())
    )
    config = project.load()
    path = write_alert(config.workspace, record)
    if path is None:
        context.log.info(f"run {run.run_id} already has its alert record")
        return
    context.log.warning(
        f"run {run.run_id} failed: {record['case']} {record['revision']} step {record['step']} "
        f"{record['code']}; alert {path}"
    )
    url = config.operations.alert_webhook_url
    if url:
        problem = post_alert(url, record, config.operations.alert_timeout_s)
        if problem:
            context.log.warning(f"alert webhook POST failed ({problem}); the record is kept")
