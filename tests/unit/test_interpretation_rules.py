"""The interpretation contract: one reply per rule that breaks it, a reply that passes, the dates."""

import copy
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import pytest

from vba_assets.domain.case.builder import build_case
from vba_assets.domain.case.report import admit
from vba_assets.domain.findings import Finding
from vba_assets.domain.interpretation import models as interpretation_models
from vba_assets.domain.interpretation.models import (
    CATEGORIES,
    CATEGORY_DESCRIPTIONS,
    DateRange,
    InterpretationOutput,
    relative_expressions,
    resolve_relative_date,
)
from vba_assets.domain.interpretation.rules import (
    CAUSAL_PHRASES,
    causal_phrases,
    interpretation_validator,
)
from vba_assets.domain.protocol import RULES, current_protocol
from vba_assets.domain.resolution.aliases import (
    FactAlias,
    ResolutionContext,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
)
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.domain.stage_context import (
    InterpretationStageContext,
    interpretation_stage_context,
)
from vba_assets.errors import ErrorCode, InputError
from vba_assets.intake import read_report
from vba_assets.samples import sample_report_path

#: The rules a new revision is judged by.
SPEC = current_protocol()

#: Every stage rule's code (each finding names the rule that failed).
RULE_CODES = set(RULES)


def _case_doc() -> dict[str, Any]:
    submitted = read_report(sample_report_path("BUG-000020"))
    return build_case(admit(submitted.document, submitted.files)).to_json()


CASE = _case_doc()
TEXT = {s["alias"]: s["text"] for s in CASE["sources"]}


def mention(source: str, quote: str) -> MentionCitation:
    start = TEXT[source].index(quote)
    return MentionCitation(source=source, quote=quote, start=start, end=start + len(quote))


def _resolution() -> ResolutionContext:
    pointer = "/entity_resolution/captures/" + "0" * 64
    return ResolutionContext(
        facts=[
            FactAlias(
                alias=f"F{n}",
                pointer=pointer,
                search_id=f"Q{n}",
                catalog="creature_name",
                term=term,
                truncated=False,
                rows=rows,
            )
            for n, (term, rows) in enumerate(
                [("Wild Wolpertinger", 1), ("Goldark Snipehunter", 1), ("Wolpertinger", 2)], 1
            )
        ],
        selected=[
            SelectedEntityAlias(
                alias="N1",
                search_id="Q2",
                entity_type="creature",
                identity=23486,
                name="Goldark Snipehunter",
                catalog="creature_name",
                capture_pointer=pointer,
                capture_row=0,
                assessment_pointer="/entity_resolution/assessment#/assessments/1",
                mentions=[
                    mention("S2", "Goldark Snipehunter"),
                    mention("S3", "Goldark Snipehunter"),
                ],
                role="quest_giver",
            ),
            SelectedEntityAlias(
                alias="N2",
                search_id="Q1",
                entity_type="creature",
                identity=23487,
                name="Wild Wolpertinger",
                catalog="creature_name",
                capture_pointer=pointer,
                capture_row=0,
                assessment_pointer="/entity_resolution/assessment#/assessments/0",
                mentions=[mention("S1", "Wild Wolpertinger"), mention("S2", "Wild Wolpertinger")],
                role="affected_subject",
            ),
        ],
        unresolved=[
            UnresolvedIdentityAlias(
                alias="D1",
                search_id="Q3",
                term="Wolpertinger",
                role="other_context",
                status="ambiguous",
                candidate_identities=[22943, 23487],
                mentions=[mention("S3", "Wolpertinger Net")],
                assessment_pointer="/entity_resolution/assessment#/assessments/2",
            )
        ],
    )


RESOLVED = interpretation_stage_context(CASE, _resolution())
UNRESOLVED = interpretation_stage_context(CASE, None)

