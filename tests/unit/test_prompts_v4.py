"""Prompt version v4 (protocol 6): the assessment prompt states zone tie-breaks and ties inside an
exact-name capture, and its few-shot examples show each grounded selection a live model may make.

The examples are fixtures of quality in the narrow sense of ``test_prompts_v3``: they are shown to
a model as accepted answers, so ``test_the_current_prompts_examples_satisfy_the_current_protocol``
validates them; here we check that they show what v4 added. Nothing here calls a model.
"""

from vba_assets.domain.prompting.prompts import CURRENT_PROMPT_VERSION, load_prompt_set
from vba_assets.domain.resolution.batched import MAX_BATCHED_NAMES


def _assessment_outputs() -> dict[str, list[dict[str, object]]]:
    prompts = load_prompt_set("v4")
    return {
        example.path: list(example.data["output"]["assessments"])
        for example in prompts.examples_for("resolution_assessment")
    }


def test_v4_states_zone_and_exact_capture_tiebreaks() -> None:
    text = load_prompt_set("v4").instruction("resolution_assessment")
    assert '`"zone"`' in text and "`zone_row`" in text
    assert "zone markers" in text
    assert "exact-name capture" in text and "holds\n   several" in text


def test_v4_examples_show_a_quest_a_zone_and_an_exact_name_selection() -> None:
    outputs = _assessment_outputs()
    new = {path: items for path, items in outputs.items() if path[-7:-5] in ("-5", "-6", "-7")}
    assert len(new) == 3
    facts = {
        item["tiebreak"]["fact"]  # type: ignore[index]
        for items in new.values()
        for item in items
        if item.get("tiebreak")
    }
    assert facts == {"quest", "zone"}
    exact = [
        item
        for items in new.values()
        for item in items
        if item["status"] == "selected" and str(item["candidate_id"]).split("-")[1].startswith("X")
    ]
    assert len(exact) == 1  # the truncated search's exact-name capture row (Q1-X1)


def test_v5_states_the_level_tiebreak() -> None:
    """v5 changes only the assessment instructions: the 'level' fact of rule 4."""
    v4, v5 = load_prompt_set("v4"), load_prompt_set("v5")
    text = v5.instruction("resolution_assessment")
    assert '`"level"`' in text and "script copy" in text
    assert '`"level"`' not in v4.instruction("resolution_assessment")
    assert v5.instruction("resolution_plan") == v4.instruction("resolution_plan")


def test_v6_states_the_batched_exact_names() -> None:
    """v6 changes only the plan instructions: the unsearched names are looked up by exact name
    (protocol v6, batched exact names), so a full name spelled as the game spells it may go
    there and the searches go to names an exact lookup would miss."""
    v5, v6 = load_prompt_set("v5"), load_prompt_set("v6")
    plan = v6.instruction("resolution_plan")
    # the number the prompt states is the controller's bound
    assert f"looks up each of the first {MAX_BATCHED_NAMES} by its exact name" in plan
    assert "an exact lookup would miss" in plan
    assert "looks up each" not in v5.instruction("resolution_plan")
    assert v6.instruction("resolution_assessment") == v5.instruction("resolution_assessment")


def test_v7_is_current_and_states_the_written_identity_tiebreak() -> None:
    """v7 changes only the assessment instructions: a tie of same-name candidates may be broken
    by the selected identity's digits written as a number of their own (the ``link`` fact,
    :mod:`vba_assets.domain.resolution.written_ids`)."""
    assert CURRENT_PROMPT_VERSION == "v7"
    v6, v7 = load_prompt_set("v6"), load_prompt_set("v7")
    text = v7.instruction("resolution_assessment")
    assert '"ID of the NPC: 21140"' in text and "a number of their own" in text
    assert "a number of their own" not in v6.instruction("resolution_assessment")
    assert v7.instruction("resolution_plan") == v6.instruction("resolution_plan")
