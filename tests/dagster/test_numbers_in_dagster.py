"""Numbers in Dagster (issue 27 item 5): usage as numeric metadata, vba/* run tags, tables.

Everything is read back through the instance (its event log and run storage), as the UI and the
Plots tab read it, not from the in-process result object.
"""

from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.scripted_llm import SCRIPTS, ScriptedLlmResource
from tests.dagster.support import GRAPH, embedded_project_file, register, resources
from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.pipeline.support import QUEST, assess_exact, interpret, plan_reply
from vba_assets.defs.backfill import backfill_command, backfill_tags
from vba_assets.defs.sensors import build_inbox_sensor
from vba_assets.defs.usage import USAGE_KEYS
from vba_assets.evaluation.observing import observe_case
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

KEY = "BUG-000020|0001"
MODEL_ASSETS = ("resolution_plan", "resolution_assessment", "interpretation")


def _latest(instance: dg.DagsterInstance, asset: str) -> dg.AssetMaterialization:
    event = instance.get_latest_materialization_event(dg.AssetKey(asset))
    assert event is not None and event.asset_materialization is not None
    return event.asset_materialization


def _with_operations(project_file: Path, text: str) -> Path:
    project_file.write_text(project_file.read_text() + "\n[operations]\n" + text)
    return project_file


def test_heuristic_run_records_numeric_usage_vba_tags_and_table_findings(tmp_path: Path) -> None:
    project_file = embedded_project_file(tmp_path)
    import_report(Workspace(tmp_path / "ws"), sample_report_path("BUG-000020"))
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000020")
        result = dg.materialize(
            GRAPH, partition_key=KEY, resources=resources(project_file), instance=instance
        )
        assert result.success
        for asset in MODEL_ASSETS:
            metadata = _latest(instance, asset).metadata
            for prefix in ("", "total_"):
                for key in USAGE_KEYS:
                    value = metadata[f"{prefix}{key}"]
                    kind = dg.FloatMetadataValue if key == "latency_ms" else dg.IntMetadataValue
                    assert isinstance(value, kind), (asset, key, value)
            # the heuristic reports zero tokens, one request per stage, no correction
            assert metadata["requests"].value == metadata["total_requests"].value == 1
            assert metadata["corrections"].value == 0
            assert metadata["input_tokens"].value == 0
            assert metadata["latency_ms"].value >= 0
            assert "cost_usd" not in metadata  # no price table configured
        assert "input_tokens" not in _latest(instance, "resolution_captures").metadata
        interpretation = _latest(instance, "interpretation")
        assert interpretation.tags is not None
        assert set(interpretation.tags) >= {"vba/category", "vba/scope"}
        run = instance.get_run_by_id(result.run_id)
        assert run is not None
        assert {k: run.tags[k] for k in ("vba/case", "vba/revision", "vba/provider")} == {
            "vba/case": "BUG-000020",
            "vba/revision": "0001",
            "vba/provider": "heuristic",
        }
        assert run.tags["vba/category"] == interpretation.tags["vba/category"]
        candidates = _latest(instance, "candidate_index").metadata["candidates"]
        assert isinstance(candidates, dg.TableMetadataValue)
        assert candidates.schema.columns[3].name == "identity"
        assert any(r.data.get("identity") == 23487 for r in candidates.records)
        manifest = _latest(instance, "interpretation").metadata["context_manifest_table"]
        assert isinstance(manifest, dg.TableMetadataValue)
        assert manifest.records[-1].data["item"] == "total"
        records = instance.all_logs(
            result.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION
        )
        assert records
        for record in records:
            evaluation = record.get_dagster_event().event_specific_data
            findings = evaluation.metadata["findings"]  # type: ignore[union-attr]
            assert isinstance(findings, dg.TableMetadataValue)
            assert [c.name for c in findings.schema.columns] == [
                "code",
                "severity",
                "concerns",
                "file",
                "message",
            ]


def _scripted(case_doc: dict, name: str = "scripted") -> ScriptedProvider:
    return ScriptedProvider(
        {
            # one reply that is not JSON (a correction), then a grounded plan
            "resolution_plan": ["not json", plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        },
        name=name,
    )


def _scripted_llm(
    tmp_path: Path, script: str, name: str = "scripted", llm_config: str = ""
) -> ScriptedLlmResource:
    """BUG-000020 imported; ``script`` answers its stages (``name``: the provider's name)."""
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, sample_report_path("BUG-000020"))
    case_doc = workspace.case("BUG-000020").read_json("case.json")
    SCRIPTS[script] = _scripted(case_doc, name)
    return ScriptedLlmResource(script=script, llm_config=llm_config)


def _materialize(
    instance: dg.DagsterInstance, project_file: Path, llm: ScriptedLlmResource
) -> None:
    result = dg.materialize(
        GRAPH, partition_key=KEY, resources=resources(project_file, llm), instance=instance
    )
    assert result.success


def test_tokens_corrections_and_cost_are_summed_from_the_dispatch_records(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."vba-heuristic"]\ninput = 3.0\noutput = 15.0\n')
    project_file = _with_operations(embedded_project_file(tmp_path), f'prices = "{prices}"\n')
    llm = _scripted_llm(tmp_path, "usage")
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000020")
        _materialize(instance, project_file, llm)
        plan = _latest(instance, "resolution_plan").metadata
        # every scripted reply reports 100 input and 50 output tokens
        assert (plan["requests"].value, plan["corrections"].value) == (2, 1)
        assert (plan["input_tokens"].value, plan["output_tokens"].value) == (200, 100)
        assert plan["cost_usd"].value == pytest.approx((200 * 3.0 + 100 * 15.0) / 1e6)
        assert plan["price_source"].value == plan["total_price_source"].value == "config"
        final = _latest(instance, "interpretation").metadata
        assert (final["requests"].value, final["input_tokens"].value) == (1, 100)
        # a second run reuses every artifact: nothing sent in this run, the revision's totals kept
        _materialize(instance, project_file, llm)
        plan = _latest(instance, "resolution_plan").metadata
        assert (plan["requests"].value, plan["total_requests"].value) == (0, 2)
        assert plan["cost_usd"].value == 0.0  # nothing sent: no source priced anything
        assert "price_source" not in plan and plan["total_price_source"].value == "config"
        assert plan["total_input_tokens"].value == 200


