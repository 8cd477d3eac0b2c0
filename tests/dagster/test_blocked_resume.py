"""Blocked cases as a first-class list (issue 27 item 4): `vba blocked`, `vba resume`, the opt-in
`resume_blocked_sensor` and the `resume_blocked` job, with a stub model that is rejected once and
then answers HTTP 429 with a Retry-After longer than the LLM config's `max_wait_s` (0): the
revision blocks at the plan with a `retry_at` ~2 s ahead.
"""

import json
import time
from datetime import datetime
from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.scripted_llm import SCRIPTS, ScriptedLlmResource
from tests.dagster.support import GRAPH, embedded_project_file, register, resources
from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.pipeline.support import QUEST, assess_exact, interpret, plan_reply
from vba_assets import cli
from vba_assets.defs.job import build_definitions
from vba_assets.defs.resources import ProjectResource, WorldDatabaseResource
from vba_assets.defs.resume import RESUME_JOB_NAME, blocked_revisions_asset, build_resume_sensor
from vba_assets.domain.clock import utc_now
from vba_assets.domain.llm.contract import ProviderFault
from vba_assets.errors import ErrorCode
from vba_assets.intake import import_report
from vba_assets.pipeline import trial
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

KEY = "BUG-000020|0001"
#: Long enough that the "too early" refusals run before it passes on a loaded 2-CPU host (at 2 s,
#: the Dagster observation and two `vba blocked` calls in between sometimes took longer).
RETRY_AFTER_S = 6.0


