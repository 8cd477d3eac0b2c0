"""Shared helpers of the pipeline tests: workspaces, configs and fixture model replies.

Fixture replies test the plumbing (grounding, captures, ranking, citations, lifecycle), not the
quality of a model's decisions.
"""

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context, mention
from vba_assets.config import DEMO_ALLOWLIST, DEMO_CATALOGS, ProjectConfig, parse_project_config
from vba_assets.intake import import_report
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.trial import TrialReport, run_trial
from vba_assets.samples import sample_report_path
from vba_assets.store import CasePackage, Workspace

REV = "0001"
ER = f"analysis/interpretations/{REV}/entity-resolution"
LLM = LlmConfig(provider="heuristic")
#: The names the Brewfest sample's quest text (S3) gives: the affected creature and the quest giver.
QUEST = [
    ("Wild Wolpertinger", "creature_name", "affected_subject", "S3", "Wild Wolpertinger"),
    ("Goldark Snipehunter", "creature_name", "quest_giver", "S3", "Goldark Snipehunter"),
]


def project_config(root: Path, *, resolution: bool = True, **limits: Any) -> ProjectConfig:
    data: dict[str, Any] = {
        "workspace": str(root),
        "database": {
            "url": "embedded:demo",
            "allowlist": DEMO_ALLOWLIST,
            "snapshot_label": "demo-wotlk-3.3.5",
        },
    }
    if resolution:
        data["entity_resolution"] = {"catalogs": DEMO_CATALOGS, **limits}
    return parse_project_config(data, base_dir=root, source="<test>")


def imported(tmp_path: Path, case_id: str = "BUG-000020") -> tuple[Workspace, CasePackage]:
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, sample_report_path(case_id))
    return workspace, workspace.case(case_id)


def write_report(tmp_path: Path, case_id: str, title: str, body: str) -> Path:
    path = tmp_path / f"{case_id}.json"
    path.write_text(
        json.dumps(
            {
                "case_id": case_id,
                "title": title,
                "body": body,
                "reported_at": "2026-10-01T12:00:00Z",
            }
        )
    )
    return path


def plan_reply(case_doc: dict[str, Any], searches: list[tuple[str, str, str, str, str]]) -> Any:
    """``(term, catalog, role, source alias, quote)`` -> a grounded plan reply."""
    return {
        "searches": [
            {
                "term": term,
                "catalog": catalog,
                "role": role,
                "mentions": [mention(case_doc, alias, quote)],
            }
            for term, catalog, role, alias, quote in searches
        ]
    }


def _sentence(context: dict[str, Any], m: dict[str, Any]) -> str:
    text = next(s["text"] for s in context["sources"] if s["alias"] == m["source"])
    start = max(0, text.rfind("\n", 0, m["start"]) + 1)
    end = text.find("\n", m["end"])
    return text[start : end if end >= 0 else len(text)].strip() or m["quote"] + "."


def assess_exact(context: dict[str, Any]) -> dict[str, Any]:
    """Select the single exact-name candidate of an untruncated search; else ambiguous/no_match."""
    verdicts = []
    for search in context["searches"]:
        exact = [c for c in search["candidates"] if c["name"].lower() == search["term"].lower()]
        base = {"search_id": search["search_id"]}
        if len(exact) == 1 and not search["truncated"]:
            m = search["mentions"][0]
            verdicts.append(
                base
                | {
                    "status": "selected",
                    "candidate_id": exact[0]["candidate_id"],
                    "capture": search["capture_alias"],
                    "capture_row": exact[0]["capture_row"],
                    "mention": m,
                    "evidence": [{"source": m["source"], "quote": _sentence(context, m)}],
                    "rationale": "fixture: the exact name, in the context of the cited line",
                }
            )
        elif search["candidates"]:
            ids = [c["candidate_id"] for c in (exact or search["candidates"])]
            verdicts.append(
                base
                | {
                    "status": "ambiguous",
                    "competing_candidate_ids": ids,
                    "rationale": "fixture: several candidates",
                }
            )
        else:
            verdicts.append(base | {"status": "no_match", "rationale": "fixture: no candidate"})
    return {"assessments": verdicts}


