"""The case asset and the inbox sensor, in a real (temporary) Dagster instance."""

import json
import shutil
from pathlib import Path

import dagster as dg
import pytest

from resources.dagster_resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.definitions import interpret_cases_job
from vba_assets.defs.assets import ASSETS
from vba_assets.defs.partitions import partition_key
from vba_assets.defs.sensors import build_inbox_sensor
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace


def project_config(tmp_path: Path) -> Path:
    path = tmp_path / "project.toml"
    path.write_text(
        'workspace = "ws"\n[database]\nurl = "embedded:demo"\n'
        'allowlist = ["creature_template"]\nsnapshot_label = "demo"\n'
    )
    return path


case = ASSETS[0]
CASE_CHECK_SOURCES = "case_sources_readable"


def all_resources(config: Path) -> dict[str, object]:
    return {
        "project": ProjectResource(project_config=str(config)),
        "world_db": WorldDatabaseResource(project_config=str(config)),
        "llm": LlmResource(),
    }


def register(instance: dg.DagsterInstance, *case_ids: str) -> None:
    instance.add_dynamic_partitions("case", list(case_ids))
    instance.add_dynamic_partitions("revision", ["0001"])


def test_case_asset_materializes_with_data_version_and_passing_check(tmp_path: Path) -> None:
    config = project_config(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    results = {
        c: import_report(workspace, sample_report_path(c)) for c in ("BUG-000020", "BUG-000021")
    }
    with dg.instance_for_test() as instance:
        register(instance, *results)
        for case_id, imported in results.items():
            outcome = dg.materialize(
                [case],
                partition_key=str(partition_key(case_id, "0001")),
                resources=all_resources(config),
                instance=instance,
            )
            assert outcome.success
            [materialization] = outcome.asset_materializations_for_node("case")
            assert materialization.tags["dagster/data_version"] == imported.case_json_sha256
            assert materialization.metadata["sha256"].value == imported.case_json_sha256
            assert "| S1 |" in materialization.metadata["preview"].value
            [evaluation] = outcome.get_asset_check_evaluations()
            assert evaluation.check_name == CASE_CHECK_SOURCES
            assert evaluation.passed
            assert evaluation.partition == f"{case_id}|0001"


def test_case_asset_check_fails_when_case_json_disagrees_with_the_package_record(
    tmp_path: Path,
) -> None:
    config = project_config(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, sample_report_path("BUG-000020"))
    package_json = workspace.case("BUG-000020").path("package.json")
    package_json.chmod(0o644)
    text = package_json.read_text()
    import json

    doc = json.loads(text)
    doc["case_json_sha256"] = "0" * 64
    from vba_assets.store import canonical_bytes

    package_json.write_bytes(canonical_bytes(doc))
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000020")
        outcome = dg.materialize(
            [case],
            partition_key="BUG-000020|0001",
            resources=all_resources(config),
            instance=instance,
            raise_on_error=False,
        )
        [evaluation] = outcome.get_asset_check_evaluations()
        assert not evaluation.passed
        assert evaluation.metadata["codes"].value == "CASE_HASH_MISMATCH"
        assert "package.json records" in evaluation.metadata["findings"].value


def test_missing_case_fails_the_run_with_a_clear_error(tmp_path: Path) -> None:
    config = project_config(tmp_path)
    with dg.instance_for_test() as instance:
        register(instance, "BUG-404")
        outcome = dg.materialize(
            [case],
            partition_key="BUG-404|0001",
            resources=all_resources(config),
            instance=instance,
            raise_on_error=False,
        )
        assert not outcome.success
        failure = outcome.get_step_failure_events()[0].step_failure_data
        assert failure.user_failure_data is not None
        assert failure.user_failure_data.metadata["code"].value == "ARTIFACT_MISSING"
        assert "case.json" in (failure.user_failure_data.description or "")


def test_inbox_sensor_imports_registers_and_requests_runs(tmp_path: Path) -> None:
    config = project_config(tmp_path)
    inbox = tmp_path / "ws" / "inbox"
    inbox.mkdir(parents=True)
    shutil.copytree(sample_report_path("BUG-000020"), inbox / "BUG-000020")
    (inbox / "broken.json").write_text("{not json")
    sensor = build_inbox_sensor(interpret_cases_job)
    resources = {
        "project": ProjectResource(project_config=str(config)),
        "world_db": WorldDatabaseResource(project_config=str(config)),
    }
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            result = sensor(context)
        assert isinstance(result, dg.SensorResult)
        assert [str(r.partition_key) for r in result.run_requests or []] == ["BUG-000020|0001"]
        requested = {
            r.partitions_def_name: r.partition_keys
            for r in result.dynamic_partitions_requests or []
        }
        assert requested == {"case": ["BUG-000020"], "revision": ["0001"]}
        assert Workspace(tmp_path / "ws").case_ids() == ["BUG-000020"]
        # once registered, the next evaluation registers nothing; its run request keeps the same
        # run key, which Dagster de-duplicates, and the bad report is not logged again
        register(instance, "BUG-000020")
        with dg.build_sensor_context(
            instance=instance, resources=resources, cursor=result.cursor
        ) as context:
            again = sensor(context)
        assert again.dynamic_partitions_requests == []
        assert [r.run_key for r in again.run_requests or []] == ["start:BUG-000020|0001"]
        assert again.cursor == result.cursor and len(json.loads(result.cursor or "[]")) == 1


@pytest.mark.parametrize("bad", ["BUG|1", "BUG,1"])
def test_partition_keys_with_separators_never_materialize(bad: str) -> None:
    with pytest.raises(Exception) as excinfo:
        partition_key(bad, "0001")
    assert "INVALID_CASE_ID" in str(excinfo.value)
