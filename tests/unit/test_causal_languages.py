"""Causal and diagnostic wording is refused in every reporter language (issue 29 item 6, v6).

Table-driven: per language one causal claim (refused under protocol v6, naming the words and the
language; not refused under v5, whose rule is English-only and replays unchanged) and one neutral
sentence of the same topic (accepted). The correction-round test runs the real correction loop
with a scripted model: its replies test plumbing (the loop names the offending words), not quality.
"""

import copy
from typing import Any

import pytest

from tests.unit.test_interpretation_contract import PROMPTS, RESOLVED, Scripted, valid
from tests.unit.test_stage_requests import PARAMS
from vba_assets.domain.interpretation.causal import (
    CAUSAL_PHRASES,
    CAUSAL_WORDS,
    blank_report_quotes,
    causal_words,
)
from vba_assets.domain.interpretation.models import InterpretationOutputV5
from vba_assets.domain.interpretation.rules import (
    causal_phrases,
    interpretation_validator,
    validate_interpretation,
)
from vba_assets.domain.llm.call import run_stage
from vba_assets.domain.llm.policy import DispatchBudget, InMemoryRecorder, StagePolicy
from vba_assets.domain.prompting.requests import build_interpretation_request
from vba_assets.domain.protocol import RULES, protocol
from vba_assets.errors import ErrorCode

V5, V6 = protocol(5), protocol(6)
MULTI = ErrorCode.INTERPRETATION_CAUSAL_WORDING_MULTILINGUAL

#: language -> (a causal claim, the causal words it holds, a neutral sentence)
TABLE: dict[str, tuple[str, str, str]] = {
    "de": (
        "Der NPC fehlt, weil die Datenbank falsch ist.",
        "weil",
        "Der NPC ist nicht da und gibt keine Quest.",
    ),
    "es": (
        "El NPC no aparece debido a un error de la base de datos.",
        "debido a",
        "El NPC no aparece en el campamento.",
    ),
    "fr": (
        "Le PNJ est absent à cause de la base de données.",
        "à cause de",
        "Le PNJ est absent du camp depuis hier soir.",
    ),
    "pt": (
        "O NPC não aparece por causa de um erro no banco.",
        "por causa de",
        "O NPC não aparece no acampamento.",
    ),
    "ru": (
        "НПЦ не появляется из-за ошибки в базе.",
        "из-за",
        "НПЦ не появляется в лагере.",
    ),
    "pl": (
        "NPC nie pojawia się, ponieważ baza danych jest zła.",
        "ponieważ",
        "NPC nie pojawia się w obozie.",
    ),
    "zh": (
        "这个NPC不见了，因为数据库有错误。",
        "因为",
        "这个NPC在营地里看不到。",
    ),
    "ko": (
        "데이터베이스 때문에 NPC가 없습니다.",
        "때문에",
        "캠프에 NPC가 없습니다.",
    ),
}


def _with_observation(statement: str) -> dict[str, Any]:
    data = valid()
    data["observations"][0]["statement"] = statement
    return data


def _codes(data: dict[str, Any], spec: Any) -> dict[ErrorCode, list[str]]:
    parsed = InterpretationOutputV5.model_validate(data)
    found: dict[ErrorCode, list[str]] = {}
    for finding in validate_interpretation(parsed, RESOLVED, spec):
        found.setdefault(finding.code, []).append(finding.message)
    return found


def test_the_table_covers_the_date_languages_and_polish_with_english_unchanged() -> None:
    assert set(CAUSAL_WORDS) == {"en", "de", "es", "fr", "pt", "ru", "pl", "zh", "ko"}
    assert CAUSAL_WORDS["en"] == CAUSAL_PHRASES
    assert RULES[MULTI].since == 6 and RULES[ErrorCode.INTERPRETATION_CAUSAL_WORDING].since == 1
    assert V6.multilingual_causal and not V5.multilingual_causal
    for language, phrases in CAUSAL_WORDS.items():  # every entry is found in its own language
        for phrase in phrases:
            assert [h.language for h in causal_words(f"x {phrase} y")] == [language], phrase