def interpret(context: dict[str, Any]) -> dict[str, Any]:
    """A valid interpretation that keeps every N alias and every D alias (as an unknown)."""
    resolution = context.get("resolution") or {"selected": [], "unresolved": []}
    affected, others, unknowns = [], [], []
    for alias in resolution["selected"]:
        entry = {
            "ref": alias["alias"],
            "mentions": [{"source": m["source"], "quote": m["quote"]} for m in alias["mentions"]],
        }
        (affected if alias["role"] == "affected_subject" else others).append(entry)
    for alias in resolution["unresolved"]:
        entry = {
            "ref": alias["alias"],
            "mentions": [{"source": m["source"], "quote": m["quote"]} for m in alias["mentions"]],
        }
        (affected if alias["role"] == "affected_subject" else others).append(entry)
        unknowns.append({"ref": alias["alias"], "description": f"Which entry {alias['term']} is."})
    readable = [s["alias"] for s in context["sources"] if s["readable"]]
    scope: dict[str, Any] = {"in_scope": True, "reason": "A report about the game world."}
    names = [a["name"] for a in resolution["selected"] if a["role"] == "affected_subject"]
    restatement = "A player reports a problem in the game world, as described in the report."
    if context.get("protocol_version", 0) >= 4:  # v4 names its scope class and its subjects
        scope["out_of_scope_class"] = None
        if names:
            restatement = f"A player reports a problem with {', '.join(names)} in the game world."
    return {
        "restatement": restatement,
        "category": "quest_progression",
        "scope": scope,
        "ambiguity": {"is_ambiguous": False, "clarification_question": None},
        "affected_subjects": affected,
        "context_entities": others,
        "observations": [
            {"statement": "The report describes the problem.", "citations": readable[:1]}
        ],
        "time_references": [],
        "unknowns": unknowns,
        "sub_tasks": ["Which server behaviour does the report describe?"],
    }


def run(
    workspace: Workspace,
    case_id: str,
    project: ProjectConfig,
    provider: ScriptedProvider,
    *,
    stop_after: str = "interpretation",
    llm: LlmConfig = LLM,
    open_db: Any = None,
    clock: Any = None,
    max_dispatches: int = 12,
) -> TrialReport:
    kwargs: dict[str, Any] = {}
    if open_db is not None:
        kwargs["open_db"] = open_db
    if clock is not None:
        kwargs["clock"] = clock
    return run_trial(
        workspace,
        case_id,
        REV,
        project,
        llm,
        stop_after=stop_after,  # type: ignore[arg-type]
        max_dispatches=max_dispatches,
        provider=provider,
        **kwargs,
    )


class Clock:
    """A settable UTC clock."""

    def __init__(self) -> None:
        self.now = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def completed_revision(tmp_path: Path, *, resolution: bool = True) -> CasePackage:
    """BUG-000020 with revision 0001 run to the end on fixture replies (every check applies)."""
    workspace, package = imported(tmp_path)
    case_doc = package.read_json("case.json")
    replies: dict[str, list[Any]] = {"interpretation": [from_stage_context(interpret)]}
    if resolution:
        replies["resolution_plan"] = [plan_reply(case_doc, QUEST)]
        replies["resolution_assessment"] = [from_stage_context(assess_exact)]
    config = project_config(tmp_path / "ws", resolution=resolution)
    report = run(workspace, package.case_id, config, ScriptedProvider(replies))
    assert report.stages[-1].status == "accepted", report
    return package


def copied(package: CasePackage, destination: Path) -> CasePackage:
    """A copy of ``package``'s workspace at ``destination`` (tamper the copy, not the original)."""
    workspace_root = package.root.parents[1]
    shutil.copytree(workspace_root, destination)
    return Workspace(destination).case(package.case_id)