VALID: dict[str, Any] = {
    "restatement": "On 2026-09-24 (the reporter's local date) the reporter took the quest \"Catch "
    'the Wild Wolpertinger!" from Goldark Snipehunter at the Brewfest camp in Dun Morogh and '
    "searched for about 40 minutes, drunk and later with Synthebrew Goggles, without seeing a "
    "single Wild Wolpertinger. Two guildmates on the same quest see none either.",
    "category": "missing_or_unreachable_npc",
    "scope": {
        "in_scope": True,
        "reason": "A creature of a quest cannot be found in the game.",
        "out_of_scope_class": None,
    },
    "ambiguity": {"is_ambiguous": False, "clarification_question": None},
    "affected_subjects": [
        {"ref": "N2", "mentions": [{"source": "S2", "quote": "Wild Wolpertinger"}]}
    ],
    "context_entities": [
        {"ref": "N1", "mentions": [{"source": "S2", "quote": "Goldark Snipehunter"}]}
    ],
    "observations": [
        {
            "statement": "The reporter took the quest from Goldark Snipehunter.",
            "citations": ["S2", "N1"],
        },
        {
            "statement": "The reporter sees no Wild Wolpertinger around the camp.",
            "citations": ["S2", "N2"],
        },
        {
            "statement": "The lookup for Wolpertinger returned two entries.",
            "citations": ["F3", "D1"],
        },
        {"statement": "A screenshot is attached but cannot be read.", "citations": ["S4"]},
    ],
    "time_references": [
        {
            "source": "S2",
            "quote": "tonight",
            "resolved_start": "2026-09-24",
            "resolved_end": "2026-09-24",
            "anchor": "reported_at",
        }
    ],
    "unknowns": [{"ref": "D1", "description": "Which entry the quest text's name refers to."}],
    "sub_tasks": ["Where are Wild Wolpertingers expected around the Brewfest camp?"],
}


def unresolved_valid() -> dict[str, Any]:
    data = copy.deepcopy(VALID)
    data["affected_subjects"][0]["ref"] = None
    data["context_entities"][0]["ref"] = None
    data["observations"] = [o for o in data["observations"] if o["citations"] in (["S4"],)]
    data["unknowns"] = []
    return data


def run(data: dict[str, Any], context: InterpretationStageContext = RESOLVED) -> Any:
    return interpretation_validator(context, SPEC)(data)


def issues_of(
    change: Callable[[dict[str, Any]], None], context: InterpretationStageContext = RESOLVED
) -> list[Finding]:
    data = copy.deepcopy(VALID) if context is RESOLVED else unresolved_valid()
    change(data)
    result = run(data, context)
    assert isinstance(result, list), "the broken reply was accepted"
    return result


def assert_issue(issues: list[Finding], path: str, *words: str) -> None:
    found = [i for i in issues if i.path == path]
    assert found, f"no issue at {path}: {[(i.path, i.message) for i in issues]}"
    assert all(i.code in RULE_CODES for i in issues), [i.code for i in issues]
    for word in words:
        assert any(word in i.message for i in found), (word, [i.message for i in found])


# --- passing replies ------------------------------------------------------------------------------


def test_a_grounded_reply_passes_with_and_without_resolution() -> None:
    assert isinstance(run(copy.deepcopy(VALID)), InterpretationOutput)
    assert isinstance(run(unresolved_valid(), UNRESOLVED), InterpretationOutput)


def test_the_schema_has_no_field_for_a_cause_and_a_fixed_category_list() -> None:
    data = copy.deepcopy(VALID) | {"root_cause": "missing spawn"}
    issues = run(data)
    assert [(i.code, i.path) for i in issues] == [(ErrorCode.LLM_OUTPUT_SCHEMA, "/root_cause")]
    assert run(copy.deepcopy(VALID) | {"category": "missing_spawn"})[0].path == "/category"
    assert set(CATEGORY_DESCRIPTIONS) == set(CATEGORIES)
    assert "hypotheses" not in InterpretationOutput.model_json_schema()["properties"]


# --- grounding and citations ----------------------------------------------------------------------


def test_a_quote_must_occur_verbatim() -> None:
    def change(d: dict[str, Any]) -> None:
        d["affected_subjects"][0]["mentions"].append({"source": "S2", "quote": "wild wolpertinger"})

    assert_issue(
        issues_of(change), "/affected_subjects/0/mentions/1/quote", "copy the text exactly"
    )


def test_a_quote_must_come_from_a_readable_existing_source() -> None:
    def change(d: dict[str, Any]) -> None:
        d["context_entities"][0]["mentions"].append({"source": "S4", "quote": "Goldark"})
        d["time_references"][0]["source"] = "S9"

    issues = issues_of(change)
    assert_issue(issues, "/context_entities/0/mentions/1/source", "S4 is not readable")
    assert_issue(issues, "/time_references/0/source", "S9 does not exist")


