"""All six assets in a real Dagster instance, on SQLite always and on MariaDB when configured.

The heuristic provider answers (the default; no API key). Set ``VBA_TEST_PROJECT_CONFIG`` to a
MariaDB project config (CI does) to run the same tests against the real server.
"""

import os
import re
from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.support import (
    GRAPH,
    data_versions,
    materialized,
    register,
    resources,
    stage_graph,
)
from tests.layout import REV1
from vba_assets.defs.assets import ASSETS
from vba_assets.domain.stages import Stage
from vba_assets.intake import import_report
from vba_assets.pipeline.registry import check_specs
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace, canonical_bytes

REPO = Path(__file__).resolve().parents[2]


def _config_text(backend: str, workspace: Path) -> str:
    text = (REPO / "config" / "project.mariadb-ci.toml").read_text()
    if backend == "mariadb":
        source = Path(os.environ["VBA_TEST_PROJECT_CONFIG"]).read_text()
        text = source
    else:
        text = re.sub(r"(?m)^url = .*$", 'url = "embedded:demo"', text)
        text = re.sub(r"(?m)^password_env = .*$", "", text)
    return re.sub(r"(?m)^workspace = .*$", f'workspace = "{workspace}"', text)


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("mariadb", marks=pytest.mark.mariadb),
    ]
)
def project_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "mariadb" and not os.environ.get("VBA_TEST_PROJECT_CONFIG"):
        pytest.skip("VBA_TEST_PROJECT_CONFIG is not set (MariaDB world DB)")
    path = tmp_path / "project.toml"
    path.write_text(_config_text(request.param, tmp_path / "ws"))
    return path


def test_six_assets_materialize_for_two_cases_with_every_check_passing(
    project_file: Path, tmp_path: Path
) -> None:
    workspace = Workspace(tmp_path / "ws")
    cases = ["BUG-000020", "BUG-000021"]
    for case_id in cases:
        import_report(workspace, sample_report_path(case_id))
    with dg.instance_for_test() as instance:
        register(instance, *cases)
        for case_id in cases:
            result = dg.materialize(
                GRAPH,
                partition_key=f"{case_id}|0001",
                resources=resources(project_file),
                instance=instance,
            )
            assert result.success
            assert materialized(result) == {a.key.to_user_string() for a in ASSETS}
            evaluations = result.get_asset_check_evaluations()
            assert len(evaluations) == len(check_specs())  # one per check of the registry
            assert all(e.passed for e in evaluations), [
                (e.check_name, e.metadata) for e in evaluations if not e.passed
            ]
            assert {e.partition for e in evaluations} == {f"{case_id}|0001"}
            [final] = [
                e.event_specific_data.materialization
                for e in result.get_asset_materialization_events()
                if e.event_specific_data.materialization.asset_key.to_user_string()
                == "interpretation"
            ]
            assert final.metadata["model_requests_recorded"].value == 3  # plan, assessment, final
            # per asset, per run: the captures never sent a model request
            requests = {
                e.event_specific_data.materialization.asset_key.to_user_string(): (
                    e.event_specific_data.materialization.metadata["model_requests"].value
                )
                for e in result.get_asset_materialization_events()
            }
            assert requests == {
                "case": 0,
                "resolution_plan": 1,
                "resolution_captures": 0,
                "candidate_index": 0,
                "resolution_assessment": 1,
                "interpretation": 1,
            }
            [assessment] = result.asset_materializations_for_node("resolution_assessment")
            rationale = assessment.metadata["rationale"].value
            assert "…" not in rationale  # the full text, never shortened
            assert "context_manifest" in assessment.metadata
            assert "Context manifest" not in assessment.metadata["preview"].value
        package = workspace.case("BUG-000020")
        context = package.read_json(REV1.context)
        selected = {n["identity"]: n["role"] for n in context["selected"]}
        assert selected.get(23487) == "affected_subject"
        # the quest giver is a distinct context entity, never the affected subject
        assert selected.get(23486) == "quest_giver"
        # a second materialization reuses everything: same data versions, no new dispatch
        before = sorted(package.list_dir(REV1.dispatches_dir(Stage.RESOLUTION_PLAN)))
        again = dg.materialize(
            GRAPH,
            partition_key="BUG-000020|0001",
            resources=resources(project_file),
            instance=instance,
        )
        versions = data_versions(again)
        assert versions["resolution_plan"] == package.artifact_ref(REV1.plan).sha256
        assert sorted(package.list_dir(REV1.dispatches_dir(Stage.RESOLUTION_PLAN))) == before


def test_an_injected_grounding_violation_fails_its_blocking_check_and_stops_downstream(
    project_file: Path, tmp_path: Path
) -> None:
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, sample_report_path("BUG-000020"))
    package = workspace.case("BUG-000020")
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000020")
        first = dg.materialize(
            stage_graph("case", "resolution_plan"),
            partition_key="BUG-000020|0001",
            resources=resources(project_file),
            instance=instance,
        )
        assert first.success
        # inject: an accepted plan whose term no longer occurs in its cited span
        path = package.path(REV1.plan)
        doc = package.read_json(REV1.plan)
        doc["plan"]["searches"][0]["term"] = "Wolpertinger King"
        path.chmod(0o644)
        path.write_bytes(canonical_bytes(doc))

        result = dg.materialize(
            GRAPH,
            partition_key="BUG-000020|0001",
            resources=resources(project_file),
            instance=instance,
            raise_on_error=False,
        )
        assert not result.success
        [grounding] = [
            e for e in result.get_asset_check_evaluations() if e.check_name == "plan_grounding"
        ]
        assert not grounding.passed
        assert grounding.metadata["codes"].value == "PLAN_TERM_NOT_IN_QUOTE"
        findings = grounding.metadata["findings"]
        assert isinstance(findings, dg.TableMetadataValue)
        assert any("Wolpertinger King" in str(r.data["message"]) for r in findings.records)
        assert materialized(result) == {"case", "resolution_plan"}  # nothing downstream ran
        assert not package.exists(REV1.candidates)


def test_the_same_case_in_two_workspaces_gets_the_same_data_versions(tmp_path: Path) -> None:
    """Two Dagster instances, two workspaces, one sample case: every asset's data version equal."""
    versions = []
    for name in ("first", "second"):
        root = tmp_path / name
        project_file = root / "project.toml"
        root.mkdir()
        project_file.write_text(_config_text("sqlite", root / "ws"))
        import_report(Workspace(root / "ws"), sample_report_path("BUG-000020"))
        with dg.instance_for_test() as instance:
            register(instance, "BUG-000020")
            result = dg.materialize(
                GRAPH,
                partition_key="BUG-000020|0001",
                resources=resources(project_file),
                instance=instance,
            )
            assert result.success
            versions.append(data_versions(result))
    assert set(versions[0]) == {asset.key.to_user_string() for asset in ASSETS}
    assert versions[0] == versions[1]
