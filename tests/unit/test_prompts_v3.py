"""Prompt version v3 (protocol 6, issue 29): what a live model is told matches the v6 contracts.

The few-shot example replies here are fixtures of QUALITY in one narrow sense: they are shown to a
live model as accepted answers, so each must pass its stage's output model and validator under the
protocol its prompt version was written for (``examples_protocol``). Nothing here calls a model.
"""

import json
import re
from pathlib import Path
from typing import Any

import pytest

import vba_assets
from vba_assets.domain.prompting.layout import output_model
from vba_assets.domain.prompting.prompts import (
    CURRENT_PROMPT_VERSION,
    PROMPT_NAMES,
    PromptExample,
    load_prompt_set,
    read_lock,
)
from vba_assets.domain.prompting.requests import (
    build_assessment_request,
    build_interpretation_request,
    build_plan_request,
    example_stage,
)
from vba_assets.domain.protocol import CURRENT_PROTOCOL_VERSION, protocol
from vba_assets.domain.resolution.context import build_resolution_context
from vba_assets.domain.resolution.models import ResolutionAssessmentOutput
from vba_assets.domain.stage_context import (
    assessment_stage_context,
    interpretation_stage_context,
    plan_stage_context,
)

ROOT = Path(vba_assets.__file__).parent / "prompts"
INTERPRETATION = PROMPT_NAMES[2:]


def _examples() -> list[tuple[str, PromptExample]]:
    return [
        (version, example)
        for version in sorted(read_lock())
        for prompt in PROMPT_NAMES
        for example in load_prompt_set(version).examples_for(prompt)
    ]


EXAMPLES = _examples()


@pytest.mark.parametrize(
    ("version", "example"), EXAMPLES, ids=[f"{v}/{e.path}" for v, e in EXAMPLES]
)
def test_every_example_fits_the_schema_and_rules_of_its_protocol(
    version: str, example: PromptExample
) -> None:
    """Each locked version's examples, under the protocol they were written for: the output
    model that protocol sends (v6: the assessment schema with ``tiebreak``) and its validator."""
    spec = protocol(load_prompt_set(version).protocol_version)
    stage = example_stage(example, spec)
    output = example.data["output"]
    output_model(stage.context, spec).model_validate(output)  # raises when the schema refuses it
    result = stage.validate(output)
    assert not isinstance(result, list), result


def test_the_current_prompts_examples_satisfy_the_current_protocol() -> None:
    """What a new revision freezes (current prompts, current protocol) agrees: every example of
    the current prompt version passes the current protocol's output models and rules."""
    spec = protocol(CURRENT_PROTOCOL_VERSION)
    prompts = load_prompt_set(CURRENT_PROMPT_VERSION)
    assert prompts.protocol_version == CURRENT_PROTOCOL_VERSION == 6
    for prompt in PROMPT_NAMES:
        for example in prompts.examples_for(prompt):
            stage = example_stage(example, spec)
            output_model(stage.context, spec).model_validate(example.data["output"])
            result = stage.validate(example.data["output"])
            assert not isinstance(result, list), (example.path, result)


def _text(version: str, prompt: str) -> str:
    return load_prompt_set(version).instruction(prompt)


def test_v3_no_longer_says_every_quest_giver_is_context() -> None:
    """v2's rule contradicts ARCHITECTURE 15 ("Roles follow what is broken"); v3 keeps only the
    giver whose defect lies elsewhere as context and makes a misbehaving giver affected."""
    for prompt in ("resolution_plan", *INTERPRETATION):
        assert "A quest giver is context" in _text("v2", prompt), prompt
        v3 = _text("v3", prompt)
        assert "A quest giver is context" not in v3, prompt
        assert "whose defect lies elsewhere" in v3, prompt
        assert "that itself misbehaves" in v3, prompt
        for cue in ("no quest marker", "despawns", "escort it leads breaks"):
            assert cue in v3, (prompt, cue)