def test_every_citation_and_ref_resolves_to_an_existing_alias() -> None:
    def change(d: dict[str, Any]) -> None:
        d["observations"][2]["citations"] = ["F9", "S7"]
        d["unknowns"].append({"ref": "D4", "description": "x"})

    issues = issues_of(change)
    assert_issue(issues, "/observations/2/citations/0", "F9 does not exist")
    assert_issue(issues, "/observations/2/citations/1", "S7 is not a source")
    assert_issue(issues, "/unknowns/1/ref", "D4 does not exist")


def test_without_resolution_no_alias_exists() -> None:
    def change(d: dict[str, Any]) -> None:
        d["affected_subjects"][0]["ref"] = "N2"

    assert_issue(issues_of(change, UNRESOLVED), "/affected_subjects/0/ref", "disabled")


# --- retention ------------------------------------------------------------------------------------


def test_every_selected_entity_is_retained() -> None:
    def change(d: dict[str, Any]) -> None:
        d["context_entities"] = []

    assert_issue(issues_of(change), "/context_entities", "N1", "must be retained")


def test_a_retained_entity_cites_one_of_its_own_mentions() -> None:
    def change(d: dict[str, Any]) -> None:
        d["context_entities"][0]["mentions"] = [{"source": "S3", "quote": "Goldark"}]

    assert_issue(issues_of(change), "/context_entities/0/mentions", "S2 'Goldark Snipehunter'")


def test_an_entity_is_affected_only_when_a_cited_mention_is_its_own() -> None:
    def change(d: dict[str, Any]) -> None:
        d["affected_subjects"][0]["mentions"] = [{"source": "S3", "quote": "Stunned Wolpertingers"}]

    assert_issue(issues_of(change), "/affected_subjects/0/mentions", "no cited mention supports N2")


def test_a_mention_of_an_alias_must_reference_it() -> None:
    def change(d: dict[str, Any]) -> None:
        d["context_entities"].append(
            {"ref": None, "mentions": [{"source": "S3", "quote": "Wolpertinger Net"}]}
        )

    assert_issue(issues_of(change), "/context_entities/1/ref", "D1")


def test_every_unresolved_identity_is_an_unknown() -> None:
    def change(d: dict[str, Any]) -> None:
        d["unknowns"] = [{"ref": None, "description": "Where exactly the reporter searched."}]

    assert_issue(issues_of(change), "/unknowns", "D1", "unresolved identity")


# --- roles and ambiguity --------------------------------------------------------------------------


def test_an_alias_is_either_affected_or_context() -> None:
    def change(d: dict[str, Any]) -> None:
        d["context_entities"].append(copy.deepcopy(d["affected_subjects"][0]))

    assert_issue(
        issues_of(change), "/context_entities/1/ref", "already listed at /affected_subjects/0"
    )


def test_the_quest_giver_is_never_the_only_affected_subject() -> None:
    def change(d: dict[str, Any]) -> None:
        d["affected_subjects"], d["context_entities"] = (
            d["context_entities"],
            d["affected_subjects"],
        )

    assert_issue(issues_of(change), "/affected_subjects/0/ref", "quest giver", "N2")


def test_the_quest_giver_may_stay_next_to_the_affected_subject() -> None:
    data = copy.deepcopy(VALID)
    data["affected_subjects"] += data.pop("context_entities")
    data["context_entities"] = []
    assert isinstance(run(data), InterpretationOutput)


def test_an_ambiguous_report_asks_and_states_no_certain_subject() -> None:
    def change(d: dict[str, Any]) -> None:
        d["ambiguity"] = {"is_ambiguous": True, "clarification_question": None}

    issues = issues_of(change)
    assert_issue(issues, "/ambiguity/clarification_question", "needs a clarification question")
    assert_issue(issues, "/affected_subjects/0/ref", "ambiguous")

    def unresolved(d: dict[str, Any]) -> None:
        d["ambiguity"] = {"is_ambiguous": True, "clarification_question": "Which quest?"}

    assert_issue(issues_of(unresolved, UNRESOLVED), "/affected_subjects/0/ref", "ambiguous")

    data = copy.deepcopy(VALID)
    data["ambiguity"] = {
        "is_ambiguous": True,
        "clarification_question": "Which creature is it: 22943 or 23487?",
    }
    data["affected_subjects"] = [
        {"ref": "D1", "mentions": [{"source": "S3", "quote": "Wolpertinger Net"}]}
    ]
    data["context_entities"].append(
        {"ref": "N2", "mentions": [{"source": "S1", "quote": "Wild Wolpertinger"}]}
    )
    assert isinstance(run(data), InterpretationOutput)


