"""``eval_quality``: a small ``vba eval`` run's figures, materialized and read back from the event
log of a real (temporary, SQLite) Dagster instance, as the asset's Plots tab reads them."""

import json
from pathlib import Path

import dagster as dg
import pytest

from vba_assets.definitions import defs
from vba_assets.defs.eval_quality import EVAL_QUALITY, HEADLINE, eval_quality
from vba_assets.evaluation.code_version import eval_code_version
from vba_assets.evaluation.report import EvalReport
from vba_assets.evaluation.runner import run_eval
from vba_assets.llm_config import LlmConfig

REPO = Path(__file__).resolve().parents[2]
KEY = dg.AssetKey(EVAL_QUALITY)


@pytest.fixture(scope="module")
def small_eval(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalReport, Path]:
    """The first three dev-set reports through ``vba eval`` (heuristic, embedded demo DB)."""
    folder = tmp_path_factory.mktemp("eval")
    lines = (REPO / "eval" / "devset.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    dataset = folder / "small.jsonl"
    dataset.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = folder / "out"
    return run_eval(dataset, LlmConfig(), None, out), out


def _run_config(results: dict[str, str]) -> dict[str, object]:
    return {"ops": {EVAL_QUALITY: {"config": {"results": results}}}}


def test_eval_quality_records_each_splits_figures_as_numbers(
    small_eval: tuple[EvalReport, Path], tmp_path: Path
) -> None:
    report, out = small_eval
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["code_version"] == eval_code_version()
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        # a folder (what --out names) and a results.json file are both accepted
        results = {"dev": str(out), "devset": str(out / "results.json")}
        result = dg.materialize([eval_quality], instance=instance, run_config=_run_config(results))
        assert result.success
        event = instance.get_latest_materialization_event(KEY)
        assert event is not None and event.asset_materialization is not None
        materialization = event.asset_materialization
        metadata = materialization.metadata
        rates = report.rates()
        for split in ("dev", "devset"):
            assert metadata[f"{split}.cases"] == dg.IntMetadataValue(3)
            for name in ("mention_recall", "selection_precision", "role_accuracy"):
                value = metadata[f"{split}.{name}"]
                assert isinstance(value, dg.FloatMetadataValue)
                assert value.value == pytest.approx(rates[name])
        # the heuristic has no price: an undefined figure is left out, not written as text
        assert rates["cost_per_case_usd"] is None and "dev.cost_per_case_usd" not in metadata
        table = metadata["headline"]
        assert isinstance(table, dg.TableMetadataValue)
        assert [r.data["split"] for r in table.records] == ["dev", "devset"]
        assert table.records[0].data["role_accuracy"] == rates["role_accuracy"]
        assert [c.name for c in table.schema.columns][2:] == list(HEADLINE)
        # the point of its history is tied to the evaluated code
        assert materialization.tags is not None
        assert materialization.tags["dagster/code_version"] == eval_code_version()
        # the same results again: the same data version
        again = dg.materialize([eval_quality], instance=instance, run_config=_run_config(results))
        assert again.success
        versions = [
            record.asset_materialization.tags["dagster/data_version"]  # type: ignore[union-attr,index]
            for record in (
                r.event_log_entry for r in instance.fetch_materializations(KEY, limit=10).records
            )
            if record.asset_materialization is not None
        ]
        assert len(versions) == 2 and versions[0] == versions[1]


def test_results_of_other_code_are_refused(
    small_eval: tuple[EvalReport, Path], tmp_path: Path
) -> None:
    _, out = small_eval
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**doc, "code_version": "protocol-3.prompts-v1.0.eval-0"}))
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            [eval_quality],
            instance=instance,
            run_config=_run_config({"dev": str(old)}),
            raise_on_error=False,
        )
        assert not result.success
        [failure] = [e for e in result.all_events if e.is_step_failure]
        data = failure.step_failure_data.user_failure_data
        assert data is not None and data.metadata["code"].value == "EVAL_OUTPUT_CONFLICT"
        assert instance.get_latest_materialization_event(KEY) is None


def test_eval_quality_is_outside_the_case_job() -> None:
    repo = defs.get_repository_def()
    job = repo.get_job("interpret_cases")
    assert KEY not in job.asset_layer.selected_asset_keys
    node = repo.asset_graph.get(KEY)
    assert node.is_materializable and node.partitions_def is None
    assert node.code_version == eval_code_version() and node.group_name == "evaluation"
