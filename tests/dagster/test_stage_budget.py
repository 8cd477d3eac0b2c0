"""The stage CPU budget in Dagster (issue 30, item 2): a materialization over its budget fails as a
lifecycle block (``STAGE_BUDGET_EXCEEDED``, observed on the asset), also when the run executes
outside the main thread (the budget is cooperative: no signal), and the partition materializes
once the budget is raised."""

import threading
from pathlib import Path

import dagster as dg

from tests.dagster.support import GRAPH, embedded_project_file, materialized, register, resources
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

KEY = "BUG-000020|0001"


def _materialize(instance: dg.DagsterInstance, project_file: Path) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        GRAPH,
        partition_key=KEY,
        resources=resources(project_file),
        instance=instance,
        raise_on_error=False,
    )


def test_a_materialization_over_its_budget_blocks_and_resumes_once_raised(tmp_path: Path) -> None:
    project_file = embedded_project_file(tmp_path)
    default_budget = project_file.read_text(encoding="utf-8")
    project_file.write_text(default_budget + "\n[budget]\nstage_cpu_s = 0.000001\n")
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, sample_report_path("BUG-000020"))
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000020")
        results: list[dg.ExecuteInProcessResult] = []
        worker = threading.Thread(
            target=lambda: results.append(_materialize(instance, project_file))
        )
        worker.start()
        worker.join(timeout=120)
        assert not worker.is_alive()
        [blocked] = results
        assert not blocked.success
        [observation] = [
            record.get_dagster_event().event_specific_data.asset_observation  # type: ignore[union-attr]
            for record in instance.all_logs(
                blocked.run_id, of_type=dg.DagsterEventType.ASSET_OBSERVATION
            )
        ]
        assert observation.asset_key.to_user_string() == "resolution_plan"
        assert observation.metadata["blocked"].value == "STAGE_BUDGET_EXCEEDED"
        assert "stage_cpu_s" in observation.metadata["resume"].value
        assert observation.metadata["detail.cpu_budget_s"].value == 0.000001

        project_file.write_text(default_budget)
        resumed = _materialize(instance, project_file)
        assert resumed.success
        assert "interpretation" in materialized(resumed)
    events = workspace.case("BUG-000020").read_events("0001")
    assert [e["event"] for e in events if e["event"] in ("blocked", "resumed")] == [
        "blocked",
        "resumed",
    ]
