"""A whole revision through the anthropic provider (real SDK, local API): what is cached, measured.

The local server replays the outputs the deterministic heuristic gave for the same case, so
these tests exercise plumbing, not model quality: the requests a real revision sends at protocol
4, their context manifests as ``vba context show`` prints them (static prefix share at least 80 %
for every stage of the Wolpertinger sample), and the cache tokens and cost ``vba eval`` sums from
the dispatch records.
"""

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.http_server import ScriptedHTTPServer
from tests.fakes.model_apis import anthropic_reply
from tests.pipeline.support import LLM, imported, project_config
from vba_assets.context_show import show_context
from vba_assets.evaluation.dataset import EvalCase
from vba_assets.evaluation.metrics import score_case
from vba_assets.evaluation.observations import CaseObservation, ObservedCall, Price
from vba_assets.evaluation.observing import observe_case
from vba_assets.evaluation.report import EvalReport, RunInfo
from vba_assets.evaluation.runner import load_prices, run_eval
from vba_assets.llm_config import parse_llm_config
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.pipeline.recorder import revision_records
from vba_assets.pipeline.trial import run_trial
from vba_assets.store import Workspace

pytestmark = pytest.mark.usefixtures("canary_keys")

REPO = Path(__file__).resolve().parents[3]
MODEL = "claude-sonnet-4-6"
STAGES = ("resolution_plan", "resolution_assessment", "interpretation")
#: Per stage: (cache write, cache read, uncached input, output) tokens the fake API reports.
USAGE = {
    "resolution_plan": (3100, 0, 620, 180),
    "resolution_assessment": (0, 3900, 840, 260),
    "interpretation": (0, 6200, 900, 700),
}


def heuristic_outputs(tmp_path: Path, case_id: str = "BUG-000020") -> dict[str, Any]:
    """What the heuristic accepted for each model stage of ``case_id`` (the fixture replies)."""
    workspace, package = imported(tmp_path / "recording", case_id)
    run_trial(
        workspace,
        case_id,
        "0001",
        project_config(tmp_path / "recording"),
        LLM,
        stop_after="interpretation",
        max_dispatches=12,
    )
    rev = load_frozen(package, "0001")
    records = [r for r in revision_records(package, rev.layout) if r.outcome == "accepted"]
    return {r.stage: json.loads(r.output_text or "") for r in records}


def script(server: ScriptedHTTPServer, outputs: dict[str, Any]) -> None:
    for stage in STAGES:
        write, read, uncached, output = USAGE[stage]
        usage = {
            "input_tokens": uncached,
            "output_tokens": output,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
        }
        server.push(
            anthropic_reply(tool_name=f"submit_{stage}", tool_input=outputs[stage], usage=usage)
        )


def anthropic_config(url: str) -> Any:
    return parse_llm_config(
        {"provider": "anthropic", "model": MODEL, "base_url": url, "timeout_s": 5}, source="test"
    )


def test_a_revision_through_strict_tools_caches_at_least_80_percent_of_each_request(
    tmp_path: Path, server: ScriptedHTTPServer
) -> None:
    script(server, heuristic_outputs(tmp_path))
    workspace, package = imported(tmp_path / "live")
    report = run_trial(
        workspace,
        "BUG-000020",
        "0001",
        project_config(tmp_path / "live"),
        anthropic_config(server.url),
        stop_after="interpretation",
        max_dispatches=6,
    )
    assert [s.stage for s in report.stages][-1] == "interpretation"
    bodies = server.bodies()
    assert len(bodies) == 3  # no correction round, no refusal by the API rules
    assert all(body["tools"][0]["strict"] is True for body in bodies)

    shown = json.loads(show_context(workspace.root, "BUG-000020", "0001", as_json=True))
    shares = {
        d["manifest"]["stage"]: d["manifest"]["static_prefix_share"] for d in shown["dispatches"]
    }
    assert set(shares) == set(STAGES)
    assert all(share >= 0.80 for share in shares.values()), shares
    text = show_context(workspace.root, "BUG-000020", "0001")
    assert text.count("static prefix: ") == 3

    rev = load_frozen(package, "0001")
    assert rev.interpretation.schema_dialect == "anthropic_strict"
    observation = observe_case(
        package, "0001", load_prices(REPO / "config" / "prices.example.toml")
    )
    calls = {c.stage: c for c in observation.calls}
    assert calls["resolution_assessment"].cache_read_tokens == 3900
    assert calls["resolution_plan"].prompt_tokens == 3100 + 620  # input excludes cached tokens
    # 620 x $3 + 3100 x $3.75 + 180 x $15 per million tokens = $0.01619
    assert calls["resolution_plan"].cost_microusd == 16185


def test_vba_eval_sums_cache_tokens_and_cost_per_case(
    tmp_path: Path, server: ScriptedHTTPServer
) -> None:
    dataset = tmp_path / "one.jsonl"
    line = next(
        line for line in (REPO / "eval" / "devset.jsonl").read_text().splitlines() if line.strip()
    )
    dataset.write_text(line + "\n", encoding="utf-8")
    recording = run_eval(dataset, out_dir=tmp_path / "recording")
    case_id = recording.cases[0].case_id
    package = Workspace(tmp_path / "recording" / "workspace").case(case_id)
    records = revision_records(package, load_frozen(package, "0001").layout)
    outputs = {r.stage: json.loads(r.output_text or "") for r in records if r.outcome == "accepted"}
    script(server, outputs)

    prices = {MODEL: Price(input=3.0, output=15.0, cache_write=3.75, cache_read=0.30)}
    report = run_eval(dataset, anthropic_config(server.url), prices=prices)

    counts = report.aggregate
    assert (counts.calls, counts.rejected_calls) == (3, 0)
    assert counts.cache_write_tokens == 3100 and counts.cache_read_tokens == 3900 + 6200
    assert counts.prompt_tokens == sum(w + r + u for w, r, u, _ in USAGE.values())
    rates = report.rates()
    assert rates["cache_hit_share"] == round(10100 / counts.prompt_tokens, 6)
    expected = sum(u * 3.0 + w * 3.75 + r * 0.30 + o * 15.0 for w, r, u, o in USAGE.values()) / 1e6
    assert rates["cost_per_case_usd"] == pytest.approx(expected, abs=2e-6)
    assert rates["correction_rounds_per_case"] == 0
    markdown = report.markdown()
    assert "cache hit share" in markdown and "cost per case" in markdown
    assert report.to_json()["correction_rates"] == []


def test_the_cost_is_undefined_without_a_price_for_every_call() -> None:
    case = EvalCase(id="X-1", title="t", body="b", mentions=())
    calls = (
        ObservedCall("resolution_plan", "accepted", 10, 5, prompt_tokens=10, cost_microusd=100),
        ObservedCall("interpretation", "accepted", 10, 5, prompt_tokens=10, cost_microusd=None),
    )
    result = score_case(case, CaseObservation("X-1", calls=calls))
    info = RunInfo("d", "0" * 64, "anthropic", MODEL, True, 4, 8, (), "s", "sqlite")
    assert EvalReport(run=info, cases=(result,)).rates()["cost_per_case_usd"] is None
    priced = (calls[0], dataclasses.replace(calls[1], cost_microusd=50))
    result = score_case(case, CaseObservation("X-1", calls=priced))
    assert EvalReport(run=info, cases=(result,)).rates()["cost_per_case_usd"] == 150e-6
