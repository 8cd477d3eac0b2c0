"""One entity per creature (issue 29 item 2, protocol v6 ``merged_entities``): merging the N aliases
of one entry, what the interpretation rules and the evaluation read from a merged alias, the
sentence splitter that ignores URLs and markup, and a heuristic that never writes wording the v6
causal rule refuses. The end-to-end test (job and CLI, same bytes) is
``tests/dagster/test_merged_entities.py``."""

import copy
import json
from typing import Any

import pytest

from tests.unit.test_causal_languages import TABLE
from tests.unit.test_interpretation_rules import CASE, VALID, _resolution, mention
from vba_assets.domain.case.builder import build_case
from vba_assets.domain.case.report import admit_report
from vba_assets.domain.interpretation.models import InterpretationOutputV5
from vba_assets.domain.interpretation.rules import validate_interpretation
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.aliases import ResolutionContext, SelectedEntityAlias
from vba_assets.domain.resolution.merging import merge_selected
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.domain.stage_context import interpretation_stage_context
from vba_assets.errors import ErrorCode
from vba_assets.evaluation.dataset import EvalCase
from vba_assets.evaluation.metrics import score_case
from vba_assets.evaluation.observations import CaseObservation, ObservedSearch
from vba_assets.evaluation.observing import roles_of_merged
from vba_assets.heuristic.interpretation import interpret_case
from vba_assets.heuristic.interpretation_parts import _sentences, sentences_outside_urls

V5, V6 = protocol(5), protocol(6)
POINTER = "/entity_resolution/captures/" + "0" * 64


def alias(
    number: int, search: str, identity: int, name: str, role: str, *spans: tuple[str, int]
) -> SelectedEntityAlias:
    return SelectedEntityAlias.model_validate(
        {
            "alias": f"N{number}",
            "search_id": search,
            "entity_type": "creature",
            "identity": identity,
            "name": name,
            "catalog": "creature_name",
            "capture_pointer": POINTER,
            "capture_row": 0,
            "mentions": [
                {"source": "S2", "quote": q, "start": s, "end": s + len(q)} for q, s in spans
            ],
            "assessment_pointer": f"/entity_resolution/assessment#/assessments/{search[1:]}",
            "role": role,
        }
    )


# --- merging --------------------------------------------------------------------------------------


def test_the_aliases_of_one_entry_become_one_with_every_mention_and_the_strongest_role() -> None:
    german = alias(1, "Q1", 3057, "Cairne Bluthuf", "quest_giver", ("Cairne Bluthuf", 40))
    other = alias(2, "Q2", 3432, "Mankrik", "other_context", ("Mankrik", 70))
    english = alias(3, "Q3", 3057, "Cairne Bloodhoof", "affected_subject", ("Cairne Bloodhoof", 0))
    linked = alias(4, "Q4", 3057, "Cairne Bluthuf", "other_context", ("Cairne Bluthuf", 40))
    kinds = {"Q1": "localized_name", "Q2": "name", "Q3": "name", "Q4": "localized_name"}
    first, second = merge_selected([german, other, english, linked], kinds)
    # numbered by each entry's first selection; the primary-name selection represents it
    assert (first.alias, first.search_id, first.name) == ("N1", "Q3", "Cairne Bloodhoof")
    assert first.assessment_pointer == english.assessment_pointer
    assert first.merged_search_ids == ["Q1", "Q4"]
    assert [(m.quote, m.start) for m in first.mentions] == [
        ("Cairne Bloodhoof", 0),
        ("Cairne Bluthuf", 40),  # once, although two searches cite it
    ]
    assert first.role == "affected_subject"
    assert second.model_dump() == {**other.model_dump(), "alias": "N2"}
    # unmerged aliases keep the v1-v5 bytes: no merged_search_ids key in the JSON
    assert "merged_search_ids" not in json.loads(second.model_dump_json())
    assert "merged_search_ids" not in json.loads(other.model_dump_json())


def test_another_entity_type_or_identity_is_another_entity() -> None:
    creature = alias(1, "Q1", 3057, "Cairne Bloodhoof", "affected_subject", ("Cairne", 0))
    item = creature.model_copy(update={"alias": "N2", "search_id": "Q2", "entity_type": "item"})
    assert [a.alias for a in merge_selected([creature, item], {})] == ["N1", "N2"]


