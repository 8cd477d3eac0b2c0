"""Lifecycle of a revision: outages, provider retries, frozen inputs, append-only, replay, phase stop."""

import shutil
from pathlib import Path

import pytest

from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.pipeline.support import (
    ER,
    LLM,
    QUEST,
    Clock,
    assess_exact,
    imported,
    interpret,
    plan_reply,
    project_config,
    run,
)
from vba_assets.domain.llm.contract import ProviderFault
from vba_assets.errors import ErrorCode, ModelError, ResearchUnavailable, StoreError
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.trial import run_trial
from vba_assets.pipeline.verification import verify_revision
from vba_assets.store import Workspace, canonical_bytes


def full_script(case_doc: dict) -> ScriptedProvider:
    return ScriptedProvider(
        {
            "resolution_plan": [plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )


def outage() -> None:
    raise ResearchUnavailable(
        ErrorCode.RESEARCH_UNAVAILABLE, "connection refused", backend="mysql", operation="connect"
    )


def test_a_db_outage_blocks_without_losing_the_plan_and_resumes_after_retry_at(
    tmp_path: Path,
) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    clock = Clock()
    provider = full_script(package.read_json("case.json"))

    calls = {"n": 0}

    def db_down_for_captures() -> object:
        from resources.world_db import WorldDatabase

        calls["n"] += 1
        database = WorldDatabase.from_config(project)
        database.snapshot_binding()  # the plan froze its binding while the DB was up

        class Down:
            def snapshot_binding(self) -> object:
                return database.snapshot_binding()

            def contains_search(self, *args: object) -> object:
                outage()
                return None

            def close(self) -> None:
                database.close()

        return Down()

    with pytest.raises(ResearchUnavailable) as excinfo:
        run(workspace, "BUG-000020", project, provider, open_db=db_down_for_captures, clock=clock)
    assert excinfo.value.code is ErrorCode.RESEARCH_UNAVAILABLE
    assert package.exists(f"{ER}/plan.json")  # the accepted plan is kept
    blocked = [e for e in package.read_events("0001") if e["event"] == "blocked"][-1]
    assert (
        blocked["code"] == "RESEARCH_UNAVAILABLE"
        and blocked["retry_at"] == "2026-10-01T12:01:00.000000Z"
    )

    clock.advance(30)  # too early: refused with the time to wait, no query made
    with pytest.raises(ResearchUnavailable) as early:
        run(workspace, "BUG-000020", project, provider, clock=clock)
    assert "wait 30 s" in str(early.value)

    clock.advance(31)
    report = run(workspace, "BUG-000020", project, provider, clock=clock)
    assert report.stages[-1].stage == "interpretation"
    assert report.dispatches_total == 3  # the outage cost no model call
    assert [e["event"] for e in package.read_events("0001")].count("resumed") == 1


def test_provider_faults_are_retried_and_recorded(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    case_doc = package.read_json("case.json")
    fault = ProviderFault(
        ErrorCode.LLM_PROVIDER_ERROR,
        "overloaded",
        retryable=True,
        status_code=529,
        retry_after_s=0.0,
    )
    provider = ScriptedProvider(
        {
            "resolution_plan": [fault, plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
        }
    )
    run(workspace, "BUG-000020", project_config(tmp_path / "ws"), provider, stop_after="resolution")
    first = package.read_json(f"{ER}/dispatches/resolution_plan-1.json")
    second = package.read_json(f"{ER}/dispatches/resolution_plan-2.json")
    assert (first["outcome"], first["status_code"]) == ("provider_error", 529)
    assert second["outcome"] == "accepted"


def test_a_long_retry_after_ends_the_invocation_with_a_persisted_retry_at(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    case_doc = package.read_json("case.json")
    clock = Clock()
    fault = ProviderFault(
        ErrorCode.LLM_PROVIDER_ERROR,
        "rate limited",
        retryable=True,
        status_code=429,
        retry_after_s=600,
    )
    provider = ScriptedProvider(
        {
            "resolution_plan": [fault, plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
        }
    )
    project = project_config(tmp_path / "ws")
    with pytest.raises(ModelError) as excinfo:
        run(workspace, "BUG-000020", project, provider, stop_after="resolution", clock=clock)
    assert excinfo.value.code is ErrorCode.LLM_PROVIDER_RETRY_PENDING
    blocked = [e for e in package.read_events("0001") if e["event"] == "blocked"][-1]
    assert blocked["code"] == "LLM_PROVIDER_RETRY_PENDING" and "retry_at" in blocked
    with pytest.raises(ModelError):  # before retry_at: refused without a request
        run(workspace, "BUG-000020", project, provider, stop_after="resolution", clock=clock)
    assert len(provider.calls) == 1
    clock.advance(601)
    run(workspace, "BUG-000020", project, provider, stop_after="resolution", clock=clock)
    assert package.exists(f"{ER}/assessment.json")
    resumed = [e for e in package.read_events("0001") if e["event"] == "resumed"]
    assert [e["stage"] for e in resumed] == ["resolution_plan"]


def test_changed_catalogs_while_captures_are_unfinished_are_refused(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    provider = full_script(package.read_json("case.json"))
    clock = Clock()

    def down_after_plan() -> object:
        from resources.world_db import WorldDatabase

        database = WorldDatabase.from_config(project)

        class Down:
            snapshot_binding = database.snapshot_binding

            def contains_search(self, *args: object) -> object:
                outage()
                return None

            def close(self) -> None:
                database.close()

        return Down()

    with pytest.raises(ResearchUnavailable):
        run(workspace, "BUG-000020", project, provider, open_db=down_after_plan, clock=clock)
    clock.advance(61)
    changed = project_config(tmp_path / "ws", max_candidates=3)  # same catalogs, other limit: fine
    narrowed = changed.model_copy(
        update={
            "entity_resolution": changed.entity_resolution.model_copy(  # type: ignore[union-attr]
                update={"catalogs": changed.catalogs[:1]}
            )
        }
    )
    with pytest.raises(StoreError) as excinfo:
        run(workspace, "BUG-000020", narrowed, provider, clock=clock)
    assert excinfo.value.code is ErrorCode.ENTITY_RESOLUTION_BINDING_CHANGED
    assert "catalogs" in str(excinfo.value)


def test_accepted_artifacts_are_append_only_and_the_revision_is_frozen(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    case_doc = package.read_json("case.json")
    provider = full_script(case_doc)
    run(workspace, "BUG-000020", project, provider, stop_after="resolution")
    before = package.read_bytes(f"{ER}/plan.json")
    with pytest.raises(StoreError) as excinfo:
        package.write_json(f"{ER}/plan.json", {"status": "accepted", "plan": {"searches": []}})
    assert excinfo.value.code is ErrorCode.ARTIFACT_CONFLICT
    assert package.read_bytes(f"{ER}/plan.json") == before
    # a stage that still has to ask a model may only ask the provider and model the revision froze
    other_model = LlmConfig(provider="anthropic", model="claude-x", api_key_env="NOPE")
    with pytest.raises(StoreError) as frozen:
        run(workspace, "BUG-000020", project, ScriptedProvider({}), llm=other_model)
    assert frozen.value.code is ErrorCode.REVISION_FROZEN
    assert "vba revision new" in str(frozen.value)
    # once complete, the revision re-materializes under any config: reuse sends no request
    first = run(workspace, "BUG-000020", project, provider)
    idle = ScriptedProvider({})
    again = run(workspace, "BUG-000020", project, idle, llm=other_model)
    assert idle.calls == [] and again.dispatches_this_run == 0
    assert [s.sha256 for s in again.stages] == [s.sha256 for s in first.stages]


def test_a_later_revision_must_be_created_first(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    with pytest.raises(StoreError) as excinfo:
        run_trial(
            workspace,
            "BUG-000020",
            "0003",
            project_config(tmp_path / "ws"),
            LLM,
            stop_after="resolution",
            max_dispatches=6,
            provider=ScriptedProvider({}),
        )
    assert excinfo.value.code is ErrorCode.REVISION_UNKNOWN
    assert not package.exists("analysis/interpretations/0003/input.json")


def test_a_completed_revision_replays_elsewhere_without_api_or_db(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    first = run(workspace, "BUG-000020", project, full_script(package.read_json("case.json")))
    other = Workspace(tmp_path / "elsewhere")
    shutil.copytree(package.root, other.cases_dir / "BUG-000020")
    moved = other.case("BUG-000020")

    report = verify_revision(moved, "0001")
    assert report.ok and report.findings == [], report.findings
    assert [line.split(":")[0] for line in report.checked] == [
        "resolution_plan",
        "candidate_index",
        "resolution_assessment",
        "context",
        "interpretation",
    ]

    def no_db() -> None:
        raise AssertionError("replay must not open the DB")

    again = run(
        other,
        "BUG-000020",
        project_config(tmp_path / "elsewhere"),
        ScriptedProvider({}),
        llm=LlmConfig(provider="replay"),
        open_db=no_db,
    )
    assert again.dispatches_this_run == 0
    assert [s.sha256 for s in again.stages] == [s.sha256 for s in first.stages]

    # an interpretation rewritten canonically (valid, but not what the model replied) is caught
    relpath = "analysis/interpretations/0001/interpretation.json"
    doc = moved.read_json(relpath)
    doc["interpretation"]["restatement"] += " Added later."
    original_interpretation = moved.read_bytes(relpath)
    moved.path(relpath).chmod(0o644)
    moved.path(relpath).write_bytes(canonical_bytes(doc))
    rewritten = verify_revision(moved, "0001")
    assert {(f.code, f.artifact) for f in rewritten.findings} == {
        (ErrorCode.REPLAY_ARTIFACT_DIFFERS, relpath),  # not what its dispatch recorded
        (ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH, relpath),  # nor what its event names
    }
    assert not any(line.startswith("interpretation") for line in rewritten.checked)
    moved.path(relpath).write_bytes(original_interpretation)
    assert verify_revision(moved, "0001").ok
    missing = verify_revision(moved, "0009")
    assert not missing.ok and [f.code for f in missing.findings] == [ErrorCode.ARTIFACT_MISSING]

    # tampering is caught: a rewritten capture no longer matches its content address
    path = next(
        moved.path(relpath)
        for relpath in moved.list_dir(f"{ER}/captures")
        if b"Wild Wolpertinger" in moved.read_bytes(relpath)
    )
    original = path.read_bytes()
    path.chmod(0o644)
    path.write_bytes(original.replace(b"Wild Wolpertinger", b"Wild Wolpertingex"))
    assert path.read_bytes() != original
    tampered = verify_revision(moved, "0001")
    assert not tampered.ok
    assert ErrorCode.PACKAGE_HASH_MISMATCH in {f.code for f in tampered.findings}


def test_stop_after_resolution_makes_no_interpretation_call(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    provider = full_script(package.read_json("case.json"))
    report = run(
        workspace, "BUG-000020", project_config(tmp_path / "ws"), provider, stop_after="resolution"
    )
    assert report.stages[-1].stage == "resolution_assessment"
    assert not package.exists("analysis/interpretations/0001/interpretation.json")
    assert [stage for stage, _ in provider.calls] == ["resolution_plan", "resolution_assessment"]
    assert (
        run(
            workspace, "BUG-000020", project_config(tmp_path / "ws"), provider, stop_after="case"
        ).stages
        == []
    )


def test_without_an_entity_resolution_block_the_stages_record_disabled(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    provider = ScriptedProvider({"interpretation": [from_stage_context(interpret)]})
    report = run(
        workspace, "BUG-000020", project_config(tmp_path / "ws", resolution=False), provider
    )
    assert [s.status for s in report.stages] == ["disabled"] * 4 + ["accepted"]
    assert package.read_json(f"{ER}/plan.json")["status"] == "disabled"
    assert report.dispatches_total == 1
    interpretation = package.read_json("analysis/interpretations/0001/interpretation.json")
    assert interpretation["prompt"] == "unresolved"
    assert LLM.provider == "heuristic"