def test_v3_states_the_other_v6_contracts() -> None:
    assessment = _text("v3", "resolution_assessment")
    assert "`tiebreak`" in assessment and "`relation_row`" in assessment
    for fact in ('`"quest"`', '`"link"`', '`"data_column"`', '`"rank"`'):
        assert fact in assessment, fact
    assert "exact-name capture" in assessment  # the exactname branch's completing capture
    assert "one per creature" in _text("v3", "interpretation_resolved")
    for prompt in INTERPRETATION:
        text = _text("v3", prompt)
        # one refused phrase of each of the nine languages of domain/interpretation/causal.py
        for word in (
            "because",
            "weil",
            "porque",
            "parce que",
            "из-за",
            "ponieważ",
            "因为",
            "때문에",
        ):
            assert word in text, (prompt, word)
        assert "a quote copied exactly from" in text, prompt


def _headings(text: str) -> list[str]:
    return re.findall(r"^#+ .*$|^ *[0-9]+\. \*\*[^*]+\*\*", text, flags=re.MULTILINE)


def test_v3_is_v2_with_only_the_contract_wording_changed() -> None:
    """Same files, same examples byte for byte, same sections and rule numbering; only the
    quest-giver rule's title changed (the review diff is ``diff -r prompts/v2 prompts/v3``)."""
    v2_files = {p.relative_to(ROOT / "v2") for p in (ROOT / "v2").rglob("*") if p.is_file()}
    v3_files = {p.relative_to(ROOT / "v3") for p in (ROOT / "v3").rglob("*") if p.is_file()}
    assert v2_files == v3_files
    for path in v2_files:
        if path.parts[0] == "examples":
            assert (ROOT / "v3" / path).read_bytes() == (ROOT / "v2" / path).read_bytes(), path
    v2_meta = json.loads((ROOT / "v2" / "VERSION.json").read_text(encoding="utf-8"))
    v3_meta = json.loads((ROOT / "v3" / "VERSION.json").read_text(encoding="utf-8"))
    assert v3_meta["extends"] == v2_meta["extends"] and v3_meta["examples_protocol"] == 6
    for prompt in PROMPT_NAMES:
        before, after = _headings(_text("v2", prompt)), _headings(_text("v3", prompt))
        renamed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
        assert all("quest giver" in b and "defect lies elsewhere" in a for b, a in renamed), prompt
        assert len(renamed) == (1 if prompt in INTERPRETATION else 0), prompt


def test_v3_requests_keep_the_prompts_static_and_the_case_in_the_user_message() -> None:
    """Cache-first requests (protocol 4 "static_first"): the v3 system text holds no case data."""
    from tests.unit.test_stage_requests import (
        ASSESSMENT,
        CATALOGS,
        PARAMS,
        case_doc,
        index_for,
        plan_for,
        text_of,
    )

    prompts, spec = load_prompt_set("v3"), protocol(6)
    doc = case_doc()
    body_start = text_of(doc, "S2")[:40]
    plan = plan_for(doc)
    index = index_for(plan)
    assessment: dict[str, Any] = json.loads(json.dumps(ASSESSMENT))
    assessment["assessments"][1]["mention"] = plan.searches[1].mentions[0].model_dump()
    resolution = build_resolution_context(
        plan, index, ResolutionAssessmentOutput.model_validate(assessment)
    )
    requests = [
        build_plan_request(plan_stage_context(doc, CATALOGS, 4), prompts, spec, PARAMS),
        build_assessment_request(assessment_stage_context(doc, plan, index), prompts, spec, PARAMS),
        build_interpretation_request(
            interpretation_stage_context(doc, resolution), prompts, spec, PARAMS
        ),
        build_interpretation_request(
            interpretation_stage_context(doc, None), prompts, spec, PARAMS
        ),
    ]
    for request, prompt in zip(requests, PROMPT_NAMES, strict=True):
        assert request.protocol_version == 6
        assert request.system.startswith(prompts.instruction(prompt).rstrip("\n")), prompt
        # the case's id and its report text are per-case data: the user message holds them
        # ("Wolpertinger" itself is static here: the plan schema's term description names it)
        for per_case in ("BUG-000020", body_start):
            assert per_case not in request.system, (prompt, per_case)
            assert per_case in request.messages[0].content, (prompt, per_case)