# --- the interpretation rules read a merged alias -----------------------------------------------


def _merged_context() -> Any:
    resolution = _resolution()
    wild = resolution.selected[1]  # N2 Wild Wolpertinger, mentions in S1 and S2
    net = mention("S3", "Wolpertinger Net")  # stands in for a second name of the same entry
    merged = wild.model_copy(
        update={"mentions": [*wild.mentions, net], "merged_search_ids": ["Q3"]}
    )
    resolution = resolution.model_copy(
        update={"selected": [resolution.selected[0], merged], "unresolved": []}
    )
    return interpretation_stage_context(CASE, resolution)


def _findings(data: dict[str, Any]) -> list[tuple[ErrorCode, str]]:
    output = InterpretationOutputV5.model_validate(data)
    return [(f.code, f.path) for f in validate_interpretation(output, _merged_context(), V6)]


def _valid_merged() -> dict[str, Any]:
    data = copy.deepcopy(VALID)
    data["unknowns"] = []
    data["observations"] = [o for o in data["observations"] if "D1" not in o["citations"]]
    return data


def test_a_merged_alias_is_supported_by_any_of_its_mentions_and_must_be_retained() -> None:
    assert _findings(_valid_merged()) == []
    by_other_name = _valid_merged()
    by_other_name["affected_subjects"][0]["mentions"] = [
        {"source": "S3", "quote": "Wolpertinger Net"}
    ]
    assert _findings(by_other_name) == []
    dropped = _valid_merged()
    dropped["affected_subjects"] = []
    assert (ErrorCode.INTERPRETATION_SELECTION_NOT_RETAINED, "/affected_subjects") in _findings(
        dropped
    )


# --- the evaluation -------------------------------------------------------------------------------


def test_each_gold_mention_is_scored_by_its_own_search_and_the_merged_role() -> None:
    english = alias(1, "Q2", 3057, "Cairne Bloodhoof", "affected_subject", ("Cairne Bloodhoof", 0))
    merged = english.model_copy(update={"merged_search_ids": ["Q1"]})
    context = ResolutionContext(facts=[], selected=[merged], unresolved=[])
    roles = roles_of_merged(context)
    assert roles == {"Q2": "affected_subject", "Q1": "affected_subject"}
    assert roles_of_merged(context.model_copy(update={"selected": [english]})) == {}
    observation = CaseObservation(
        "C1",
        searches=(
            ObservedSearch("Q1", "Cairne Bluthuf", roles["Q1"], (3057,), False, "selected", 3057),
            ObservedSearch("Q2", "Cairne Bloodhoof", roles["Q2"], (3057,), False, "selected", 3057),
        ),
    )
    case = EvalCase.model_validate(
        {
            "id": "C1",
            "title": "Cairne Bloodhoof",
            "body": "Cairne Bluthuf",
            "mentions": [
                {"surface": s, "role": "affected_subject", "gold_entry": 3057}
                for s in ("Cairne Bloodhoof", "Cairne Bluthuf")
            ],
        }
    )
    result = score_case(case, observation)
    assert [(m.outcome, m.covered_by, m.predicted_role) for m in result.mentions] == [
        ("correct", "Q2", "affected_subject"),
        ("correct", "Q1", "affected_subject"),
    ]


# --- sentences ------------------------------------------------------------------------------------


def _split(text: str) -> list[str]:
    return [text[start:end] for start, end in sentences_outside_urls(text)]


