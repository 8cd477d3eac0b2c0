"""Relative dates in the reporters' eight languages (protocol v4, issue 13 item 2).

Every expression of the table is resolved with the pinned dateparser against one fixed report
time with a non-UTC offset: ``2026-06-18T22:30:00Z`` at ``+09:00`` is Friday 2026-06-19, 07:30 for
the reporter, while the UTC date is still Thursday, so an answer anchored to UTC (or to the wall
clock) would differ from every row. The same table is run again in subprocesses under other
process time zones and must give the same answers (determinism).
"""

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from vba_assets.domain.interpretation.dates import (
    CORES,
    LANGUAGES,
    find_dates,
    relative_words,
    resolve_quote,
)

REPORTED_AT, OFFSET = "2026-06-18T22:30:00Z", "+09:00"  # local: Friday 2026-06-19 07:30
D = "2026-06-19"
D1, D2, D3 = "2026-06-18", "2026-06-17", "2026-06-16"
WEEK = ("2026-06-08", "2026-06-14")  # Monday..Sunday of the week before D's
TUESDAY, FRIDAY, MONDAY = "2026-06-16", "2026-06-12", "2026-06-15"
NIGHT = (D1, D)
SINCE_YESTERDAY, SINCE_MONDAY = (D1, D), (MONDAY, D)

Row = tuple[str, str | tuple[str, str]]

#: language -> (expression exactly as a reporter writes it, expected day or first..last day)
TABLE: dict[str, list[Row]] = {
    "en": [
        ("today", D),
        ("yesterday", D1),
        ("the day before yesterday", D2),
        ("two days ago", D2),
        ("3 days ago", D3),
        ("last week", WEEK),
        ("last Tuesday", TUESDAY),
        ("last Friday", FRIDAY),
        ("this morning", D),
        ("yesterday evening", D1),
        ("last night", NIGHT),
        ("since yesterday", SINCE_YESTERDAY),
        ("since Monday", SINCE_MONDAY),
        ("since the morning", D),
    ],
    "de": [
        ("heute", D),
        ("gestern", D1),
        ("vorgestern", D2),
        ("vor zwei Tagen", D2),
        ("vor 3 Tagen", D3),
        ("letzte Woche", WEEK),
        ("letzten Dienstag", TUESDAY),
        ("heute Morgen", D),
        ("gestern Abend", D1),
        ("letzte Nacht", NIGHT),
        ("seit gestern", SINCE_YESTERDAY),
        ("seit Montag", SINCE_MONDAY),
        ("seit 3 Tagen", (D3, D)),
    ],
    "fr": [
        ("aujourd'hui", D),
        ("hier soir", D1),
        ("avant-hier", D2),
        ("il y a deux jours", D2),
        ("il y a 3 jours", D3),
        ("la semaine dernière", WEEK),
        ("mardi dernier", TUESDAY),
        ("ce matin", D),
        ("la nuit dernière", NIGHT),
        ("depuis hier", SINCE_YESTERDAY),
        ("depuis lundi", SINCE_MONDAY),
        ("depuis 3 jours", (D3, D)),
    ],
    "es": [
        ("hoy", D),
        ("ayer", D1),
        ("anteayer", D2),
        ("hace dos días", D2),
        ("hace 3 días", D3),
        ("la semana pasada", WEEK),
        ("el martes pasado", TUESDAY),
        ("esta mañana", D),
        ("ayer por la noche", D1),
        ("anoche", NIGHT),
        ("desde ayer", SINCE_YESTERDAY),
        ("desde el lunes", SINCE_MONDAY),
    ],
    "ru": [
        ("сегодня", D),
        ("вчера", D1),
        ("позавчера", D2),
        ("два дня назад", D2),
        ("3 дня назад", D3),
        ("на прошлой неделе", WEEK),
        ("в прошлый вторник", TUESDAY),
        ("в прошлую пятницу", FRIDAY),
        ("сегодня утром", D),
        ("вчера вечером", D1),
        ("прошлой ночью", NIGHT),
        ("со вчерашнего дня", SINCE_YESTERDAY),
        ("с понедельника", SINCE_MONDAY),
    ],
    "pt": [
        ("hoje", D),
        ("ontem", D1),
        ("anteontem", D2),
        ("há dois dias", D2),
        ("3 dias atrás", D3),
        ("na semana passada", WEEK),
        ("terça-feira passada", TUESDAY),
        ("hoje de manhã", D),
        ("ontem à noite", D1),
        ("desde ontem", SINCE_YESTERDAY),
        ("desde segunda-feira", SINCE_MONDAY),
    ],
    "zh": [
        ("今天", D),
        ("昨天", D1),
        ("前天", D2),
        ("两天前", D2),
        ("3天前", D3),
        ("上周", WEEK),
        ("上周二", "2026-06-09"),  # Tuesday of last week, not the latest Tuesday
        ("今天早上", D),
        ("昨晚", NIGHT),
        ("从昨天开始", SINCE_YESTERDAY),
        ("从周一开始", SINCE_MONDAY),
    ],
    "ko": [
        ("오늘", D),
        ("어제", D1),
        ("그저께", D2),
        ("이틀 전", D2),
        ("3일 전", D3),
        ("지난주", WEEK),
        ("지난 화요일", TUESDAY),
        ("지난주 화요일", "2026-06-09"),  # Tuesday of last week
        ("오늘 아침", D),
        ("어젯밤", NIGHT),
        ("어제부터", SINCE_YESTERDAY),
        ("월요일부터", SINCE_MONDAY),
    ],
}

