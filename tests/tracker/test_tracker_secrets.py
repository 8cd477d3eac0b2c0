"""The tracker token reaches no file of the workspace or the Dagster instance, no output or log.

A sync and the sensor with the canary token (tests/providers.py) against a fake GitHub that echoes
it back in an error message (a hostile or buggy server), through rate limits and server errors;
then every file under the workspace and DAGSTER_HOME, the CLI's output, the log records (DEBUG
included: httpx and httpcore) and the config's repr are searched for it, ``\\u``-escapes decoded.
"""

import json
import logging
from pathlib import Path

import dagster as dg
import pytest

from tests.fakes.github_server import FakeGitHub, Fault
from tests.integration.llm.test_llm_canaries import decoded
from tests.providers import TRACKER_CANARY
from tests.tracker.conftest import project_toml, seed
from vba_assets.cli import TRACKER_STOPPED, main
from vba_assets.config import load_project_config
from vba_assets.defs.job import build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource


def test_the_token_appears_in_no_file_output_or_log(
    github: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    seed(github)
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    config = project_toml(tmp_path / "project.toml", tmp_path / "ws", github.url, max_wait_s=0)
    echo = {"message": f"Bad credentials: {TRACKER_CANARY}"}

    github.fail(Fault(429, {"Retry-After": "0"}), Fault(500, body=echo))
    assert main(["tracker", "sync", "--project-config", str(config), "--json"]) == 0
    github.add_issue(9, "New", "A new issue.")
    github.fail(Fault(401, body=echo))
    assert main(["tracker", "sync", "--project-config", str(config), "--json"]) == TRACKER_STOPPED
    stopped = capsys.readouterr()
    assert "Bad credentials: ***" in stopped.out  # GitHub's message, with the token masked
    github.fail(Fault(403, body=echo))
    defs = build_definitions(
        project=ProjectResource(project_config=str(config)),
        world_db=WorldDatabaseResource(project_config=str(config)),
        llm=LlmResource(),
    )
    sensor = defs.resolve_sensor_def("tracker_core_sensor")
    resources = {"project": ProjectResource(project_config=str(config)), "llm": LlmResource()}
    with dg.DagsterInstance.get() as instance:
        for _ in range(2):  # the 403 tick, then one that imports #9
            with dg.build_sensor_context(instance=instance, resources=resources) as context:
                result = sensor(context)
            assert isinstance(result, dg.SensorResult)
            for request in result.dynamic_partitions_requests or []:
                assert isinstance(request, dg.AddDynamicPartitionsRequest)
                instance.add_dynamic_partitions(request.partitions_def_name, request.partition_keys)
        assert len(instance.get_dynamic_partitions("case_revision")) == 6
    assert (tmp_path / "ws/trackers/core/cursor.json").is_file()
    assert github.costly() and all(
        e.headers.get("authorization") == f"Bearer {TRACKER_CANARY}" for e in github.log
    )  # the token was really sent: the search below would otherwise prove nothing

    texts = [("stdout", stopped.out + capsys.readouterr().out), ("stderr", stopped.err)]
    texts += [("logs", "\n".join(f"{r.getMessage()} {r.args}" for r in caplog.records))]
    texts += [("config", repr(load_project_config(config)))]
    texts += [
        (str(path), path.read_bytes().decode("utf-8", "replace"))
        for folder in (home, tmp_path / "ws")
        for path in folder.rglob("*")
        if path.is_file()
    ]
    assert any("httpx" in r.name or "httpcore" in r.name for r in caplog.records)
    assert len(texts) > 20
    assert [where for where, text in texts if TRACKER_CANARY in decoded(text)] == []
    last = json.loads((tmp_path / "ws/trackers/core/last_sync.json").read_text())
    assert last["stopped"] is None
