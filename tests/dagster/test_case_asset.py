"""The case asset and the inbox sensor, in a real (temporary) Dagster instance."""

import json
import shutil
from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.support import register, resources, stage_graph
from vba_assets.definitions import JOB_NAME
from vba_assets.defs.inbox import REASON_SUFFIX, REJECTED_DIR
from vba_assets.defs.partitions import partition_key
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.defs.sensors import build_inbox_sensor
from vba_assets.errors import ErrorCode
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace, canonical_bytes


def project_config(tmp_path: Path) -> Path:
    path = tmp_path / "project.toml"
    path.write_text(
        'workspace = "ws"\n[database]\nurl = "embedded:demo"\n'
        'allowlist = ["creature_template"]\nsnapshot_label = "demo"\n'
    )
    return path


CASE = stage_graph("case")
CASE_CHECK_SOURCES = "case_sources_readable"


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
                CASE,
                partition_key=partition_key(case_id, "0001"),
                resources=resources(config),
                instance=instance,
            )
            assert outcome.success
            [materialization] = outcome.asset_materializations_for_node("case")
            assert materialization.tags["dagster/data_version"] == imported.case_json_sha256
            # the data version is the sha256: no metadata entry repeats it
            assert "sha256" not in materialization.metadata
            assert materialization.metadata["model_requests"].value == 0
            assert "| S1 |" in materialization.metadata["preview"].value
            [evaluation] = outcome.get_asset_check_evaluations()
            assert evaluation.check_name == CASE_CHECK_SOURCES
            assert evaluation.passed
            assert evaluation.partition == f"{case_id}|0001"


def _tamper_package_record(workspace: Workspace) -> None:
    package_json = workspace.case("BUG-000020").path("package.json")
    package_json.chmod(0o644)
    doc = json.loads(package_json.read_text())
    doc["case_json_sha256"] = "0" * 64
    package_json.write_bytes(canonical_bytes(doc))


def test_case_asset_check_fails_when_case_json_disagrees_with_the_package_record(
    tmp_path: Path,
) -> None:
    config = project_config(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, sample_report_path("BUG-000020"))
    _tamper_package_record(workspace)
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000020")
        outcome = dg.materialize(
            CASE,
            partition_key="BUG-000020|0001",
            resources=resources(config),
            instance=instance,
            raise_on_error=False,
        )
        [evaluation] = outcome.get_asset_check_evaluations()
        assert not evaluation.passed
        assert evaluation.metadata["codes"].value == "CASE_HASH_MISMATCH"
        findings = evaluation.metadata["findings"]
        assert isinstance(findings, dg.TableMetadataValue)
        assert any("package.json records" in str(r.data["message"]) for r in findings.records)
        codes = [r.data["code"] for r in findings.records]
        assert codes.count("CASE_HASH_MISMATCH") == 1  # listed once


def test_a_check_executes_on_its_own_without_materializing_its_asset(tmp_path: Path) -> None:
    """Checks are separate definitions: an operator can run one after inspecting an artifact."""
    config = project_config(tmp_path)
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, sample_report_path("BUG-000020"))
    defs = dg.Definitions(assets=stage_graph("case")[:1], asset_checks=stage_graph("case")[1:])
    check_key = dg.AssetCheckKey(dg.AssetKey("case"), CASE_CHECK_SOURCES)
    job = dg.define_asset_job("check_only", selection=dg.AssetSelection.checks(check_key))
    defs = dg.Definitions.merge(defs, dg.Definitions(jobs=[job], resources=resources(config)))
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000020")
        result = defs.resolve_job_def("check_only").execute_in_process(
            instance=instance, tags={"dagster/partition": "BUG-000020|0001"}
        )
        assert result.success
        assert result.get_asset_materialization_events() == []  # the asset did not run
        [evaluation] = result.get_asset_check_evaluations()
        assert evaluation.passed and evaluation.partition == "BUG-000020|0001"
        _tamper_package_record(workspace)
        again = defs.resolve_job_def("check_only").execute_in_process(
            instance=instance, tags={"dagster/partition": "BUG-000020|0001"}, raise_on_error=False
        )
        [evaluation] = again.get_asset_check_evaluations()
        assert not evaluation.passed


def test_missing_case_fails_the_run_with_a_clear_error(tmp_path: Path) -> None:
    config = project_config(tmp_path)
    with dg.instance_for_test() as instance:
        register(instance, "BUG-404")
        outcome = dg.materialize(
            CASE,
            partition_key="BUG-404|0001",
            resources=resources(config),
            instance=instance,
            raise_on_error=False,
        )
        assert not outcome.success
        failure = outcome.get_step_failure_events()[0].step_failure_data
        assert failure.user_failure_data is not None
        assert failure.user_failure_data.metadata["code"].value == "ARTIFACT_MISSING"
        assert "case.json" in (failure.user_failure_data.description or "")