CASES = [
    (language, quote, expected) for language, rows in TABLE.items() for quote, expected in rows
]


def _range(expected: str | tuple[str, str]) -> tuple[date, date]:
    first, last = (expected, expected) if isinstance(expected, str) else expected
    return date.fromisoformat(first), date.fromisoformat(last)


def test_the_table_covers_eight_languages_with_at_least_eight_expressions_each() -> None:
    assert set(TABLE) == set(LANGUAGES) == set(CORES)
    assert all(len(rows) >= 8 for rows in TABLE.values())


@pytest.mark.parametrize(("language", "quote", "expected"), CASES)
def test_each_expression_resolves_against_the_frozen_report_time_and_offset(
    language: str, quote: str, expected: str | tuple[str, str]
) -> None:
    (found,) = find_dates(quote)
    assert (found.quote, found.language) == (quote, language)
    resolved = resolve_quote(quote, REPORTED_AT, OFFSET)
    assert resolved is not None and (resolved.start, resolved.end) == _range(expected)


@pytest.mark.parametrize(("language", "quote", "expected"), CASES)
def test_each_expression_is_found_inside_a_sentence(
    language: str, quote: str, expected: str | tuple[str, str]
) -> None:
    text = f"Report: {quote}, the creature was gone."
    assert relative_words(text) == [quote]


@pytest.mark.parametrize(
    "quote",
    [
        "Tuesday",  # which Tuesday?
        "last month",
        "a while ago",
        "since the last restart",
        "seit dem letzten Neustart",
        "depuis le dernier redémarrage",
        "on patch day",
        "hier",  # German/Dutch "here" unless the text reads as French
    ],
)
def test_an_expression_outside_the_table_is_never_resolved(quote: str) -> None:
    assert resolve_quote(quote, REPORTED_AT, OFFSET) is None


def test_a_bare_hier_is_yesterday_only_in_a_french_text() -> None:
    french = "Je l'ai cherché hier dans la forêt, il n'est pas là."
    german = "Ich habe hier im Wald gesucht, er ist nicht da."
    assert relative_words(french) == ["hier"]
    assert relative_words(german) == []
    resolved = resolve_quote("hier", REPORTED_AT, OFFSET, context_text=french)
    assert resolved is not None and resolved.start == date.fromisoformat(D1)


def test_tonight_reported_before_six_covers_the_night_before() -> None:
    early = resolve_quote("tonight", "2026-06-18T20:30:00Z", "+09:00")  # 05:30 local
    late = resolve_quote("tonight", REPORTED_AT, OFFSET)
    assert early is not None and (early.start, early.end) == _range((D1, D))
    assert late is not None and (late.start, late.end) == _range(D)


def test_two_expressions_that_disagree_in_one_quote_are_not_resolved() -> None:
    assert resolve_quote("yesterday and last week", REPORTED_AT, OFFSET) is None
    assert resolve_quote("yesterday, ayer", REPORTED_AT, OFFSET) is not None  # they agree


_SUBPROCESS = """
import json, sys
from vba_assets.domain.interpretation.dates import resolve_quote
rows = json.loads(sys.stdin.read())
out = []
for quote in rows:
    r = resolve_quote(quote, "2026-06-18T22:30:00Z", "+09:00")
    out.append(None if r is None else [r.start.isoformat(), r.end.isoformat()])
print(json.dumps(out))
"""


@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "America/Adak", "UTC"])
def test_the_table_gives_the_same_answers_in_any_process_time_zone(zone: str) -> None:
    quotes = [quote for _, quote, _ in CASES]
    env = {**os.environ, "TZ": zone}
    done = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS],
        input=json.dumps(quotes),
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
    )
    answers = json.loads(done.stdout)
    expected = [[s.isoformat(), e.isoformat()] for s, e in (_range(x) for _, _, x in CASES)]
    assert answers == expected
