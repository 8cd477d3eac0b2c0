"""The heuristic interpretation over the real resolution chain; it must pass the controller's rules."""

import hashlib
import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from resources.world_db import WorldDatabase
from vba_assets.config import embedded_project_config
from vba_assets.domain.interpretation.models import InterpretationOutput
from vba_assets.domain.interpretation.rules import causal_phrases, validate_interpretation
from vba_assets.domain.prompting.requests import with_protocol
from vba_assets.domain.protocol import current_protocol
from vba_assets.domain.resolution.aliases import ResolutionContext
from vba_assets.domain.resolution.context import (
    build_candidate_index,
    build_resolution_context,
    search_ids,
)
from vba_assets.domain.resolution.models import CaptureArtifact
from vba_assets.domain.stage_context import (
    InterpretationStageContext,
    assessment_stage_context,
    interpretation_stage_context,
    plan_stage_context,
)
from vba_assets.heuristic.assessment import assess_searches
from vba_assets.heuristic.categories import categorize
from vba_assets.heuristic.interpretation import interpret_case
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.planning import plan_searches
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_paths
from vba_assets.store import Workspace

#: The rules a new revision is judged by.
SPEC = current_protocol()

CATALOGS = embedded_project_config("unused").catalogs


def resolution(case: dict[str, Any], world: WorldDatabase, names: NameIndex) -> ResolutionContext:
    """The heuristic plan and assessment, captured on the real DB, as F/N/D aliases."""
    plan = plan_searches(plan_stage_context(case, CATALOGS, 4), names)
    captures = []
    for search_id, proposed in zip(search_ids(plan), plan.searches, strict=True):
        result = world.contains_search(proposed.catalog, proposed.term, 8)
        capture = CaptureArtifact(search_id=search_id, search=proposed, result=result)
        captures.append((hashlib.sha256(capture.model_dump_json().encode()).hexdigest(), capture))
    index = build_candidate_index(plan, captures)
    assessment = assess_searches(assessment_stage_context(case, plan, index), CATALOGS)
    return build_resolution_context(plan, index, assessment)


def interpret(context: InterpretationStageContext) -> InterpretationOutput:
    context = with_protocol(context, SPEC.version)  # as the request builder stamps it
    output = interpret_case(context)
    assert validate_interpretation(output, context, SPEC) == []
    return output


@pytest.fixture(scope="module")
def samples(
    tmp_path_factory: pytest.TempPathFactory, world: WorldDatabase, names: NameIndex
) -> dict[str, tuple[InterpretationStageContext, InterpretationOutput]]:
    workspace = Workspace(tmp_path_factory.mktemp("samples"))
    found = {}
    for path in sample_report_paths():
        case_id = import_report(workspace, path).case_id
        case = json.loads((workspace.root / "cases" / case_id / "case.json").read_text())
        context = with_protocol(
            interpretation_stage_context(case, resolution(case, world, names)), SPEC.version
        )
        found[case_id] = (context, interpret(context))
    return found


def test_every_sample_passes_the_controller_rules(
    samples: dict[str, tuple[InterpretationStageContext, InterpretationOutput]],
) -> None:

    assert len(samples) == 7
    for context, output in samples.values():
        assert context.resolution is not None
        retained = {e.ref for e in [*output.affected_subjects, *output.context_entities]}
        assert {n.alias for n in context.resolution.selected} <= retained
        assert {d.alias for d in context.resolution.unresolved} <= {u.ref for u in output.unknowns}
        texts = [s.text for s in context.sources if s.text]
        for observation in output.observations:
            assert causal_phrases(observation.statement, ()) == [] or any(
                s in observation.statement for s in texts
            )


def test_brewfest_keeps_the_target_affected_and_the_quest_giver_as_context(
    samples: dict[str, tuple[InterpretationStageContext, InterpretationOutput]],
) -> None:
    context, output = samples["BUG-000020"]
    assert context.resolution is not None
    by_alias = {n.alias: n for n in context.resolution.selected}
    affected = [by_alias[e.ref or ""].identity for e in output.affected_subjects]
    others = [by_alias[e.ref or ""].identity for e in output.context_entities]
    assert affected == [23487] and others == [23486]
    assert output.category == "missing_or_unreachable_npc"
    assert not output.ambiguity.is_ambiguous and output.ambiguity.clarification_question is None
    assert output.scope.in_scope
    tonight = next(t for t in output.time_references if t.quote == "tonight")
    assert tonight.resolved_start == tonight.resolved_end == date(2026, 9, 24)
    assert "2026-09-24" in output.restatement
    assert all(task.endswith("?") for task in output.sub_tasks) and output.sub_tasks


