"""An inbox file whose name is not valid UTF-8 never breaks the inbox sensor.

Before, one such file made every tick raise (its name reached a log line, a cursor fingerprint and
``package.json`` as an undecodable string), so no other report was ever registered. Now intake
refuses it alone (``REPORT_NOT_UTF8``, its name printed with ``\\xNN`` escapes) and the sensor logs
it once; every other report is imported and registered.
"""

import json
import os
from pathlib import Path

import dagster as dg
import pytest

from tests.integration.llm.test_llm_canary_pipeline import project_file
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.sensors import build_inbox_sensor
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

JOB_NAME = "interpret_cases"


def _warnings(capfd: pytest.CaptureFixture[str]) -> list[str]:
    marker = " - WARNING - "
    return [
        line.split(marker, 1)[1] for line in capfd.readouterr().err.splitlines() if marker in line
    ]


def test_an_undecodable_inbox_name_is_logged_once_and_the_others_are_registered(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = project_file(tmp_path)
    inbox = tmp_path / "ws" / "inbox"
    inbox.mkdir(parents=True)
    report = json.loads((sample_report_path("BUG-000023") / "report.json").read_text())
    (inbox / os.fsdecode(b"caf\xe9-report.json")).write_text(json.dumps(report))  # Latin-1 name
    (inbox / "GOOD-1.json").write_text(json.dumps({**report, "case_id": "GOOD-1"}))
    sensor = build_inbox_sensor(JOB_NAME)
    resources = {
        "project": ProjectResource(project_config=str(config)),
        "world_db": WorldDatabaseResource(project_config=str(config)),
        "llm": LlmResource(),
    }
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, resources=resources) as ctx:
            first = sensor(ctx)
        assert isinstance(first, dg.SensorResult)
        assert [str(r.partition_key) for r in first.run_requests or []] == ["GOOD-1|0001"]
        warnings = _warnings(capfd)
        assert [
            w for w in warnings if w.startswith("caf\\xe9-report.json: rejected (REPORT_NOT_UTF8)")
        ]
        with dg.build_sensor_context(
            instance=instance, resources=resources, cursor=first.cursor
        ) as ctx:
            sensor(ctx)  # the next tick: no exception, and the refusal is not logged again
        assert [w for w in _warnings(capfd) if "REPORT_NOT_UTF8" in w] == []
    assert Workspace(tmp_path / "ws").case_ids() == ["GOOD-1"]