def _sensor_resources(config: Path) -> dict[str, object]:
    return {
        "project": ProjectResource(project_config=str(config)),
        "world_db": WorldDatabaseResource(project_config=str(config)),
        "llm": LlmResource(),
    }


def test_inbox_sensor_imports_registers_and_requests_runs(tmp_path: Path) -> None:
    config = project_config(tmp_path)
    inbox = tmp_path / "ws" / "inbox"
    inbox.mkdir(parents=True)
    shutil.copytree(sample_report_path("BUG-000020"), inbox / "BUG-000020")
    sensor = build_inbox_sensor(JOB_NAME)
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, resources=_sensor_resources(config)) as ctx:
            result = sensor(ctx)
        assert isinstance(result, dg.SensorResult)
        assert [str(r.partition_key) for r in result.run_requests or []] == ["BUG-000020|0001"]
        assert result.dynamic_partitions_requests == [
            dg.AddDynamicPartitionsRequest("case_revision", ["BUG-000020|0001"])
        ]
        assert Workspace(tmp_path / "ws").case_ids() == ["BUG-000020"]
        # once registered, the next evaluation registers nothing; its run request keeps the same
        # run key, which Dagster de-duplicates
        register(instance, "BUG-000020")
        with dg.build_sensor_context(
            instance=instance, resources=_sensor_resources(config), cursor=result.cursor
        ) as ctx:
            again = sensor(ctx)
        assert again.dynamic_partitions_requests == []
        assert [r.run_key for r in again.run_requests or []] == ["start:BUG-000020|0001"]


def _warnings(capfd: pytest.CaptureFixture[str]) -> list[str]:
    """The sensor's warning lines (Dagster's console logger writes them to stderr)."""
    marker = " - WARNING - "
    return [
        line.split(marker, 1)[1] for line in capfd.readouterr().err.splitlines() if marker in line
    ]


def test_a_rejected_inbox_file_is_moved_aside_with_its_reason_and_logged_once(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = project_config(tmp_path)
    inbox = tmp_path / "ws" / "inbox"
    inbox.mkdir(parents=True)
    report = json.loads((sample_report_path("BUG-000023") / "report.json").read_text())
    (inbox / "INBOX-BAD2.json").write_text(json.dumps(report)[:40])  # truncated JSON
    (inbox / "bad-id.json").write_text(json.dumps({**report, "case_id": "E2E|0001"}))
    (inbox / "GOOD-1.json").write_text(json.dumps({**report, "case_id": "GOOD-1"}))
    sensor = build_inbox_sensor(JOB_NAME)
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, resources=_sensor_resources(config)) as ctx:
            result = sensor(ctx)
        warnings = _warnings(capfd)
        assert isinstance(result, dg.SensorResult)
        assert [str(r.partition_key) for r in result.run_requests or []] == ["GOOD-1|0001"]

    rejected = inbox / REJECTED_DIR
    assert sorted(p.name for p in inbox.iterdir()) == ["GOOD-1.json", REJECTED_DIR]
    assert sorted(p.name for p in rejected.iterdir()) == [
        "INBOX-BAD2.json",
        f"INBOX-BAD2.json{REASON_SUFFIX}",
        "bad-id.json",
        f"bad-id.json{REASON_SUFFIX}",
    ]
    reason = (rejected / f"INBOX-BAD2.json{REASON_SUFFIX}").read_text()
    assert ErrorCode.REPORT_MALFORMED.value in reason
    bad_json = [w for w in warnings if "INBOX-BAD2.json" in w]
    assert len(bad_json) == 1, warnings
    # named by its own file, never as "report.json"
    assert bad_json[0].startswith(f"INBOX-BAD2.json: rejected ({ErrorCode.REPORT_MALFORMED.value})")
    assert "report.json" not in bad_json[0]
    assert "moved to inbox/rejected/INBOX-BAD2.json" in bad_json[0]
    assert [w for w in warnings if w.startswith("bad-id.json: rejected (INVALID_CASE_ID)")]

    # the next tick sees neither file again (and never reports the rejected/ folder itself)
    with (
        dg.instance_for_test() as instance,
        dg.build_sensor_context(instance=instance, resources=_sensor_resources(config)) as ctx,
    ):
        sensor(ctx)
    assert _warnings(capfd) == []


@pytest.mark.parametrize("bad", ["BUG|1", "BUG,1"])
def test_partition_keys_with_separators_never_materialize(bad: str) -> None:
    with pytest.raises(Exception) as excinfo:
        partition_key(bad, "0001")
    assert "INVALID_CASE_ID" in str(excinfo.value)
