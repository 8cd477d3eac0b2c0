"""Failures surfaced (issue 27 item 3): one alert record per failed run, one webhook POST.

The run really fails in a Dagster instance (a registered partition whose case was never
imported: the case step fails with ARTIFACT_MISSING); the sensor is evaluated on that run's own
failure event, twice, as a daemon restarted before its cursor moved would deliver it again.
"""

import json
import socket
import time
from pathlib import Path

import dagster as dg

from tests.dagster.support import GRAPH, embedded_project_file, register, resources
from tests.fakes.http_server import Scripted, ScriptedHTTPServer
from vba_assets.defs.alerts import ALERT_SENSOR_NAME, post_alert, run_failure_alerts
from vba_assets.defs.resources import ProjectResource

KEY = "BUG-000099|0001"


def _with_webhook(tmp_path: Path, url: str, extra: str = "") -> Path:
    project_file = embedded_project_file(tmp_path)
    project_file.write_text(
        project_file.read_text() + f'\n[operations]\nalert_webhook_url = "{url}"\n{extra}'
    )
    return project_file


def _alert(tmp_path: Path) -> dict:
    [record] = (tmp_path / "ws" / "alerts").glob("*.json")
    return json.loads(record.read_text())


def _failed_run(instance: dg.DagsterInstance, project_file: Path) -> dg.ExecuteInProcessResult:
    register(instance, "BUG-000099")
    result = dg.materialize(
        GRAPH,
        partition_key=KEY,
        resources=resources(project_file),
        instance=instance,
        raise_on_error=False,
        tags={"vba/case": "BUG-000099", "vba/revision": "0001"},
    )
    assert not result.success
    return result


def _evaluate(
    instance: dg.DagsterInstance, result: dg.ExecuteInProcessResult, project_file: Path
) -> None:
    context = dg.build_run_status_sensor_context(
        sensor_name=ALERT_SENSOR_NAME,
        dagster_event=result.get_run_failure_event(),
        dagster_instance=instance,
        dagster_run=result.dagster_run,
        resources={"project": ProjectResource(project_config=str(project_file))},
    ).for_run_failure()
    run_failure_alerts(context)


def test_a_failing_run_gives_exactly_one_alert_record_and_one_post(tmp_path: Path) -> None:
    with ScriptedHTTPServer([Scripted(200, {"ok": True})] * 3) as server:
        project_file = _with_webhook(tmp_path, f"{server.url}/hooks/vba")
        with dg.instance_for_test() as instance:
            result = _failed_run(instance, project_file)
            _evaluate(instance, result, project_file)
            _evaluate(instance, result, project_file)  # delivered again: no second alert
        records = sorted((tmp_path / "ws" / "alerts").glob("*.json"))
        assert [p.name for p in records] == [f"{result.run_id}.json"]
        alert = json.loads(records[0].read_text())
        assert alert["run_id"] == result.run_id
        assert (alert["case"], alert["revision"], alert["partition"]) == (
            "BUG-000099",
            "0001",
            KEY,
        )
        assert (alert["step"], alert["code"]) == ("case", "ARTIFACT_MISSING")
        assert [r.path for r in server.requests] == ["/hooks/vba"]
        assert server.requests[0].method == "POST"
        delivered = {"status": "delivered", "attempts": [{"attempt": 1, "result": "delivered"}]}
        assert alert.pop("webhook") == delivered
        assert server.bodies() == [alert]
        assert not list((tmp_path / "ws" / "alerts").glob(".alert-*"))  # no temporary left


def test_without_a_webhook_the_record_is_still_written(tmp_path: Path) -> None:
    project_file = embedded_project_file(tmp_path)
    with dg.instance_for_test() as instance:
        result = _failed_run(instance, project_file)
        _evaluate(instance, result, project_file)
    [record] = (tmp_path / "ws" / "alerts").glob("*.json")
    assert json.loads(record.read_text())["code"] == "ARTIFACT_MISSING"


def test_a_failing_webhook_is_retried_with_backoff_until_it_answers(tmp_path: Path) -> None:
    with ScriptedHTTPServer([Scripted(503), Scripted(502), Scripted(200)]) as server:
        project_file = _with_webhook(tmp_path, f"{server.url}/hooks/vba")
        with dg.instance_for_test() as instance:
            result = _failed_run(instance, project_file)
            started = time.monotonic()
            _evaluate(instance, result, project_file)
            elapsed = time.monotonic() - started
    alert = _alert(tmp_path)
    assert alert.pop("webhook") == {
        "status": "delivered",
        "attempts": [
            {"attempt": 1, "result": "HTTP 503"},
            {"attempt": 2, "result": "HTTP 502"},
            {"attempt": 3, "result": "delivered"},
        ],
    }
    assert server.bodies() == [alert] * 3  # the same record each time
    assert 1.5 <= elapsed < 10  # waited 0.5 s, then 1 s


def test_a_final_failure_is_recorded_and_the_sensor_does_not_raise(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on: connection refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/hooks/secret-token"
    project_file = _with_webhook(tmp_path, url, "alert_attempts = 2\n")
    with dg.instance_for_test() as instance:
        result = _failed_run(instance, project_file)
        _evaluate(instance, result, project_file)  # returns: nothing raised
    text = next((tmp_path / "ws" / "alerts").glob("*.json")).read_text()
    assert "secret-token" not in text  # the URL is never written
    webhook = json.loads(text)["webhook"]
    assert webhook["status"] == "failed" and len(webhook["attempts"]) == 2
    assert webhook["attempts"][0]["result"].startswith("ConnectError")
    assert json.loads(text)["code"] == "ARTIFACT_MISSING"  # the alert itself is intact


def test_a_client_error_is_not_retried_and_the_attempts_are_bounded() -> None:
    waits: list[float] = []
    with ScriptedHTTPServer([Scripted(404), Scripted(200)]) as server:
        outcome = post_alert(server.url, {"run_id": "r"}, 5.0, 3, waits.append)
        assert outcome == {"status": "failed", "attempts": [{"attempt": 1, "result": "HTTP 404"}]}
        assert len(server.requests) == 1 and waits == []
    with ScriptedHTTPServer([Scripted(500)] * 5 + [Scripted(429)]) as server:
        outcome = post_alert(server.url, {"run_id": "r"}, 5.0, 4, waits.append)
        assert [a["result"] for a in outcome["attempts"]] == ["HTTP 500"] * 4
        assert outcome["status"] == "failed" and len(server.requests) == 4
        assert waits == [0.5, 1.0, 2.0]  # doubling, none after the last attempt