def test_a_sentence_is_not_split_inside_a_url_or_markup() -> None:
    text = (
        "Mankrik (https://www.wowhead.com/npc=3432?lang=de#comments) gives nothing. "
        "See [url=https://db.example.org/?npc=3432]Mankrik[/url] too! "
        "Also [Mankrik](http://x.org/a.b?c=d.). Client 3.3.5a (12340) on wowhead.com?\n"
        "<a href='https://x.org/?q=1'>Mankrik</a> is gone?! Last line"
    )
    assert _split(text) == [
        "Mankrik (https://www.wowhead.com/npc=3432?lang=de#comments) gives nothing.",
        "See [url=https://db.example.org/?npc=3432]Mankrik[/url] too!",
        "Also [Mankrik](http://x.org/a.b?c=d.).",
        "Client 3.3.5a (12340) on wowhead.com?",
        "<a href='https://x.org/?q=1'>Mankrik</a> is gone?!",
        "Last line",
    ]
    ended = "It is at https://x.org/npc=1?a=b."
    assert _split(ended) == [ended]  # the run closing a URL ends the sentence
    assert _split("https://x.org/?a. Next one.") == ["https://x.org/?a.", "Next one."]
    # protocols v1-v5 keep their splitter (their heuristic replies are unchanged)
    assert "Mankrik (https://www." in [text[s:e] for s, e in _sentences(text)]


# --- the heuristic writes no wording the v6 rule refuses ------------------------------------------


def _report(case_id: str, title: str, body: str) -> dict[str, Any]:
    document = {
        "case_id": case_id,
        "title": title,
        "body": body,
        "reported_at": "2026-11-30T18:00:00+00:00",
    }
    return build_case(admit_report(json.dumps(document, ensure_ascii=False).encode(), {})).to_json()


@pytest.mark.parametrize("language", list(TABLE))
def test_the_heuristic_quotes_causal_report_sentences_and_the_v6_rule_accepts_them(
    language: str,
) -> None:
    claim, _words, neutral = TABLE[language]
    body = f'{claim} {neutral} Er sagte "weil" und „{claim}“ – nicht bugged because "x".'
    case = _report(f"CAUSAL-{language}", claim, body)
    context = interpretation_stage_context(case, None).model_copy(update={"protocol_version": 6})
    output = interpret_case(context)
    findings = validate_interpretation(output, context, V6)
    assert findings == [], [(f.code, f.message) for f in findings]
    statements = [o.statement for o in output.observations]
    assert any(claim in s for s in statements) or claim in output.restatement  # quoted, kept


def test_a_mention_of_a_merged_alias_cites_it_in_the_heuristic_reply() -> None:
    context = _merged_context().model_copy(update={"protocol_version": 6})
    output = interpret_case(context)
    assert validate_interpretation(output, context, V6) == []
    (subject,) = [e for e in output.affected_subjects if e.ref == "N2"]
    assert {q.quote for q in subject.mentions} == {"Wild Wolpertinger", "Wolpertinger Net"}
    lookup_refs = {
        tuple(o.citations) for o in output.observations if o.statement.startswith("Lookup F3")
    }
    assert lookup_refs == {("F3", "N2")}  # the merged search's fact cites the one alias


def test_mention_citations_are_exact_spans() -> None:
    """Guard for the fixtures above: the merged mentions are real spans of the case."""
    for m in _merged_context().resolution.selected[1].mentions:
        assert isinstance(m, MentionCitation) and m.end - m.start == len(m.quote)


def test_the_interpretation_request_names_every_search_of_a_merged_alias() -> None:
    from vba_assets.domain.prompting.pieces import _selected_line

    single = alias(1, "Q2", 3057, "Cairne Bloodhoof", "quest_giver", ("Cairne Bloodhoof", 0))
    assert "(search Q2)" in _selected_line(single)  # v1-v5 and unmerged: the line as it was
    merged = single.model_copy(update={"merged_search_ids": ["Q1"]})
    assert "(searches Q2, Q1, one entry)" in _selected_line(merged)


def test_a_sentence_with_both_english_quote_styles_is_still_quoted_under_v6() -> None:
    sentence = 'He says "weil" und “because” the NPC is not there.'
    case = _report("QUOTES-1", "NPC missing", f"{sentence} Nothing spawns.")
    context = interpretation_stage_context(case, None)
    v6 = interpret_case(context.model_copy(update={"protocol_version": 6}))
    v5 = interpret_case(context.model_copy(update={"protocol_version": 5}))
    assert f"body S2 says: «{sentence}»" in [o.statement for o in v6.observations]
    assert not any(sentence in o.statement for o in v5.observations)  # v5: left out, as before
    assert validate_interpretation(v6, context.model_copy(update={"protocol_version": 6}), V6) == []