def test_a_known_model_is_priced_by_genai_prices_without_a_price_table(tmp_path: Path) -> None:
    """A revision frozen on Anthropic's claude-sonnet-4-6 (scripted replies, no network) and no
    ``[operations] prices``: the cost is genai-prices' list price, and the metadata says so."""
    llm_file = tmp_path / "llm.toml"
    llm_file.write_text('provider = "anthropic"\nmodel = "claude-sonnet-4-6"\n')
    project_file = embedded_project_file(tmp_path)
    llm = _scripted_llm(tmp_path, "listed", name="anthropic", llm_config=str(llm_file))
    with dg.instance_for_test() as instance:
        register(instance, "BUG-000020")
        _materialize(instance, project_file, llm)
        plan = _latest(instance, "resolution_plan").metadata
        assert (plan["input_tokens"].value, plan["output_tokens"].value) == (200, 100)
        # Sonnet 4.6 list price: $3 per million input tokens, $15 per million output tokens
        assert plan["cost_usd"].value == pytest.approx((200 * 3.0 + 100 * 15.0) / 1e6)
        assert plan["price_source"].value == "genai-prices 0.2.5"
        final = _latest(instance, "interpretation").metadata
        assert final["total_cost_usd"].value == pytest.approx((100 * 3.0 + 50 * 15.0) / 1e6)
        dagster_total = sum(
            _latest(instance, a).metadata["total_cost_usd"].value for a in MODEL_ASSETS
        )
    # vba eval reads the same revision to the same cost (one pricing rule)
    observed = observe_case(Workspace(tmp_path / "ws").case("BUG-000020"), "0001")
    assert {c.price_source for c in observed.calls} == {"genai-prices 0.2.5"}
    assert sum(c.cost_microusd or 0 for c in observed.calls) == round(dagster_total * 1e6)


def test_the_inbox_sensor_and_the_backfill_cli_tag_their_runs(tmp_path: Path) -> None:
    project_file = embedded_project_file(tmp_path)
    import_report(Workspace(tmp_path / "ws"), sample_report_path("BUG-000021"))
    sensor = build_inbox_sensor("interpret_cases")
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(
            instance=instance, resources=resources(project_file)
        ) as context:
            outcome = sensor(context)
        assert isinstance(outcome, dg.SensorResult)
        [request] = outcome.run_requests or []
        assert request.tags == {
            "vba/case": "BUG-000021",
            "vba/revision": "0001",
            "vba/provider": "heuristic",
        }  # the heuristic has no model name
    tags = backfill_tags(["BUG-000021|0001"], {})
    assert tags["vba/case"] == "BUG-000021" and tags["vba/revision"] == "0001"
    several = backfill_tags(["BUG-000021|0001", "BUG-000021|0002"], {})
    assert "vba/revision" not in several  # each run adds its own
    command = backfill_command(["BUG-000021|0001"], tags=tags)
    assert command[command.index("--tags") + 1].startswith('{"vba/case": "BUG-000021"')


@pytest.mark.slow
def test_a_backfill_cli_launch_queues_runs_with_the_vba_tags(tmp_path: Path) -> None:
    """`python -m vba_assets.defs.backfill --launch` through workspace.yaml (its own process and
    code server), into an instance whose queue is never dequeued: the queued run has the tags."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text(
        "run_coordinator:\n  module: dagster.core.run_coordinator\n"
        "  class: QueuedRunCoordinator\ntelemetry:\n  enabled: false\n"
    )
    project_file = embedded_project_file(tmp_path)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        register(instance, "BUG-000021")
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "VBA_PROJECT_CONFIG": str(project_file),
        "PYTHONPATH": str(REPO),
    }
    env.pop("VBA_LLM_CONFIG", None)
    launched = subprocess.run(
        [sys.executable, "-m", "vba_assets.defs.backfill", "--case-id", "BUG-000021", "--launch"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert launched.returncode == 0, f"{launched.stdout}\n{launched.stderr}"
    with dg.DagsterInstance.from_config(str(home)) as instance:
        [run] = instance.get_runs()
    assert run.status is dg.DagsterRunStatus.QUEUED
    assert {k: v for k, v in run.tags.items() if k.startswith("vba/")} == {
        "vba/case": "BUG-000021",
        "vba/revision": "0001",
        "vba/provider": "heuristic",
    }
    assert run.tags["dagster/partition"] == "BUG-000021|0001"


def test_interpretation_tags_are_valid_dagster_tag_values() -> None:
    """An out-of-scope class and a free category become valid asset-event tags (Dagster refuses
    ':' or '/' in a materialization's tag value, which failed the step)."""
    from vba_assets.defs.assets import interpretation_tags, tag_value

    doc = {
        "interpretation": {
            "category": "quest/npc bug",
            "scope": {"in_scope": False, "out_of_scope_class": "cheating_report"},
        }
    }
    tags = interpretation_tags(doc)
    assert tags == {"vba/category": "quest_npc_bug", "vba/scope": "out_of_scope.cheating_report"}
    dg.MaterializeResult(tags=tags)  # accepted by Dagster's own validation
    assert len(tag_value("x" * 100)) == 63
    assert interpretation_tags({"status": "disabled"}) == {}