def test_german_relative_dates_are_anchored_to_the_report(
    samples: dict[str, tuple[InterpretationStageContext, InterpretationOutput]],
) -> None:
    _, output = samples["BUG-000021"]
    dates = {t.quote: (t.resolved_start, t.resolved_end) for t in output.time_references}
    assert dates["gestern Abend"] == (date(2026, 9, 24), date(2026, 9, 24))  # one expression (v4)
    assert dates["letzte Woche"] == (date(2026, 9, 14), date(2026, 9, 20))
    assert output.category == "missing_or_unreachable_npc"


def test_unresolved_affected_subject_makes_the_report_ambiguous(
    samples: dict[str, tuple[InterpretationStageContext, InterpretationOutput]],
) -> None:
    context, output = samples["BUG-000022"]
    assert output.ambiguity.is_ambiguous
    question = output.ambiguity.clarification_question or ""
    assert "Lieutenant Icehammer" in question and question.endswith("?")
    assert [e.ref for e in output.affected_subjects] == ["D1"]
    assert output.category == "quest_progression"
    assert context.resolution is not None
    assert [u.ref for u in output.unknowns if u.ref] == ["D1"]


def test_a_mention_over_the_search_budget_is_said_to_be_not_searched(
    samples: dict[str, tuple[InterpretationStageContext, InterpretationOutput]],
) -> None:
    context, output = samples["BUG-000025"]
    assert context.resolution is not None
    skipped = [d for d in context.resolution.unresolved if d.status == "not_searched"]
    assert [d.term for d in skipped] == ["Pink Elekk"]
    texts = {u.ref: u.description for u in output.unknowns}
    text = texts[skipped[0].alias]
    assert "'Pink Elekk'" in text and "not searched" in text and "search budget" in text
    assert "remain possible" not in text


@pytest.mark.parametrize(
    ("case_id", "category"),
    [
        ("BUG-000023", "ui_or_client"),
        ("BUG-000025", "quest_progression"),
        ("BUG-000026", "npc_behaviour"),
    ],
)
def test_category_keyword_rules(
    samples: dict[str, tuple[InterpretationStageContext, InterpretationOutput]],
    case_id: str,
    category: str,
) -> None:
    context, output = samples[case_id]
    assert output.category == category
    assert categorize(context.sources)[0] == category


def test_no_entity_report_lists_none(
    samples: dict[str, tuple[InterpretationStageContext, InterpretationOutput]],
) -> None:
    _, output = samples["BUG-000023"]
    assert output.affected_subjects == [] and output.context_entities == []
    assert not output.ambiguity.is_ambiguous


def test_disabled_resolution_and_hand_written_reports(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    report = {
        "case_id": "REQ-1",
        "title": "Feature request: please add a bigger bank",
        "body": "It would be nice to have more bank slots, I asked for it since yesterday.",
        "reported_at": "2026-03-01T10:00:00Z",
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    import_report(workspace, path)
    case = json.loads((workspace.root / "cases" / "REQ-1" / "case.json").read_text())
    output = interpret(interpretation_stage_context(case, None))
    assert not output.scope.in_scope and "request" in output.scope.reason
    assert output.affected_subjects == [] and output.context_entities == []
    since = [(t.quote, t.resolved_start, t.resolved_end) for t in output.time_references]
    assert since == [("since yesterday", date(2026, 2, 28), date(2026, 3, 1))]
    assert "2026-02-28..2026-03-01" in output.restatement
    assert "disabled" in " ".join(u.description for u in output.unknowns)


def test_interpretation_is_deterministic(
    samples: dict[str, tuple[InterpretationStageContext, InterpretationOutput]],
) -> None:
    for context, output in samples.values():
        copy = InterpretationStageContext.model_validate_json(context.model_dump_json())
        again = interpret_case(copy)
        assert again.model_dump_json() == output.model_dump_json()
