"""The simulated model: recorded replies after a latency, every call logged (in process)."""

from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.support import GRAPH, data_versions, register
from vba_assets.defs.resources import ProjectResource, WorldDatabaseResource
from vba_assets.defs.simulation import (
    REPLAY_CONFIG,
    SimulatedModelLlm,
    max_in_flight,
    prepare_replayed_cases,
    read_call_log,
    record_reports,
)
from vba_assets.domain.stages import MODEL_STAGES
from vba_assets.pipeline.registry import check_specs
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace


def test_max_in_flight_counts_overlapping_calls_only() -> None:
    calls = [
        {"start": 0.0, "end": 1.0},
        {"start": 0.5, "end": 1.5},
        {"start": 1.0, "end": 2.0},  # starts when the first ends: not three at once
        {"start": 3.0, "end": 4.0},
    ]
    assert max_in_flight(calls) == 2
    assert max_in_flight([]) == 0


def test_a_seeded_partition_is_answered_from_its_recording_after_the_latency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = ["BUG-000020", "BUG-000023"]
    recordings = Workspace(tmp_path / "recordings")
    target = Workspace(tmp_path / "served")
    paths = [sample_report_path(case_id) for case_id in cases]
    assert record_reports(recordings, paths) == cases
    assert prepare_replayed_cases(recordings, target, paths, "0001") == cases
    monkeypatch.setenv("VBA_WORKSPACE", str(target.root))  # the embedded default project
    log = tmp_path / "calls.jsonl"
    llm = SimulatedModelLlm(
        llm_config=str(REPLAY_CONFIG),
        recordings=str(recordings.root),
        latency_s=0.05,
        call_log=str(log),
    )
    with dg.instance_for_test() as instance:
        register(instance, *cases)
        for case_id in cases:
            result = dg.materialize(
                GRAPH,
                partition_key=f"{case_id}|0001",
                instance=instance,
                resources={
                    "project": ProjectResource(),
                    "world_db": WorldDatabaseResource(),
                    "llm": llm,
                },
            )
            assert result.success
            evaluations = result.get_asset_check_evaluations()
            assert len(evaluations) == len(check_specs()) and all(e.passed for e in evaluations)
            # the replayed artifacts are the recorded ones, byte for byte
            recorded = recordings.case(case_id)
            assert data_versions(result)["interpretation"] == (
                recorded.artifact_ref("analysis/interpretations/0001/interpretation.json").sha256
            )
    calls = read_call_log(log)
    assert len(calls) == len(cases) * len(MODEL_STAGES)
    assert {c["partition"] for c in calls} == {f"{c}|0001" for c in cases}
    assert all(c["end"] - c["start"] >= 0.05 for c in calls)
    assert max_in_flight(calls) == 1  # one run at a time here