def test_a_clear_report_has_no_clarification_question() -> None:
    def change(d: dict[str, Any]) -> None:
        d["ambiguity"]["clarification_question"] = "Which creature?"

    assert_issue(issues_of(change), "/ambiguity/clarification_question", "set it to null")


# --- wording --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "field"),
    [("/restatement", None), ("/observations/1/statement", 1), ("/sub_tasks/0", "task")],
)
def test_causal_wording_is_refused(path: str, field: Any) -> None:
    def change(d: dict[str, Any]) -> None:
        text = "The creature is absent, probably due to a missing spawn?"
        if field is None:
            d["restatement"] = text
        elif field == "task":
            d["sub_tasks"][0] = text
        else:
            d["observations"][field]["statement"] = text

    assert_issue(issues_of(change), path, "'due to'", "'missing spawn'")


def test_causal_phrases_match_whole_words_and_spare_quoted_report_words() -> None:
    sources = ["I think it is bugged because of the patch"]
    assert causal_phrases("BECAUSE nothing spawns", sources) == ["BECAUSE"]
    assert causal_phrases("The rent is due today; a becauseway", sources) == []
    assert causal_phrases('The reporter writes "bugged because of the patch".', sources) == []
    assert causal_phrases('The note says "because we know".', sources) == ["because"]
    assert causal_phrases("Missing  spawns were seen", sources) == ["Missing  spawns"]
    assert all(causal_phrases(phrase) for phrase in CAUSAL_PHRASES)


def test_sub_tasks_are_questions() -> None:
    def change(d: dict[str, Any]) -> None:
        d["sub_tasks"].append("Check the spawn table.")

    assert_issue(issues_of(change), "/sub_tasks/1", "end it with '?'")


def test_the_restatement_has_no_unresolved_relative_date() -> None:
    def change(d: dict[str, Any]) -> None:
        d["restatement"] = "Tonight the reporter searched for a Wild Wolpertinger."

    assert_issue(issues_of(change), "/restatement", "Tonight")
    assert relative_expressions("Since 2026-09-20, and last week, and on Sunday") == ["last week"]


# --- time references ------------------------------------------------------------------------------


def test_a_time_reference_must_equal_the_resolved_dates() -> None:
    def change(d: dict[str, Any]) -> None:
        d["time_references"][0]["resolved_start"] = "2026-09-23"

    assert_issue(
        issues_of(change), "/time_references/0/resolved_start", "must be 2026-09-24", "Thursday"
    )


def test_an_unknown_expression_has_no_dates_and_is_an_unknown() -> None:
    guess = {
        "source": "S2",
        "quote": "about 40 minutes",
        "resolved_start": "2026-09-24",
        "resolved_end": "2026-09-24",
        "anchor": "reported_at",
    }

    def change(d: dict[str, Any]) -> None:
        d["time_references"].append(guess)

    issues = issues_of(change)
    assert_issue(issues, "/time_references/1/resolved_start", "set resolved_start and resolved_end")
    assert_issue(issues, "/unknowns", "'about 40 minutes'")

    data = copy.deepcopy(VALID)
    data["time_references"].append(guess | {"resolved_start": None, "resolved_end": None})
    data["unknowns"].append({"ref": None, "description": 'When "about 40 minutes" ended.'})
    assert isinstance(run(data), InterpretationOutput)


# --- the relative-date resolver -------------------------------------------------------------------

PLUS_TEN = ("2026-06-20T18:15:00Z", "+10:00")  # local: Sunday 2026-06-21 04:15; UTC: 2026-06-20
PLUS_TWO = ("2026-09-25T06:03:55Z", "+02:00")  # local: Friday 2026-09-25 08:03
MINUS_FIVE = ("2026-03-01T03:00:00.512Z", "-05:00")  # local: Saturday 2026-02-28 22:00