@pytest.mark.parametrize("language", list(TABLE))
def test_a_causal_claim_is_refused_in_its_language_and_a_neutral_one_accepted(
    language: str,
) -> None:
    claim, words, neutral = TABLE[language]
    assert [(h.words, h.language) for h in causal_words(claim)] == [(words, language)]
    assert causal_words(neutral) == []
    refused = _codes(_with_observation(claim), V6)
    assert list(refused) == [MULTI], refused
    (message,) = refused[MULTI]
    assert f"{words!r} ({language})" in message
    assert _codes(_with_observation(neutral), V6) == {}
    # protocol v5's rule is English-only: the same reply is judged as it always was
    assert _codes(_with_observation(claim), V5) == {}


def test_english_gets_the_same_verdict_under_v5_and_v6() -> None:
    sources = ["I think it is bugged because of the patch"]
    samples = [
        "BECAUSE nothing spawns",
        "The rent is due today; a becauseway",
        'The reporter writes "bugged because of the patch".',
        'The note says "because we know".',
        "Missing  spawns were seen",
        "It was caused by the patch and the root cause is unknown.",
    ]
    for text in samples:
        assert [h.words for h in causal_words(text, sources)] == causal_phrases(text, sources)
    refused = _codes(_with_observation("The creature is absent due to a missing spawn."), V6)
    assert list(refused) == [ErrorCode.INTERPRETATION_CAUSAL_WORDING]


def test_whole_words_in_alphabetic_scripts_anywhere_in_chinese() -> None:
    assert causal_words("Die Weilheimer Wache") == []  # no whole word "weil"
    assert causal_words("Porquerizas") == []
    assert causal_words("Это из-за патча") == [("из-за", "ru")]
    assert causal_words("ИЗ-ЗА патча") == [("ИЗ-ЗА", "ru")]  # case-insensitive Cyrillic
    assert causal_words("Из-заставы") == []
    assert causal_words("任务无法完成是因为NPC消失") == [("因为", "zh")]
    assert causal_words("DB때문에 NPC가 없다") == [("때문에", "ko")]
    assert causal_words("Le car est rouge; Bo dort.") == []  # fr "car", pl "bo": left out


def test_a_verbatim_quote_of_the_report_is_report_content_in_every_quote_style() -> None:
    """The decision: quoted report text is what the report says, not the interpretation's claim."""
    source = "Der NPC fehlt, weil die DB falsch ist. Он пропал из-за патча. 因为数据库错了"
    sources = [source]
    quoted = [
        '"Der NPC fehlt, weil die DB falsch ist."',
        "„Der NPC fehlt, weil die DB falsch ist.“",
        "«Он пропал из-за патча.»",
        "»Der NPC fehlt, weil die DB falsch ist.«",
        "「因为数据库错了」",
    ]
    for text in quoted:
        assert causal_words(f"The report says {text}", sources) == [], text
    # not verbatim (paraphrased, or the interpretation's own words in quote marks): counted
    assert causal_words("It says «пропал из-за ошибки»", sources) == [("из-за", "ru")]
    assert causal_words("Der NPC fehlt, weil die DB falsch ist.", sources) == [("weil", "de")]
    assert blank_report_quotes("a «b» c", ["b"]) == "a     c"


def test_a_correction_round_names_the_offending_words() -> None:
    bad = copy.deepcopy(valid())
    bad["restatement"] += " Der NPC fehlt, weil die Datenbank falsch ist."
    bad["sub_tasks"] = ["¿Falta el spawn porque la base de datos está mal?"]
    provider = Scripted(bad, valid())
    outcome = run_stage(
        build_interpretation_request(RESOLVED, PROMPTS, V6, PARAMS),
        provider,
        interpretation_validator(RESOLVED, V6),
        InMemoryRecorder(),
        StagePolicy(max_invalid_responses=3),
        DispatchBudget(max_dispatches=4),
        spec=V6,
    )
    assert len(provider.calls) == 2, "the causal reply was accepted"
    correction = provider.calls[1][-1].content
    assert f"{MULTI.value} at /restatement" in correction
    assert "'weil' (de)" in correction
    assert f"{MULTI.value} at /sub_tasks/0" in correction
    assert "'porque' (es)" in correction and "'Falta el spawn' (es)" in correction
    assert outcome.value.restatement == valid()["restatement"]
