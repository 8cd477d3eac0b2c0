"""The prompting and recorder fast paths give what the plain reference gives (issue 14).

* The builders send the text of the pieces they render (system pieces rendered once per process)
  and :func:`request_items_for` lays out a request from those pieces instead of rendering them
  again, when the request is that very object and its stage context reads back equal;
* :meth:`PackageRecorder.manifest` reads only the dispatch records named with an earlier attempt.

:mod:`tests.reference.prompting` renders and reads everything again; each test compares the
product with it, including where the fast path must fall back.
"""

from typing import Any

import pytest

from tests.pipeline.support import QUEST, REV, imported, plan_reply, project_config, run
from tests.reference.prompting import plain_items, plain_manifest, plain_request
from tests.unit.test_context_manifest import _script
from tests.unit.test_stage_requests import PROMPTS_OF, all_requests
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.prompting import requests as requests_module
from vba_assets.domain.prompting.prompts import load_prompt_set
from vba_assets.domain.prompting.requests import RequestParams, request_items_for
from vba_assets.domain.stages import Stage
from vba_assets.errors import ModelError
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.stage_requests import rebuild_request
from vba_assets.store import CasePackage

# --- request items from the builder's rendering ----------------------------------------------------


@pytest.mark.parametrize("protocol", [1, 2, 3, 4])
@pytest.mark.parametrize("dialect", ["json_schema", "anthropic", "inline"])
def test_requests_and_their_items_are_the_plain_ones(protocol: int, dialect: Any) -> None:
    params = RequestParams(model="test-model", max_tokens=4096, temperature=0.0, dialect=dialect)
    prompts = load_prompt_set(PROMPTS_OF[protocol])
    version: Any = protocol
    for request in all_requests(protocol, params):
        built_from = requests_module._RENDERED[id(request)][1].context
        plain = plain_request(built_from, prompts, version, params)
        assert request.model_dump() == plain.model_dump()  # the builder's texts are the same
        read_back = type(built_from).model_validate(request.stage_context)
        assert requests_module._rendered_for(request, read_back, prompts)
        assert request_items_for(request, prompts) == plain_items(request, read_back, prompts)


def test_a_copy_of_a_request_is_laid_out_again_with_the_same_items(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompts = load_prompt_set(PROMPTS_OF[4])
    for request in all_requests(4):
        copied = request.model_copy()
        context = type(requests_module._RENDERED[id(request)][1].context)
        read_back = context.model_validate(copied.stage_context)
        assert requests_module._rendered_for(copied, read_back, prompts) is None
        assert request_items_for(copied, prompts) == request_items_for(request, prompts)


def test_a_remembered_rendering_of_another_context_or_prompt_set_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan, assessment, *_ = all_requests(4)
    prompts = load_prompt_set(PROMPTS_OF[4])
    rendered = requests_module._RENDERED[id(plan)][1]
    context = rendered.context
    other = context.model_copy(update={"max_searches": 3})
    assert requests_module._rendered_for(plan, context, prompts) is rendered
    assert requests_module._rendered_for(plan, other, prompts) is None
    assert requests_module._rendered_for(plan, context, load_prompt_set("v1")) is None
    # a request built with the plan's rendering remembered under its id is another object
    monkeypatch.setitem(requests_module._RENDERED, id(assessment), (plan, rendered))
    assert requests_module._rendered_for(assessment, context, prompts) is None
    # prompts of another version do not give this request: refused alike when laid out again
    with pytest.raises(ModelError) as fast:
        request_items_for(plan, load_prompt_set("v1"))
    with pytest.raises(ModelError) as again:
        request_items_for(plan.model_copy(), load_prompt_set("v1"))  # not remembered
    assert fast.value.message == again.value.message


# --- the recorder reads only earlier records -------------------------------------------------------


@pytest.fixture(scope="module")
def corrected(tmp_path_factory: pytest.TempPathFactory) -> CasePackage:
    """BUG-000020 whose plan is rejected at attempt 1 and accepted at attempt 2."""
    tmp = tmp_path_factory.mktemp("corrected")
    workspace, package = imported(tmp)
    case_doc = package.read_json("case.json")
    plans = [plan_reply(case_doc, QUEST) for _ in range(2)]
    plans[0]["searches"][0]["term"] = "Wolpertinger King"  # not in the cited quote: rejected
    project = project_config(tmp / "ws")
    run(workspace, "BUG-000020", project, _script(case_doc, *plans), stop_after="resolution")
    return package


def _recorder(package: CasePackage) -> PackageRecorder:
    rev = load_frozen(package, REV)
    stage = Stage.RESOLUTION_PLAN
    items = request_items_for(rebuild_request(rev, stage)[0], rev.prompts)
    return PackageRecorder(package, rev.layout, stage, items)


def test_the_manifest_of_each_attempt_is_the_plain_one(corrected: CasePackage) -> None:
    recorder = _recorder(corrected)
    records = recorder.records()
    assert [(r.attempt, r.outcome) for r in records] == [(1, "rejected"), (2, "accepted")]
    assert recorder.items is not None
    for record in records:
        fast = recorder.manifest(record, recorder.items)
        plain = plain_manifest(recorder, record, list(recorder.items))
        assert fast.model_dump(mode="json") == plain.model_dump(mode="json")
        written = corrected.read_json(recorder.layout.manifest(recorder.stage, record.attempt))
        assert fast.model_dump(mode="json") == written
    assert fast.history is not None and len(fast.history.rounds) == 1  # attempt 2's round


def test_a_first_attempt_reads_no_record_and_a_later_one_only_the_earlier(
    monkeypatch: pytest.MonkeyPatch, corrected: CasePackage
) -> None:
    recorder = _recorder(corrected)
    first, second = recorder.records()
    read: list[str] = []
    original = CasePackage.read_json

    def counting(package: CasePackage, relpath: str) -> Any:
        read.append(relpath.rsplit("/", 1)[-1])
        return original(package, relpath)

    monkeypatch.setattr(CasePackage, "read_json", counting)
    assert recorder._earlier(first) == []
    assert read == []
    assert [r.attempt for r in recorder._earlier(second)] == [1]
    assert read == ["resolution_plan-1.json"]


def test_records_still_lists_every_attempt(corrected: CasePackage) -> None:
    recorder = _recorder(corrected)
    assert [r.attempt for r in recorder.records()] == [1, 2]
    assert all(isinstance(r, DispatchRecord) for r in recorder.history("resolution_plan"))
    assert recorder.history("interpretation") == []
