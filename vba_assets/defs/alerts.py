"""Failed runs surfaced: one alert record per failed run, optionally POSTed to a webhook.

``run_failure_alerts`` is a Dagster ``@run_failure_sensor`` (the daemon calls it once per run that
ends in ``FAILURE``, tracked by its own cursor). For each it writes
``<workspace>/alerts/<run id>.json``: the run id, job, case, revision, partition, the failed steps
with their error code (a project error's ``code`` metadata, else the exception's class), the
failure message and when. The file is created exclusively (hard link of a finished temporary file),
so a run redelivered to the sensor (a daemon restart before its cursor moved) still has exactly
one record, and only the evaluation that created it POSTs it to ``[operations]
alert_webhook_url`` (JSON body). The POST is tried ``alert_attempts`` times (default 3) on a
network error, 408, 429 or 5xx, with 0.5 s, 1 s, 2 s ... between, each attempt bounded by
``alert_timeout_s`` and all of them by :data:`POST_DEADLINE_S` (the daemon cancels a sensor
evaluation after 60 s); another 4xx is not retried. Its outcome is added to the record as
``webhook`` (``delivered`` or ``failed``, each attempt's result; never the URL, which may hold a
token), and a final failure is also a warning on the sensor's tick (UI: Automation, the sensor's
ticks). Nothing in the POST raises out of the sensor: the record stays for the operator.

It runs by default (``DefaultSensorStatus.RUNNING``): it only writes into the workspace. Each
alert is also a warning line of the tick's log.
"""

import json
import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
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


def _encoded(record: Mapping[str, Any]) -> bytes:
    return (json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _finished_temp(folder: Path, data: bytes) -> str:
    """A fsynced temporary file in ``folder`` holding ``data`` (its path)."""
    fd, tmp = tempfile.mkstemp(prefix=".alert-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_alert(root: Path, record: Mapping[str, Any]) -> Path | None:
    """Create ``<root>/alerts/<run id>.json``; None if the run already has one (nothing written)."""
    folder = root / ALERTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{record['run_id']}.json"
    if target.exists():
        return None
    tmp = _finished_temp(folder, _encoded(record))
    try:
        os.link(tmp, target)  # atomic and exclusive: a second writer gets FileExistsError
    except FileExistsError:
        return None
    finally:
        os.unlink(tmp)
    return target


def replace_alert(path: Path, record: Mapping[str, Any]) -> None:
    """Replace the record ``write_alert`` created (by its creator only) atomically."""
    os.replace(_finished_temp(path.parent, _encoded(record)), path)


#: At most this long for every POST attempt of one alert, waits included (seconds).
POST_DEADLINE_S = 30.0
#: The wait before the second attempt; it doubles for each further one (seconds).
FIRST_BACKOFF_S = 0.5
#: Statuses worth another attempt (the receiver may recover); other 4xx will not.
RETRIED_STATUSES = frozenset({408, 429})


def post_once(url: str, record: Mapping[str, Any], timeout_s: float) -> tuple[str | None, bool]:
    """One POST: (None, False) on a 2xx answer, else (why it failed, whether to try again)."""
    try:
        response = httpx.post(url, json=dict(record), timeout=timeout_s)
    except Exception as exc:  # never out of the sensor: a bad URL, a refused connection, ...
        return f"{type(exc).__name__}: {exc}".replace(url, "<alert_webhook_url>"), True
    if response.is_success:
        return None, False
    status = response.status_code
    return f"HTTP {status}", status >= 500 or status in RETRIED_STATUSES


def post_alert(
    url: str,
    record: Mapping[str, Any],
    timeout_s: float,
    attempts: int = 3,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """POST the record as JSON, retried with backoff (see the module docstring).

    Returns:
        ``{"status": "delivered" | "failed", "attempts": [{"attempt", "result"}, ...]}``.
    """
    deadline = time.monotonic() + POST_DEADLINE_S
    tried: list[dict[str, Any]] = []
    for attempt in range(1, attempts + 1):
        remaining = deadline - time.monotonic()
        problem, again = post_once(url, record, max(0.1, min(timeout_s, remaining)))
        tried.append({"attempt": attempt, "result": problem or "delivered"})
        if problem is None:
            return {"status": "delivered", "attempts": tried}
        wait = FIRST_BACKOFF_S * 2 ** (attempt - 1)
        if not again or attempt == attempts or time.monotonic() + wait >= deadline:
            break
        sleep(wait)
    return {"status": "failed", "attempts": tried}


@dg.run_failure_sensor(
    name=ALERT_SENSOR_NAME,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Writes one alert record per failed run to `<workspace>/alerts/<run id>.json` "
    "(case, revision, failed step, error code, run id) and, when `[operations] "
    "alert_webhook_url` is set, POSTs it there (retried with backoff; the outcome is added to "
    "the record).",
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
    operations = config.operations
    if operations.alert_webhook_url:
        outcome = post_alert(
            operations.alert_webhook_url,
            record,
            operations.alert_timeout_s,
            operations.alert_attempts,
        )
        try:
            replace_alert(path, {**record, "webhook": outcome})
        except OSError as exc:  # the record without its outcome is still the alert
            context.log.warning(f"could not add the webhook outcome to {path}: {exc}")
        if outcome["status"] != "delivered":
            results = "; ".join(a["result"] for a in outcome["attempts"])
            context.log.warning(
                f"alert webhook POST failed after {len(outcome['attempts'])} attempt(s) "
                f"({results}); the record is kept in {path}"
            )
