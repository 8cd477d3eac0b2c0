"""Static prefix share of every model request, per stage and per provider wire format.

For each report of a dataset (default ``eval/devset.jsonl``) the pipeline runs once with the
deterministic ``heuristic`` provider (plan, captures, assessment, interpretation: the same code as
``vba eval``). Then, for each stage, the stage's request is rebuilt from the accepted artifacts
with the schema dialect each provider configuration freezes, turned into the exact body that
provider would send (``wire_request``; no network), and measured with the context manifest
(:mod:`vba_assets.domain.prompting.manifest`): the **static prefix share** is the characters before
the first item that is neither ``static`` nor ``provider_injected`` over all characters of the body.

What this measures is request layout only: no model answers here, no token is billed. The
``heuristic`` body is the neutral request (it also carries ``stage_context``, the structured data
only local providers read, so its share is lower by construction and no cache applies to it).

    .venv/bin/python bench/prefix_share.py [--dataset eval/devset.jsonl] [--protocol 4]
                                            [--cases N] [--wolpertinger-only]

Prints one JSON document: per provider configuration and stage, the Wolpertinger sample's share
(``BUG-000020``), the mean, min and max over the dataset, and whether the 80 % target is met.
"""

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from resources.llm import ProviderOptions, build_provider
from vba_assets.config import embedded_project_config
from vba_assets.domain.llm.contract import DispatchRecord, ModelRequest
from vba_assets.domain.prompting.manifest import context_manifest
from vba_assets.domain.prompting.prompts import CURRENT_PROMPT_VERSION, load_prompt_set
from vba_assets.domain.prompting.requests import (
    RequestParams,
    build_assessment_request,
    build_interpretation_request,
    build_plan_request,
    request_items_for,
)
from vba_assets.domain.protocol import CURRENT_PROTOCOL_VERSION, PROTOCOLS
from vba_assets.domain.stage_context import (
    assessment_stage_context,
    interpretation_stage_context,
    plan_stage_context,
)
from vba_assets.errors import VbaError
from vba_assets.evaluation.dataset import load_dataset
from vba_assets.intake import import_report
from vba_assets.llm_config import LlmConfig, parse_llm_config, schema_dialect
from vba_assets.pipeline.artifacts import (
    load_candidate_index,
    load_plan,
    load_resolution_context,
)
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.pipeline.trial import run_trial
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

TARGET = 0.80
WOLPERTINGER = "BUG-000020"
#: The provider configurations measured (name -> LLM config document). Those this build does not
#: accept (an older release without a response format) are reported as skipped.
CONFIGS: dict[str, dict[str, Any]] = {
    "anthropic/tool_use": {"provider": "anthropic", "model": "m", "response_format": "tool_use"},
    "anthropic/strict_tool": {
        "provider": "anthropic",
        "model": "m",
        "response_format": "strict_tool",
    },
    "anthropic/json_schema": {
        "provider": "anthropic",
        "model": "m",
        "response_format": "json_schema",
    },
    "openai_compatible/json_schema": {
        "provider": "openai_compatible",
        "model": "m",
        "base_url": "http://127.0.0.1:9/v1",
        "response_format": "json_schema",
    },
    "openai_compatible/json_object": {
        "provider": "openai_compatible",
        "model": "m",
        "base_url": "http://127.0.0.1:9/v1",
        "response_format": "json_object",
    },
    "heuristic (neutral body)": {"provider": "heuristic"},
}
STAGES = ("resolution_plan", "resolution_assessment", "interpretation")


def _record(request: ModelRequest, provider: str, body: dict[str, Any]) -> DispatchRecord:
    return DispatchRecord(
        record_version=2,
        stage=request.stage,
        attempt=1,
        provider=provider,
        model=request.model,
        parameters={},
        protocol_version=request.protocol_version,
        output_name=request.output_name,
        base_request_sha256=request.sha256(),
        request_sha256=request.sha256(),
        request=body,
        outcome="accepted",
    )


def _case_requests(
    workspace: Workspace, case_id: str, protocol: int
) -> Callable[[RequestParams], list[ModelRequest]]:
    """The stage requests of a completed heuristic revision, rebuilt for any request params."""
    rev = load_frozen(workspace.case(case_id), "0001")
    case_doc, catalogs = rev.case_doc(), rev.catalogs
    frozen = rev.resolution
    plan, index = load_plan(rev), load_candidate_index(rev)
    resolution = load_resolution_context(rev)
    prompts = load_prompt_set(CURRENT_PROMPT_VERSION if protocol >= 4 else "v1")
    version: Any = protocol

    def build(params: RequestParams) -> list[ModelRequest]:
        requests = []
        if frozen is not None and frozen.status == "enabled":
            context = plan_stage_context(case_doc, catalogs, frozen.max_searches)
            requests.append(build_plan_request(context, prompts, version, params))
            if plan is not None and index is not None:
                assessment = assessment_stage_context(case_doc, plan, index)
                requests.append(build_assessment_request(assessment, prompts, version, params))
        interpretation = interpretation_stage_context(case_doc, resolution)
        requests.append(build_interpretation_request(interpretation, prompts, version, params))
        return requests

    return build


