"""The ``heuristic`` provider through the real request builders and the real correction loop."""

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from resources.llm import build_provider
from resources.llm.base import ProviderFactory, ProviderOptions
from resources.llm.heuristic import (
    HEURISTIC_MODEL,
    HEURISTIC_VERSION,
    HeuristicProvider,
)
from resources.llm.heuristic_index import packaged_index_label
from resources.world_db import WorldDatabase
from vba_assets.config import embedded_project_config
from vba_assets.domain.catalog.world import CatalogSearch
from vba_assets.domain.interpretation.rules import interpretation_validator
from vba_assets.domain.llm.call import run_stage
from vba_assets.domain.llm.contract import (
    ModelRequest,
    Provider,
    ProviderFault,
)
from vba_assets.domain.llm.policy import DispatchBudget, InMemoryRecorder, StageOutcome, StagePolicy
from vba_assets.domain.prompting.prompts import CURRENT_PROMPT_VERSION, load_prompt_set
from vba_assets.domain.prompting.requests import (
    RequestParams,
    assessment_validator,
    build_assessment_request,
    build_interpretation_request,
    build_plan_request,
    plan_validator,
)
from vba_assets.domain.protocol import current_protocol
from vba_assets.domain.resolution.context import (
    build_candidate_index,
    build_resolution_context,
    search_ids,
)
from vba_assets.domain.resolution.models import (
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.stage_context import (
    assessment_stage_context,
    interpretation_stage_context,
    plan_stage_context,
)
from vba_assets.errors import ErrorCode
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.intake import import_report
from vba_assets.llm_config import LlmConfig
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

#: The rules a new revision is judged by.
SPEC = current_protocol()

CATALOGS = embedded_project_config("unused").catalogs
PARAMS = RequestParams(model=HEURISTIC_MODEL, max_tokens=8192)


@pytest.fixture(scope="module")
def brewfest(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    workspace = Workspace(tmp_path_factory.mktemp("ws"))
    import_report(workspace, sample_report_path("BUG-000020"))
    path = Path(workspace.root, "cases", "BUG-000020", "case.json")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def plan_request(case: dict[str, Any]) -> ModelRequest:
    context = plan_stage_context(case, CATALOGS, 4)
    return build_plan_request(context, load_prompt_set(CURRENT_PROMPT_VERSION), 2, PARAMS)


def run(
    request: ModelRequest, provider: Provider, validate: Callable[[Any], Any]
) -> tuple[StageOutcome[Any], InMemoryRecorder]:
    recorder = InMemoryRecorder()
    outcome = run_stage(
        request, provider, validate, recorder, StagePolicy(), DispatchBudget(max_dispatches=3)
    )
    return outcome, recorder


def test_reply_is_honestly_labelled_and_byte_stable(
    brewfest: dict[str, Any], names: NameIndex
) -> None:
    provider = HeuristicProvider(CATALOGS, names)
    request = plan_request(brewfest)
    reply = provider.send(request, request.messages)
    assert provider.name == "heuristic"
    assert (reply.stop_reason, reply.finish, reply.status_code) == ("end_turn", "complete", 200)
    assert reply.usage.input == 0 and reply.usage.output == 0 and reply.request_id is None
    assert reply.response_body == reply.output_text and reply.text is None
    label = f"{HEURISTIC_VERSION}+{names.label}"  # its version and the name index it reads
    assert (reply.response_id or "").startswith(f"{HEURISTIC_MODEL}/{label}/")
    plan = ResolutionPlanOutput.model_validate_json(reply.output_text or "")
    assert {(s.term, s.role) for s in plan.searches} >= {("Wild Wolpertinger", "affected_subject")}
    again = HeuristicProvider(CATALOGS, names).send(plan_request(brewfest), request.messages)
    assert again.response_body == reply.response_body
    assert again.response_id == reply.response_id
    assert provider.wire_request(request, request.messages) == request.document()


def test_three_stages_pass_the_real_correction_loop_first_time(
    brewfest: dict[str, Any], world: WorldDatabase, names: NameIndex
) -> None:
    provider = HeuristicProvider(CATALOGS, names)
    prompts = load_prompt_set(CURRENT_PROMPT_VERSION)
    outcome, plan_records = run(
        plan_request(brewfest), provider, plan_validator(brewfest, CATALOGS, 4, SPEC)
    )
    plan: ResolutionPlanOutput = outcome.value
    record = outcome.accepted
    assert (record.attempt, record.outcome, record.provider) == (1, "accepted", "heuristic")
    assert record.model == HEURISTIC_MODEL and record.stop_reason == "end_turn"
    captures = []
    for search_id, proposed in zip(search_ids(plan), plan.searches, strict=True):
        result = world.contains_search(proposed.catalog, proposed.term, 8)
        capture = CaptureArtifact(search_id=search_id, search=proposed, result=result)
        captures.append((hashlib.sha256(capture.model_dump_json().encode()).hexdigest(), capture))
    index = build_candidate_index(plan, captures)
    assessment_request = build_assessment_request(
        assessment_stage_context(brewfest, plan, index), prompts, 2, PARAMS
    )
    outcome, _ = run(
        assessment_request, provider, assessment_validator(brewfest, plan, index, SPEC)
    )
    assessment: ResolutionAssessmentOutput = outcome.value
    assert outcome.accepted.attempt == 1
    assert assessment.assessments[0].status == "selected"
    context = interpretation_stage_context(
        brewfest, build_resolution_context(plan, index, assessment)
    )
    interpretation_request = build_interpretation_request(context, prompts, SPEC.version, PARAMS)
    outcome, _ = run(interpretation_request, provider, interpretation_validator(context, SPEC))
    assert outcome.accepted.attempt == 1 and outcome.value.affected_subjects[0].ref == "N1"
    assert len(plan_records.records) == 1


def test_from_config_is_a_registry_factory() -> None:
    factory: ProviderFactory = HeuristicProvider.from_config
    provider = factory(LlmConfig(), ProviderOptions(catalogs=CATALOGS))
    assert isinstance(provider, HeuristicProvider) and provider.name == "heuristic"
    assert LlmConfig().provider == "heuristic"  # the default the demo runs with
    built = build_provider(LlmConfig(), ProviderOptions(catalogs=CATALOGS))
    assert isinstance(built, HeuristicProvider)


class CountingIndex:
    def __init__(self, names: NameIndex) -> None:
        self.names = names
        self.calls = 0

    def __call__(self) -> NameIndex:
        self.calls += 1
        return self.names


def test_the_name_index_is_built_lazily_and_named_without_building_it(
    brewfest: dict[str, Any], names: NameIndex
) -> None:
    built = CountingIndex(names)
    provider = HeuristicProvider(CATALOGS, built, packaged_index_label())
    assert provider.label == f"{HEURISTIC_VERSION}+{names.label}" and built.calls == 0
    context = interpretation_stage_context(brewfest, None)
    request = build_interpretation_request(
        context, load_prompt_set(CURRENT_PROMPT_VERSION), SPEC.version, PARAMS
    )
    outcome, _ = run(request, provider, interpretation_validator(context, SPEC))
    assert outcome.accepted.outcome == "accepted" and built.calls == 0
    provider.send(plan_request(brewfest), plan_request(brewfest).messages)
    provider.send(plan_request(brewfest), plan_request(brewfest).messages)
    assert built.calls == 1


def test_the_registry_factory_reads_the_packaged_index_and_never_a_database(
    brewfest: dict[str, Any],
) -> None:
    def no_database() -> CatalogSearch:
        raise AssertionError("the heuristic never opens the world database")

    options = ProviderOptions(catalogs=CATALOGS, catalog_search=no_database)
    provider = HeuristicProvider.from_config(LlmConfig(), options)
    reply = provider.send(plan_request(brewfest), plan_request(brewfest).messages)
    plan = ResolutionPlanOutput.model_validate_json(reply.output_text or "")
    assert "Wild Wolpertinger" in {s.term for s in plan.searches}
    assert packaged_index_label() in (reply.response_id or "")


def test_unknown_stage_and_bad_context_are_recorded_provider_faults(
    brewfest: dict[str, Any],
) -> None:
    provider = HeuristicProvider(CATALOGS, None)
    good = plan_request(brewfest)
    unknown = good.model_copy(update={"stage": "hypotheses"})
    broken = good.model_copy(update={"stage_context": {"stage": "resolution_plan"}})
    for request, kind in ((unknown, "unsupported_stage"), (broken, "stage_context")):
        recorder = InMemoryRecorder()
        with pytest.raises(ProviderFault) as caught:
            run_stage(
                request,
                provider,
                plan_validator(brewfest, CATALOGS, 4, SPEC),
                recorder,
                StagePolicy(),
                DispatchBudget(max_dispatches=3),
            )
        assert caught.value.code is ErrorCode.LLM_PROVIDER_ERROR and not caught.value.retryable
        assert caught.value.detail["kind"] == kind
        assert [r.outcome for r in recorder.records] == ["provider_error"]
