"""Partition keys: one per existing (case, revision), built and parsed in one module."""

import shutil
from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.support import register
from vba_assets.definitions import JOB_NAME
from vba_assets.defs.partitions import (
    PARTITIONS_NAME,
    case_keys,
    case_revision_partitions,
    latest_revision_key,
    parse_partition_key,
    partition_key,
    registered_keys,
    registration_request,
    selection_text,
)
from vba_assets.defs.resources import LlmResource, ProjectResource
from vba_assets.defs.sensors import build_inbox_sensor
from vba_assets.errors import ErrorCode, InputError
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace


def test_partition_key_round_trip() -> None:
    key = partition_key("BUG-000020", "0001")
    assert key == "BUG-000020|0001"
    assert parse_partition_key(key) == ("BUG-000020", "0001")


@pytest.mark.parametrize(
    "case_id", ["BUG|1", "BUG,1", "", "-BUG", "a" * 65, "BUG 1", "BÜG", "../x", "BUG\n"]
)
def test_invalid_case_ids_never_reach_dagster(case_id: str) -> None:
    with pytest.raises(InputError) as excinfo:
        partition_key(case_id, "0001")
    assert excinfo.value.code is ErrorCode.INVALID_CASE_ID
    with pytest.raises(InputError):
        registration_request([(case_id, "0001")])


@pytest.mark.parametrize("revision", ["1", "0000", "00001", "abcd", "0001|", ""])
def test_invalid_revisions_rejected(revision: str) -> None:
    with pytest.raises(InputError) as excinfo:
        partition_key("BUG-1", revision)
    assert excinfo.value.code is ErrorCode.INVALID_REVISION


@pytest.mark.parametrize("key", ["BUG-1", "BUG-1|0001|x", "BUG|1|0001", "|0001"])
def test_malformed_partition_strings_rejected(key: str) -> None:
    with pytest.raises(InputError):
        parse_partition_key(key)


def test_registration_request_is_one_sorted_deduplicated_request() -> None:
    requests = registration_request([("B-2", "0001"), ("A-1", "0002"), ("B-2", "0001")])
    assert requests == [dg.AddDynamicPartitionsRequest(PARTITIONS_NAME, ["A-1|0002", "B-2|0001"])]
    assert registration_request([]) == []


def test_case_keys_select_every_revision_of_one_case_only() -> None:
    keys = ["A-1|0001", "A-10|0001", "B-2|0001", "A-1|0003", "A-1|0002"]
    assert case_keys(keys, "A-1") == ["A-1|0001", "A-1|0002", "A-1|0003"]
    assert latest_revision_key(keys, "A-1") == "A-1|0003"
    assert latest_revision_key(keys, "C-3") is None
    assert selection_text(case_keys(keys, "A-10")) == '"A-10|0001"'


def _project_config(tmp_path: Path) -> Path:
    path = tmp_path / "project.toml"
    path.write_text(
        'workspace = "ws"\n[database]\nurl = "embedded:demo"\n'
        'allowlist = ["creature_template"]\nsnapshot_label = "demo"\n'
    )
    return path


def _sensor_registers(instance: dg.DagsterInstance, config: Path) -> list[str]:
    """One inbox-sensor evaluation; apply its partition requests; return the new keys."""
    sensor = build_inbox_sensor(JOB_NAME)
    resources = {"project": ProjectResource(project_config=str(config)), "llm": LlmResource()}
    with dg.build_sensor_context(instance=instance, resources=resources) as context:
        result = sensor(context)
    assert isinstance(result, dg.SensorResult)
    added = []
    for request in result.dynamic_partitions_requests or []:
        assert isinstance(request, dg.AddDynamicPartitionsRequest)
        instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
        added += request.partition_keys
    return added


def test_a_second_revision_of_one_case_adds_no_partition_to_any_other_case(
    tmp_path: Path,
) -> None:
    """ARCHITECTURE 3: the partition set holds real revisions only (issue 12's phantom |0002)."""
    config = _project_config(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    cases = ["BUG-000020", "BUG-000021", "BUG-000022"]
    for case_id in cases:
        import_report(workspace, sample_report_path(case_id))
    with dg.instance_for_test() as instance:
        assert _sensor_registers(instance, config) == [f"{c}|0001" for c in cases]
        before = set(registered_keys(instance))

        assert workspace.case("BUG-000021").new_revision("a new prompt") == "0001"
        assert workspace.case("BUG-000021").new_revision("a new model") == "0002"
        assert _sensor_registers(instance, config) == ["BUG-000021|0002"]

        after = registered_keys(instance)
        assert set(after) - before == {"BUG-000021|0002"}
        for case_id in ("BUG-000020", "BUG-000022"):
            assert case_keys(after, case_id) == [f"{case_id}|0001"]  # no phantom revision
        assert case_keys(after, "BUG-000021") == ["BUG-000021|0001", "BUG-000021|0002"]
        # what Dagster offers to backfill is exactly that set
        offered = case_revision_partitions.get_partition_keys(dynamic_partitions_store=instance)
        assert sorted(offered) == sorted(after)
        assert len(offered) == len(cases) + 1


def test_the_sensor_registers_the_cases_of_an_existing_workspace(tmp_path: Path) -> None:
    """Existing case packages keep working: a fresh instance gets every revision registered."""
    config = _project_config(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    shutil.copytree(sample_report_path("BUG-000023"), tmp_path / "report")
    import_report(workspace, tmp_path / "report")
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000099")  # already registered keys stay as they are
        assert _sensor_registers(instance, config) == ["BUG-000023|0001"]
        assert _sensor_registers(instance, config) == []


def test_an_instance_of_the_old_two_dimension_partitions_keeps_its_history() -> None:
    """Earlier releases partitioned by MultiPartitionsDefinition(case x revision); its keys are
    the same strings, so a materialization recorded then belongs to today's partition."""
    old_partitions = dg.MultiPartitionsDefinition(
        {
            "case": dg.DynamicPartitionsDefinition(name="case"),
            "revision": dg.DynamicPartitionsDefinition(name="revision"),
        }
    )

    @dg.asset(name="case", partitions_def=old_partitions)
    def old_case() -> None:
        return None

    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("case", ["BUG-000020"])
        instance.add_dynamic_partitions("revision", ["0001"])
        key = dg.MultiPartitionKey({"case": "BUG-000020", "revision": "0001"})
        assert dg.materialize([old_case], partition_key=key, instance=instance).success
        register(instance, "BUG-000020")  # what the inbox sensor does on the new definitions
        materialized = instance.get_materialized_partitions(dg.AssetKey("case"))
        assert materialized == {partition_key("BUG-000020", "0001")}
        assert set(materialized) <= set(registered_keys(instance))
