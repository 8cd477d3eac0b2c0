"""Independent re-checks of accepted artifacts, run as Dagster asset checks on every partition.

They re-derive what the stage already enforced, from the files alone, so a tampered or buggy artifact
is caught even when it was reused from an earlier run. A check that protects a later stage is
blocking (declared in ``vba_assets/defs``). Each returns a :class:`CheckOutcome`; none raises for bad
data.
"""

import re
from dataclasses import dataclass, field

from vba_assets.config import CatalogConfig
from vba_assets.domain.interpretation.rules import interpretation_validator
from vba_assets.domain.prompting.stage_context import interpretation_stage_context
from vba_assets.domain.resolution.rules import validate_assessment, validate_plan
from vba_assets.errors import VbaError
from vba_assets.pipeline.artifacts import (
    compute_candidate_index,
    compute_resolution_context,
    load_assessment,
    load_captures,
    load_plan,
    load_resolution_context,
)
from vba_assets.pipeline.revision import RevisionEnv, resolution_input
from vba_assets.store import canonical_bytes

#: What every capture's SQL must look like: a parameterized LIKE with an escape clause and a limit.
_CAPTURE_SQL = re.compile(
    r"^SELECT\s.+\sFROM\s.+\sWHERE\s.+\sLIKE\s.+\sESCAPE\s.+\sORDER BY\s.+\sLIMIT\s.+$",
    re.S,
)
#: The only literal a capture's SQL may hold: the LIKE escape character (SQLite '\', MySQL '\\').
_ESCAPE_CLAUSE = re.compile(r"ESCAPE\s+'\\{1,2}'")


def capture_sql_problems(sql: str) -> list[str]:
    """A capture's SQL must be the parameterized contains search, with no literal but the escape."""
    if not _CAPTURE_SQL.match(sql) or "'" in _ESCAPE_CLAUSE.sub("", sql):
        return ["SQL is not the parameterized contains-search template"]
    return []


@dataclass
class CheckOutcome:
    passed: bool
    problems: list[str] = field(default_factory=list)
    skipped: str | None = None

    @classmethod
    def of(cls, problems: list[str]) -> "CheckOutcome":
        return cls(passed=not problems, problems=problems)

    @classmethod
    def not_applicable(cls, why: str) -> "CheckOutcome":
        return cls(passed=True, skipped=why)


def _enabled(env: RevisionEnv) -> bool:
    relpath = f"{env.er_dir}/input.json"
    return env.package.exists(relpath) and resolution_input(env, None).status == "enabled"


def check_plan_grounding(env: RevisionEnv) -> CheckOutcome:
    if not _enabled(env) or (plan := load_plan(env)) is None:
        return CheckOutcome.not_applicable("entity resolution disabled")
    frozen = resolution_input(env, None)
    catalogs = [CatalogConfig.model_validate(c) for c in frozen.catalogs]
    issues = validate_plan(plan, env.case_doc(), catalogs, frozen.max_searches)
    return CheckOutcome.of([f"{i.path}: {i.message}" for i in issues])


def check_capture_provenance(env: RevisionEnv) -> CheckOutcome:
    if not _enabled(env) or (plan := load_plan(env)) is None:
        return CheckOutcome.not_applicable("entity resolution disabled")
    frozen = resolution_input(env, None)
    problems: list[str] = []
    try:
        captures = load_captures(env)  # read_object re-hashes every capture against its name
    except VbaError as exc:
        return CheckOutcome.of([str(exc)])
    for number, search in enumerate(plan.searches, start=1):
        search_id = f"Q{number}"
        if search_id not in captures:
            problems.append(f"{search_id}: no capture")
            continue
        digest, capture = captures[search_id]
        result = capture.result
        where = f"{search_id} ({digest[:12]})"
        if capture.search != search:
            problems.append(f"{where}: the capture's search differs from the accepted plan")
        if result.term != search.term or result.catalog != search.catalog:
            problems.append(f"{where}: term/catalog differ from the plan")
        problems += [f"{where}: {problem}" for problem in capture_sql_problems(result.sql)]
        if frozen.snapshot is not None and result.snapshot != frozen.snapshot:
            problems.append(f"{where}: snapshot binding differs from the frozen input")
        if result.row_limit != frozen.max_candidates:
            problems.append(f"{where}: row limit {result.row_limit} != {frozen.max_candidates}")
        if len(result.rows) > result.row_limit:
            problems.append(f"{where}: more rows than the row limit")
        if not result.coverage_notes:
            problems.append(f"{where}: no coverage notes")
    return CheckOutcome.of(problems)


def check_candidate_index(env: RevisionEnv) -> CheckOutcome:
    if not _enabled(env) or load_plan(env) is None:
        return CheckOutcome.not_applicable("entity resolution disabled")
    stored = env.package.read_bytes(f"{env.er_dir}/candidates.json")
    recomputed = canonical_bytes(compute_candidate_index(env).model_dump(mode="json"))
    if stored != recomputed:
        return CheckOutcome.of(["candidates.json does not recompute from the captures"])
    return CheckOutcome.of([])


def check_selections(env: RevisionEnv) -> CheckOutcome:
    """Every selection is a real candidate of its search, citing its capture row and a mention."""
    if not _enabled(env) or (plan := load_plan(env)) is None:
        return CheckOutcome.not_applicable("entity resolution disabled")
    assessment = load_assessment(env)
    if assessment is None:
        return CheckOutcome.not_applicable("no accepted assessment")
    issues = validate_assessment(assessment, compute_candidate_index(env), plan, env.case_doc())
    problems = [f"{i.path}: {i.message}" for i in issues if "truncated" not in i.message]
    if not issues:
        stored = load_resolution_context(env)
        if stored is None or stored != compute_resolution_context(env):
            problems.append("context.json does not recompute from plan, captures and assessment")
    return CheckOutcome.of(problems)


def check_no_truncated_selection(env: RevisionEnv) -> CheckOutcome:
    if not _enabled(env) or load_plan(env) is None:
        return CheckOutcome.not_applicable("entity resolution disabled")
    assessment = load_assessment(env)
    if assessment is None:
        return CheckOutcome.not_applicable("no accepted assessment")
    index = {s.search_id: s for s in compute_candidate_index(env).searches}
    return CheckOutcome.of(
        [
            f"{verdict.search_id} selects {verdict.candidate_id} from a truncated search"
            for verdict in assessment.assessments
            if verdict.status == "selected" and index[verdict.search_id].truncated
        ]
    )


def check_interpretation_retention(env: RevisionEnv) -> CheckOutcome:
    """Selected entities kept with citations, unresolved identities kept as unknowns, citations resolve."""
    doc = env.package.read_json(f"{env.rev_dir}/interpretation.json")
    context = interpretation_stage_context(
        env.case_doc(), load_resolution_context(env) if _enabled(env) else None
    )
    result = interpretation_validator(context)(doc["interpretation"])
    if isinstance(result, list):
        return CheckOutcome.of([f"{i.path}: {i.message}" for i in result])
    return CheckOutcome.of([])