@pytest.mark.parametrize(
    ("anchor", "quote", "start", "end"),
    [
        (PLUS_TEN, "today", "2026-06-21", "2026-06-21"),
        (PLUS_TEN, "yesterday", "2026-06-20", "2026-06-20"),
        (PLUS_TEN, "Tonight", "2026-06-20", "2026-06-21"),  # before 06:00: the night just past
        (PLUS_TEN, "last night", "2026-06-20", "2026-06-21"),
        (PLUS_TEN, "the day before yesterday", "2026-06-19", "2026-06-19"),
        (PLUS_TEN, "3 days ago", "2026-06-18", "2026-06-18"),
        (PLUS_TEN, "two days ago", "2026-06-19", "2026-06-19"),
        (PLUS_TEN, "Last week he died normally", "2026-06-08", "2026-06-14"),
        (PLUS_TEN, "last Sunday", "2026-06-14", "2026-06-14"),
        (PLUS_TEN, "since Monday", "2026-06-15", "2026-06-21"),
        (PLUS_TEN, "since yesterday", "2026-06-20", "2026-06-21"),
        (PLUS_TWO, "gestern Abend", "2026-09-24", "2026-09-24"),
        (PLUS_TWO, "heute Morgen", "2026-09-25", "2026-09-25"),
        (PLUS_TWO, "vorgestern", "2026-09-23", "2026-09-23"),
        (PLUS_TWO, "vor zwei Tagen", "2026-09-23", "2026-09-23"),
        (PLUS_TWO, "letzte Woche genauso", "2026-09-14", "2026-09-20"),
        (PLUS_TWO, "seit Montag", "2026-09-21", "2026-09-25"),
        (PLUS_TWO, "letzten Freitag", "2026-09-18", "2026-09-18"),
        (PLUS_TWO, "this evening", "2026-09-25", "2026-09-25"),
        (PLUS_TWO, "on 2026-09-01", "2026-09-01", "2026-09-01"),
        (MINUS_FIVE, "today", "2026-02-28", "2026-02-28"),
        (MINUS_FIVE, "yesterday", "2026-02-27", "2026-02-27"),
    ],
)
def test_relative_dates_resolve_against_the_reporters_local_day(
    anchor: tuple[str, str], quote: str, start: str, end: str
) -> None:
    expected = DateRange(date.fromisoformat(start), date.fromisoformat(end))
    assert resolve_relative_date(quote, *anchor) == expected


@pytest.mark.parametrize(
    "quote", ["a while ago", "last month", "yesterday or today", "Sunday", "on patch day"]
)
def test_unknown_or_conflicting_expressions_do_not_resolve(quote: str) -> None:
    assert resolve_relative_date(quote, *PLUS_TEN) is None


def test_a_bad_anchor_is_a_clear_error() -> None:
    with pytest.raises(InputError) as caught:
        resolve_relative_date("today", "2026-06-20T18:15:00", "+10:00")
    assert caught.value.code == ErrorCode.REPORT_INVALID_FIELD
    with pytest.raises(InputError):
        resolve_relative_date("today", "2026-06-20T18:15:00Z", "10 hours")


def _frozen_clock(day: datetime) -> tuple[type[datetime], type[date]]:
    class Clock(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> "Clock":
            return cls.fromtimestamp(day.timestamp(), tz)

        @classmethod
        def today(cls) -> "Clock":
            return cls.fromtimestamp(day.timestamp())

    class Calendar(date):
        @classmethod
        def today(cls) -> "Calendar":
            return cls(day.year, day.month, day.day)

    return Clock, Calendar


def test_the_same_case_gives_the_same_dates_on_any_day(monkeypatch: pytest.MonkeyPatch) -> None:
    results = []
    for day in (datetime(2026, 9, 24, 23, tzinfo=UTC), datetime(2031, 1, 2, 3, tzinfo=UTC)):
        clock, calendar = _frozen_clock(day)
        monkeypatch.setattr(interpretation_models, "datetime", clock)
        monkeypatch.setattr(interpretation_models, "date", calendar)
        assert datetime.now is not clock.now  # the test module keeps the real clock
        results.append(
            (
                resolve_relative_date("yesterday evening", *PLUS_TEN),
                resolve_relative_date("last week", *PLUS_TWO),
                run(copy.deepcopy(VALID)).time_references,
            )
        )
    assert results[0] == results[1]
    assert results[0][0] == DateRange(date(2026, 6, 20), date(2026, 6, 20))