def measure(dataset: Path, protocol: int, limit: int | None, only_sample: bool) -> dict[str, Any]:
    project = embedded_project_config()
    heuristic = LlmConfig(provider="heuristic")
    with tempfile.TemporaryDirectory(prefix="vba-prefix-") as scratch:
        workspace = Workspace(Path(scratch) / "workspace")
        reports = [(WOLPERTINGER, sample_report_path(WOLPERTINGER))]
        if not only_sample:
            cases = load_dataset(dataset).cases[:limit]
            for case in cases:
                path = Path(scratch) / f"{case.id}.json"
                path.write_text(json.dumps(case.report_document(), ensure_ascii=False))
                reports.append((case.id, path))
        builders = {}
        blocked: dict[str, str] = {}
        for case_id, path in reports:
            import_report(workspace, path)
            try:
                run_trial(
                    workspace,
                    case_id,
                    "0001",
                    project,
                    heuristic,
                    stop_after="interpretation",
                    max_dispatches=12,
                )
            except VbaError as exc:  # a rejected heuristic reply: its requests are still built
                blocked[case_id] = exc.code.value
            builders[case_id] = _case_requests(workspace, case_id, protocol)
        prompts = load_prompt_set(CURRENT_PROMPT_VERSION if protocol >= 4 else "v1")
        results: dict[str, Any] = {}
        for name, document in CONFIGS.items():
            try:
                config = parse_llm_config(dict(document), source=name)
            except Exception as exc:  # an older build without this response format
                results[name] = {"skipped": str(exc).split(":")[-1].strip()}
                continue
            options = ProviderOptions(env={"ANTHROPIC_API_KEY": "measure-only"})
            provider = build_provider(config, options)
            params = RequestParams(
                model="m", max_tokens=4096, temperature=0.0, dialect=schema_dialect(config)
            )
            shares: dict[str, dict[str, float]] = {stage: {} for stage in STAGES}
            for case_id, build in builders.items():
                for request in build(params):
                    body = provider.wire_request(request, request.messages)
                    items = request_items_for(request, prompts)
                    manifest = context_manifest(_record(request, provider.name, body), items)
                    shares[request.stage][case_id] = manifest.static_prefix_share
            results[name] = {stage: _summary(values) for stage, values in shares.items()}
        return {
            "benchmark": "prefix_share",
            "protocol_version": protocol,
            "prompt_version": CURRENT_PROMPT_VERSION if protocol >= 4 else "v1",
            "dataset": None if only_sample else str(dataset),
            "cache_first_layout": PROTOCOLS[protocol].static_first,
            "cases": len(builders),
            "heuristic_blocked": blocked,
            "target": TARGET,
            "results": results,
        }


def _summary(values: dict[str, float]) -> dict[str, Any]:
    if not values:
        return {"cases": 0}
    others = [v for k, v in values.items() if k != WOLPERTINGER] or list(values.values())
    mean = statistics.fmean(others)
    sample = values.get(WOLPERTINGER)
    return {
        "cases": len(others),
        "wolpertinger": sample,
        "mean": round(mean, 4),
        "min": min(others),
        "max": max(others),
        "met": bool(sample is not None and sample >= TARGET and mean >= TARGET),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="eval/devset.jsonl")
    parser.add_argument("--protocol", type=int, default=CURRENT_PROTOCOL_VERSION)
    parser.add_argument("--cases", type=int, default=None, help="first N dataset reports only")
    parser.add_argument("--wolpertinger-only", action="store_true")
    parser.add_argument(
        "--without-cache-first",
        action="store_true",
        help="measure protocol 4 as it was before the cache-first layout: the schema ending the "
        "user message, the fixed notes in it (same prompts, same day, for a fair comparison)",
    )
    args = parser.parse_args(argv)
    if args.without_cache_first:
        spec = PROTOCOLS[4]
        PROTOCOLS[4] = dataclasses.replace(
            spec, schema_in_message=True, native_schema=False, static_first=False
        )
    document = measure(Path(args.dataset), args.protocol, args.cases, args.wolpertinger_only)
    json.dump(document, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
