"""Verify a completed revision anywhere: no API request, no database (ARCHITECTURE 8, "Replay").

From the package alone: every artifact's hash and canonical form (the store's ``verify``), every
accepted stage's request rebuilt byte for byte from the frozen artifacts and compared with its
dispatch record, every accepted reply re-validated by the stage's validator, and the candidate index
and the F/N/D context recomputed from the captures.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from vba_assets.config import embedded_project_config
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.llm.policy import DispatchBudget
from vba_assets.errors import VbaError
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.artifacts import (
    compute_candidate_index,
    compute_resolution_context,
    load_plan,
    load_resolution_context,
)
from vba_assets.pipeline.providers import recorded_dispatches
from vba_assets.pipeline.requests import assessment_request, interpretation_request, plan_request
from vba_assets.pipeline.revision import RevisionEnv, resolution_input
from vba_assets.store import CasePackage, canonical_bytes


@dataclass
class ReplayReport:
    case_id: str
    revision: str
    checked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def replay_env(package: CasePackage, revision: str) -> RevisionEnv:
    """An environment that can only read: replay provider, no DB, no budget for requests."""
    return RevisionEnv(
        package=package,
        revision=revision,
        project=embedded_project_config(Path(package.root).parent.parent),
        llm=LlmConfig(provider="replay"),
        budget=DispatchBudget(max_dispatches=0),
    )


def _accepted(records: list[DispatchRecord], stage: str) -> DispatchRecord | None:
    return next((r for r in records if r.stage == stage and r.outcome == "accepted"), None)


def _check_stage(
    report: ReplayReport,
    stage: str,
    built: tuple[Any, Any],
    record: DispatchRecord | None,
    artifact_output: Any,
) -> None:
    request, validate = built
    if record is None:
        report.problems.append(f"{stage}: accepted artifact without an accepted dispatch record")
        return
    if request.sha256() != record.base_request_sha256:
        report.problems.append(
            f"{stage}: the request rebuilt from frozen artifacts differs from the recorded one "
            f"({request.sha256()[:12]} != {record.base_request_sha256[:12]})"
        )
    result = validate(artifact_output)
    if isinstance(result, list) and result:
        report.problems.append(f"{stage}: the accepted reply no longer validates: {result[0]}")
    recorded = validate(json.loads(record.output_text)) if record.output_text else None
    if isinstance(recorded, BaseModel):
        if recorded.model_dump(mode="json") != artifact_output:
            report.problems.append(
                f"{stage}: the artifact differs from the reply its accepted dispatch recorded"
            )
    else:
        report.problems.append(f"{stage}: the accepted dispatch's reply does not validate")
    report.checked.append(
        f"{stage}: request rebuilt, reply re-validated, artifact = recorded reply"
    )


def verify_revision(package: CasePackage, revision: str) -> ReplayReport:
    """Everything verifiable about one revision; problems are reported, never raised."""
    report = ReplayReport(package.case_id, revision)
    for required in ("case.json", f"{package.revision_dir(revision)}/input.json"):
        if not package.exists(required):
            report.problems.append(f"nothing to verify: {required} does not exist")
            return report
    report.problems += [
        f"{f.kind}: {f.relpath}: {f.message}" for f in package.verify() if f.is_error
    ]
    try:
        _replay_stages(replay_env(package, revision), report)
    except VbaError as exc:  # a corrupt artifact stops the recomputation, not the report
        report.problems.append(f"replay stopped: {exc}")
    return report


def _replay_stages(env: RevisionEnv, report: ReplayReport) -> None:
    package = env.package
    records = recorded_dispatches(env)
    er_input = f"{env.er_dir}/input.json"
    resolution = None
    if package.exists(er_input) and resolution_input(env, None).status == "enabled":
        frozen = resolution_input(env, None)
        plan = load_plan(env) if package.exists(f"{env.er_dir}/plan.json") else None
        if plan is not None:
            doc = package.read_json(f"{env.er_dir}/plan.json")
            _check_stage(
                report,
                "resolution_plan",
                plan_request(env, frozen),
                _accepted(records, "resolution_plan"),
                doc["plan"],
            )
            if package.exists(f"{env.er_dir}/candidates.json"):
                index = compute_candidate_index(env)
                stored = package.read_bytes(f"{env.er_dir}/candidates.json")
                if stored != canonical_bytes(index.model_dump(mode="json")):
                    report.problems.append("candidates.json does not recompute from the captures")
                report.checked.append("candidate_index: recomputed from captures")
                if package.exists(f"{env.er_dir}/assessment.json"):
                    doc = package.read_json(f"{env.er_dir}/assessment.json")
                    _check_stage(
                        report,
                        "resolution_assessment",
                        assessment_request(env, frozen, plan, index),
                        _accepted(records, "resolution_assessment"),
                        doc["assessment"],
                    )
                    resolution = load_resolution_context(env)
                    if resolution != compute_resolution_context(env):
                        report.problems.append("context.json does not recompute")
                    report.checked.append("context: F/N/D aliases recomputed")
    interpretation = f"{env.rev_dir}/interpretation.json"
    if package.exists(interpretation):
        _check_stage(
            report,
            "interpretation",
            interpretation_request(env, resolution),
            _accepted(records, "interpretation"),
            package.read_json(interpretation)["interpretation"],
        )