def _script(case_doc: dict) -> ScriptedProvider:
    fault = ProviderFault(
        ErrorCode.LLM_PROVIDER_ERROR,
        "rate limited",
        retryable=True,
        status_code=429,
        retry_after_s=RETRY_AFTER_S,
    )
    return ScriptedProvider(
        {
            "resolution_plan": ["not json", fault, plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )


def _blocked_case(
    tmp_path: Path, name: str, provider: str = 'provider = "heuristic"'
) -> tuple[Path, Path]:
    """Import BUG-000020 and script its stub model as ``SCRIPTS[name]``; returns the configs."""
    project_file = embedded_project_file(tmp_path)
    llm_file = tmp_path / "llm.toml"
    llm_file.write_text(f"{provider}\n[retry]\nmax_wait_s = 0\n")
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, sample_report_path("BUG-000020"))
    SCRIPTS[name] = _script(workspace.case("BUG-000020").read_json("case.json"))
    return project_file, llm_file


def _llm(name: str, llm_file: Path) -> ScriptedLlmResource:
    return ScriptedLlmResource(script=name, llm_config=str(llm_file))


def _block(instance: dg.DagsterInstance, project_file: Path, llm: ScriptedLlmResource) -> None:
    register(instance, "BUG-000020")
    result = dg.materialize(
        GRAPH,
        partition_key=KEY,
        resources=resources(project_file, llm),
        instance=instance,
        raise_on_error=False,
    )
    assert not result.success
    [observation] = [
        record.get_dagster_event().event_specific_data.asset_observation  # type: ignore[union-attr]
        for record in instance.all_logs(
            result.run_id, of_type=dg.DagsterEventType.ASSET_OBSERVATION
        )
    ]
    metadata = observation.metadata
    assert metadata["blocked"].value == "LLM_PROVIDER_RETRY_PENDING"
    # what the blocked step spent, as numbers: the rejected reply (100 in, 50 out) and the 429
    assert (metadata["total_requests"].value, metadata["total_corrections"].value) == (2, 1)
    assert metadata["total_input_tokens"].value == 100
    assert isinstance(metadata["rejected_records"], dg.PathMetadataValue)
    assert isinstance(metadata["detail.wait_s"], dg.FloatMetadataValue)  # a number, not a repr


def _block_event(tmp_path: Path) -> dict:
    """The one ``blocked`` event of BUG-000020's revision 0001."""
    events = tmp_path / "ws/cases/BUG-000020/analysis/interpretations/0001/events.jsonl"
    [block] = [
        json.loads(line)
        for line in events.read_text().splitlines()
        if json.loads(line)["event"] == "blocked"
    ]
    return block


def _wait_for(retry_at: str) -> None:
    delay = (datetime.fromisoformat(retry_at) - utc_now()).total_seconds()
    time.sleep(max(0.0, delay) + 0.2)


def test_vba_blocked_lists_the_case_and_vba_resume_resumes_it_after_retry_at(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project_file, llm_file = _blocked_case(tmp_path, "cli")
    with dg.instance_for_test() as instance:
        _block(instance, project_file, _llm("cli", llm_file))
        # the same list in Dagster: observing the blocked_revisions source asset (a job of it)
        project = ProjectResource(project_config=str(project_file))
        observe = dg.define_asset_job("observe_blocked", selection=[blocked_revisions_asset.key])
        defs = dg.Definitions(
            assets=[blocked_revisions_asset], jobs=[observe], resources={"project": project}
        )
        observed = defs.resolve_job_def("observe_blocked").execute_in_process(instance=instance)
        [record] = instance.fetch_observations(dg.AssetKey("blocked_revisions"), limit=1).records
        metadata = record.asset_observation.metadata  # type: ignore[union-attr]
        assert observed.success and metadata["blocked_count"].value == 1
        table = metadata["blocked"]
        assert isinstance(table, dg.TableMetadataValue)
        [row] = [r.data for r in table.records]
        assert (row["case"], row["stage"], row["code"]) == (
            "BUG-000020",
            "resolution_plan",
            "LLM_PROVIDER_RETRY_PENDING",
        )
        assert isinstance(row["due"], bool) and row["retry_at"]
        assert (row["attempts"], row["tokens"]) == (2, 150)
    capsys.readouterr()
    assert cli.main(["blocked", "--project-config", str(project_file), "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert (listed["case_id"], listed["revision"], listed["stage"]) == (
        "BUG-000020",
        "0001",
        "resolution_plan",
    )
    assert listed["code"] == "LLM_PROVIDER_RETRY_PENDING"
    assert (listed["attempts"], listed["corrections"]) == (2, 1)
    assert listed["tokens"] == {"input": 100, "output": 50, "cache_read": 0, "cache_write": 0}
    assert Path(listed["rejected_dir"], "resolution_plan-1.json").is_file()
    assert cli.main(["blocked", "--project-config", str(project_file)]) == 0
    text = capsys.readouterr().out
    assert "BUG-000020 0001 resolution_plan LLM_PROVIDER_RETRY_PENDING retry_at" in text
    assert "rejected records: " in text

    provider = SCRIPTS["cli"]
    monkeypatch.setattr(trial, "provider_factory", lambda env, world: lambda: provider)
    # no --llm-config: the revision started with the default (heuristic) provider
    resume = ["resume", "--project-config", str(project_file), "--case-id", "BUG-000020"]
    calls = len(provider.calls)
    assert cli.main(resume) == 6  # too early: refused with the time to wait, nothing sent
    assert "wait " in capsys.readouterr().err
    assert len(provider.calls) == calls
    _wait_for(listed["retry_at"])
    assert cli.main(resume) == 0
    out = capsys.readouterr().out
    assert out.startswith("resumed BUG-000020 revision 0001 at resolution_plan")
    assert "interpretation" in out
    assert cli.main(["blocked", "--project-config", str(project_file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_vba_resume_of_another_providers_revision_needs_its_llm_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    anthropic = 'provider = "anthropic"\nmodel = "claude-sonnet-4-6"'
    project_file, llm_file = _blocked_case(tmp_path, "frozen", anthropic)
    with dg.instance_for_test() as instance:
        _block(instance, project_file, _llm("frozen", llm_file))
    provider = SCRIPTS["frozen"]
    monkeypatch.setattr(trial, "provider_factory", lambda env, world: lambda: provider)
    resume = ["resume", "--project-config", str(project_file), "--case-id", "BUG-000020"]
    calls = len(provider.calls)
    capsys.readouterr()
    assert cli.main(resume) == 5  # REVISION_FROZEN, said before the time to wait
    err = capsys.readouterr().err
    assert "REVISION_FROZEN" in err and "'anthropic' model 'claude-sonnet-4-6'" in err
    assert "--llm-config" in err and "wait " not in err
    assert len(provider.calls) == calls  # nothing sent
    block = _block_event(tmp_path)
    _wait_for(block["retry_at"])
    assert cli.main([*resume, "--llm-config", str(llm_file)]) == 0
    assert capsys.readouterr().out.startswith("resumed BUG-000020 revision 0001")


def test_the_opt_in_sensor_resumes_a_blocked_partition_after_retry_at(tmp_path: Path) -> None:
    project_file, llm_file = _blocked_case(tmp_path, "sensor")
    llm = _llm("sensor", llm_file)
    sensor = build_resume_sensor()
    assert sensor.default_status is dg.DefaultSensorStatus.STOPPED  # off unless turned on
    sensor_resources = {"project": ProjectResource(project_config=str(project_file)), "llm": llm}
    with dg.instance_for_test() as instance:
        _block(instance, project_file, llm)
        with dg.build_sensor_context(instance=instance, resources=sensor_resources) as context:
            early = sensor(context)
        assert isinstance(early, dg.SkipReason)  # blocked, but retry_at has not passed
        assert "BUG-000020|0001 (LLM_PROVIDER_RETRY_PENDING)" in str(early.skip_message)
        block = _block_event(tmp_path)
        _wait_for(block["retry_at"])
        with dg.build_sensor_context(instance=instance, resources=sensor_resources) as context:
            due = sensor(context)
        assert isinstance(due, dg.SensorResult)
        [request] = due.run_requests or []
        assert request.partition_key == KEY
        assert request.run_key == f"resume:{KEY}:{block['seq']}"
        assert request.tags["vba/case"] == "BUG-000020"
        # the run it requests: the resume_blocked job on that partition
        defs = build_definitions(
            project=ProjectResource(project_config=str(project_file)),
            world_db=WorldDatabaseResource(project_config=str(project_file)),
            llm=llm,
        )
        job = defs.resolve_job_def(RESUME_JOB_NAME)
        result = job.execute_in_process(
            instance=instance, partition_key=KEY, tags=dict(request.tags)
        )
        assert result.success
        with dg.build_sensor_context(instance=instance, resources=sensor_resources) as context:
            after = sensor(context)
        assert isinstance(after, dg.SkipReason)
        assert "blocked: none" in str(after.skip_message)


@pytest.mark.slow
def test_through_the_daemon_the_sensor_does_nothing_until_turned_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sensor daemon's own iteration over the project's code location (a gRPC code server
    loading vba_assets.definitions): with the sensor at its default (off) a due block gets no run;
    once started, one queued `resume_blocked` run for the partition."""
    import logging

    from dagster._core.test_utils import create_test_daemon_workspace_context
    from dagster._core.workspace.load_target import ModuleTarget
    from dagster._daemon.sensor import execute_sensor_iteration

    project_file, llm_file = _blocked_case(tmp_path, "daemon")
    monkeypatch.setenv("VBA_PROJECT_CONFIG", str(project_file))
    monkeypatch.setenv("VBA_LLM_CONFIG", str(llm_file))
    queued = {"module": "dagster._core.run_coordinator", "class": "QueuedRunCoordinator"}
    with dg.instance_for_test(overrides={"run_coordinator": queued}) as instance:
        _block(instance, project_file, _llm("daemon", llm_file))
        block = _block_event(tmp_path)
        _wait_for(block["retry_at"])
        target = ModuleTarget(
            module_name="vba_assets.definitions",
            attribute="defs",
            working_directory=str(Path(__file__).resolve().parents[2]),
            location_name="vba_test",
        )
        with create_test_daemon_workspace_context(target, instance) as workspace:
            location = workspace.create_request_context().get_code_location("vba_test")
            [repository] = location.get_repositories().values()
            sensor = repository.get_sensor("resume_blocked_sensor")
            logger = logging.getLogger("test_resume_sensor")

            def resume_runs() -> list[dg.DagsterRun]:
                list(execute_sensor_iteration(workspace, logger, None, None))
                return [r for r in instance.get_runs() if r.job_name == RESUME_JOB_NAME]

            assert resume_runs() == []  # off by default: the block is due, nothing is requested
            instance.start_sensor(sensor)
            [run] = resume_runs()
            assert run.tags["dagster/partition"] == KEY
            assert run.tags["vba/resume_after_block"] == str(block["seq"])
            assert run.status is dg.DagsterRunStatus.QUEUED
