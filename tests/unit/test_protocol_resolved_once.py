"""A plan request is built under the protocol resolved once, not looked up again per layer."""

from typing import Any

import pytest

import vba_assets.domain.protocol as protocol_module
from vba_assets.config import embedded_project_config
from vba_assets.domain.case.builder import build_case
from vba_assets.domain.case.report import admit
from vba_assets.domain.prompting import layout
from vba_assets.domain.prompting.prompts import load_prompt_set
from vba_assets.domain.prompting.requests import RequestParams, build_plan_request
from vba_assets.domain.protocol import protocol
from vba_assets.domain.stage_context import PlanStageContext, plan_stage_context
from vba_assets.intake import read_report
from vba_assets.samples import sample_report_path

PARAMS = RequestParams(model="test-model", max_tokens=4096, temperature=0.0)


class _CountingLookups(dict[int, protocol_module.ProtocolSpec]):
    """The protocol registry, counting every :func:`protocol` lookup."""

    calls = 0

    def get(self, key: int, default: Any = None) -> Any:
        type(self).calls += 1
        return super().get(key, default)


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> type[_CountingLookups]:
    _CountingLookups.calls = 0
    monkeypatch.setattr(protocol_module, "PROTOCOLS", _CountingLookups(protocol_module.PROTOCOLS))
    return _CountingLookups


def _context() -> PlanStageContext:
    submitted = read_report(sample_report_path("BUG-000020"))
    doc = build_case(admit(submitted.document, submitted.files)).to_json()
    return plan_stage_context(doc, embedded_project_config("unused").catalogs, 4)


def test_a_v4_plan_request_resolves_its_protocol_at_most_once(
    lookups: type[_CountingLookups],
) -> None:
    context, prompts = _context(), load_prompt_set("v2")
    spec = protocol(4)
    expected = build_plan_request(context, prompts, 4, PARAMS)  # system pieces rendered once
    lookups.calls = 0
    assert build_plan_request(context, prompts, spec, PARAMS).sha256() == expected.sha256()
    assert lookups.calls == 0  # given the spec: no lookup at all
    assert build_plan_request(context, prompts, 4, PARAMS).sha256() == expected.sha256()
    assert lookups.calls == 1  # given the version: resolved once at the builder's entry


def test_rendering_the_examples_resolves_their_protocol_once(
    lookups: type[_CountingLookups], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layout, "_SYSTEM_CACHE", {})
    build_plan_request(_context(), load_prompt_set("v2"), protocol(4), PARAMS)
    assert lookups.calls == 2  # protocol(4) above, and the examples' protocol once for all
