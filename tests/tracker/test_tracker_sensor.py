"""The per-tracker sensor through a real Dagster instance: sync, register, one run per revision."""

from pathlib import Path

import dagster as dg

from tests.fakes.github_server import FakeGitHub, Fault
from tests.tracker.conftest import REPO, project_toml, seed
from vba_assets.defs.job import JOB_NAME, build_definitions
from vba_assets.defs.partitions import PARTITIONS_NAME, register
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.sensors import build_inbox_sensor
from vba_assets.store import Workspace
from vba_assets.tracker.github_issues import case_id_for
from vba_assets.tracker.sync_state import read_last_sync


def sensor_resources(config: Path) -> dict[str, object]:
    return {"project": ProjectResource(project_config=str(config)), "llm": LlmResource()}


def test_the_tracker_sensor_syncs_registers_and_requests_one_run_per_new_revision(
    github: FakeGitHub, tmp_path: Path
) -> None:
    seed(github)
    config = project_toml(
        tmp_path / "project.toml", tmp_path / "ws", github.url, labels=["bug"], max_wait_s=0
    )
    defs = build_definitions(
        project=ProjectResource(project_config=str(config)),
        world_db=WorldDatabaseResource(project_config=str(config)),
        llm=LlmResource(),
    )
    sensor = defs.resolve_sensor_def("tracker_core_sensor")
    assert sensor.default_status is dg.DefaultSensorStatus.RUNNING  # like the inbox sensor
    assert sensor.minimum_interval_seconds == 60
    expected = sorted(f"{case_id_for(REPO, n)}|0001" for n in (1, 2, 3, 5))
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, resources=sensor_resources(config)) as ctx:
            first = sensor(ctx)
        assert isinstance(first, dg.SensorResult)
        assert sorted(str(r.partition_key) for r in first.run_requests or []) == expected
        assert {r.run_key for r in first.run_requests or []} == {f"start:{k}" for k in expected}
        [request] = {r.tags["vba/provider"] for r in first.run_requests or []}
        assert request == "heuristic"
        assert first.dynamic_partitions_requests == [
            dg.AddDynamicPartitionsRequest(PARTITIONS_NAME, expected)
        ]
        # the inbox sensor leaves the tracker's cases to it (one sensor per partition)
        inbox = build_inbox_sensor(JOB_NAME)
        with dg.build_sensor_context(instance=instance, resources=sensor_resources(config)) as ctx:
            from_inbox = inbox(ctx)
        assert isinstance(from_inbox, dg.SensorResult) and not from_inbox.run_requests

        for case_id in (case_id_for(REPO, n) for n in (1, 2, 3, 5)):
            register(instance, [(case_id, "0001")])
        github.log.clear()
        github.add_issue(8, "Defias loot", "The Defias Pillager drops nothing.")
        with dg.build_sensor_context(instance=instance, resources=sensor_resources(config)) as ctx:
            second = sensor(ctx)
        assert isinstance(second, dg.SensorResult)
        new_key = f"{case_id_for(REPO, 8)}|0001"
        assert second.dynamic_partitions_requests == [
            dg.AddDynamicPartitionsRequest(PARTITIONS_NAME, [new_key])
        ]
        # the earlier revisions keep their run keys (Dagster de-duplicates them per sensor)
        assert sorted(r.run_key for r in second.run_requests or []) == sorted(
            f"start:{k}" for k in [*expected, new_key]
        )

        # an edited issue is a new revision of its case: registered, and requested once
        register(instance, [(case_id_for(REPO, 8), "0001")])
        github.edit_issue(1, body="Hogger in Elwynn Forest never came back, since Tuesday.")
        with dg.build_sensor_context(instance=instance, resources=sensor_resources(config)) as ctx:
            edited = sensor(ctx)
        assert isinstance(edited, dg.SensorResult)
        revised_key = f"{case_id_for(REPO, 1)}|0002"
        assert edited.dynamic_partitions_requests == [
            dg.AddDynamicPartitionsRequest(PARTITIONS_NAME, [revised_key])
        ]
        assert f"start:{revised_key}" in {r.run_key for r in edited.run_requests or []}

        github.fail(Fault(503), Fault(503), Fault(503), Fault(503))
        with dg.build_sensor_context(instance=instance, resources=sensor_resources(config)) as ctx:
            stopped = sensor(ctx)
        assert isinstance(stopped, dg.SensorResult)  # a stopped sync is no failed tick
        assert len(stopped.run_requests or []) == 6  # the unstarted revisions are still requested
        record = read_last_sync(Workspace(tmp_path / "ws"), "core")
        assert record is not None and record["stopped"]["reason"] == "server_error"


def test_a_project_without_trackers_has_no_tracker_sensor(tmp_path: Path) -> None:
    defs = build_definitions(
        project=ProjectResource(), world_db=WorldDatabaseResource(), llm=LlmResource()
    )
    names = {s.name for s in defs.sensors or []}
    assert not any(name.startswith("tracker_") for name in names)
