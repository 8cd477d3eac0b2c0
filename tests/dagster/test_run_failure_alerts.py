"""Failures surfaced (issue 27 item 3): one alert record per failed run, one webhook POST.

The run really fails in a Dagster instance (a registered partition whose case was never
imported: the case step fails with ARTIFACT_MISSING); the sensor is evaluated on that run's own
failure event, twice, as a daemon restarted before its cursor moved would deliver it again.
"""

import json
from pathlib import Path

import dagster as dg

from tests.dagster.support import GRAPH, embedded_project_file, register, resources
from tests.fakes.http_server import Scripted, ScriptedHTTPServer
from vba_assets.defs.alerts import ALERT_SENSOR_NAME, run_failure_alerts
from vba_assets.defs.resources import ProjectResource

KEY = "BUG-000099|0001"


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
        project_file = embedded_project_file(tmp_path)
        project_file.write_text(
            project_file.read_text()
            + f'\n[operations]\nalert_webhook_url = "{server.url}/hooks/vba"\n'
        )
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
        assert server.bodies() == [alert]
        assert not list((tmp_path / "ws" / "alerts").glob(".alert-*"))  # no temporary left


def test_without_a_webhook_the_record_is_still_written(tmp_path: Path) -> None:
    project_file = embedded_project_file(tmp_path)
    with dg.instance_for_test() as instance:
        result = _failed_run(instance, project_file)
        _evaluate(instance, result, project_file)
    [record] = (tmp_path / "ws" / "alerts").glob("*.json")
    assert json.loads(record.read_text())["code"] == "ARTIFACT_MISSING"
