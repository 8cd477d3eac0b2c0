"""Resolving a found date expression to the reporter's local days with dateparser (protocol v4).

Resolution is dateparser's (pinned in ``pyproject.toml``; this is the one module that imports it):
each recognized expression (:class:`.date_phrases.Found`) is reduced to a core phrase of its
language (``vor 3 Tagen``, ``la semaine dernière``, ``星期二``, :data:`.date_phrases.CORES`) that
:func:`dateparser.parse` resolves against ``RELATIVE_BASE`` = the reporter's local wall time, with
the language given (no detection) and fixed settings. The project's reading of the expression
(:data:`.date_phrases.SEMANTICS`) then turns that day into the range: ``last week`` is Monday to
Sunday of the calendar week before ``D``'s, ``last night`` is ``D-1..D``, ``tonight`` is ``D``
(``D-1..D`` when reported before 06:00 local time), ``since X`` runs from X's first day to ``D``.
The day dateparser returns must be the one the table's own arithmetic expects; if it is not (a
dateparser release that reads a phrase differently), the expression is left unresolved, never
guessed.

Pure and deterministic: no clock, no process time zone, one lock around dateparser's caches.
"""

import functools
import threading
from datetime import date, datetime, timedelta

import dateparser

from vba_assets.domain.interpretation.date_phrases import CORES, Found
from vba_assets.domain.interpretation.models import DateRange

#: dateparser's settings: relative phrases against the anchor, past readings, naive results.
_SETTINGS_BASE = {
    "PREFER_DATES_FROM": "past",
    "RETURN_AS_TIMEZONE_AWARE": False,
    "PARSERS": ["relative-time", "absolute-time"],
}
_LOCK = threading.Lock()


@functools.lru_cache(maxsize=4096)
def _dateparser_day(language: str, phrase: str, base: datetime) -> date | None:
    with _LOCK:
        parsed = dateparser.parse(
            phrase, languages=[language], settings={**_SETTINGS_BASE, "RELATIVE_BASE": base}
        )
    return parsed.date() if parsed is not None else None


def _core(found: Found) -> tuple[str, int] | None:
    """The dateparser phrase of ``found`` and the days before D the table expects it to give."""
    assert found.language is not None
    core = CORES[found.language]
    if found.key == "today":
        return core.today, 0
    if found.key == "yesterday":
        return core.yesterday, 1
    if found.key == "day_before":
        return core.day_before, 2
    if found.key == "ago":
        if found.n is None or not 0 < found.n <= 366:
            return None
        return core.ago.format(n=found.n), found.n
    if found.key in ("last_week", "week_day"):
        return core.last_week, 7
    if found.key == "weekday" and found.weekday is not None:
        return core.weekdays[found.weekday], -1  # checked against the weekday below
    return None


def resolve_found(found: Found, local: datetime) -> DateRange | None:
    """The local days ``found`` covers, anchored at ``local`` (the reporter's wall time), or None
    when dateparser does not give the day the table expects (see the module docstring)."""
    if found.iso is not None:
        return DateRange(found.iso, found.iso)
    core = _core(found)
    if core is None or found.language is None:
        return None
    phrase, days_before = core
    today = local.date()
    parsed = _dateparser_day(found.language, phrase, local.replace(tzinfo=None))
    if parsed is None:
        return None
    if found.key == "weekday":
        expected = today - timedelta(days=(today.weekday() - (found.weekday or 0)) % 7 or 7)
    elif found.key in ("last_week", "week_day"):
        expected = today - timedelta(days=7)
    else:
        expected = today - timedelta(days=days_before)
    if parsed != expected:
        return None
    first, last = parsed, parsed
    if found.key == "last_week":
        first = parsed - timedelta(days=parsed.weekday())
        last = first + timedelta(days=6)
    elif found.key == "week_day":
        first = last = parsed - timedelta(days=parsed.weekday() - (found.weekday or 0))
    if found.part == "night":
        last = today
    elif found.part == "tonight" and local.hour < 6:
        first = today - timedelta(days=1)
    if found.since:
        return DateRange(first, today)
    return DateRange(first, last)
