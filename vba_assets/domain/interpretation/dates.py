"""Relative dates in the reporters' eight languages, resolved with dateparser (protocol v4).

Real reports are written in English, German, French, Spanish, Russian, Portuguese, Chinese and
Korean (the catalog's locales). This module finds their common relative date expressions in a text
and resolves each to the reporter's local calendar days, anchored to the frozen ``reported_at`` in
the reporter's offset (their local date ``D``), never the wall clock. Protocol v1-v3 keep the
English/German resolver of :mod:`.models` unchanged.

Three modules, each with one job; other code imports from this one:

* **Recognition is the project's**: :mod:`.date_phrases` is the table of the expressions that
  name one unambiguous day or range, per language; anything else is not resolved.
* **Finding** is this module's: :func:`find_dates` searches a text for the table's expressions
  and ISO dates, and :func:`resolve_quote` is the entry point for one quoted time reference.
* **Resolution is dateparser's**: :mod:`.date_resolution` turns one found expression into days,
  or leaves it unresolved when dateparser does not give the day the table expects.

A bare French ``hier`` is also German and Dutch for "here": it counts only in a text that reads as
French (:func:`guess_language`). Pure and deterministic: no clock, no process time zone (the
tests run it under several ``TZ`` values), one lock around dateparser's caches.
"""

import re
from datetime import date

from vba_assets.domain.interpretation.date_phrases import (
    COMPILED,
    CORES,
    KOREAN_DAYS,
    LANGUAGES,
    NUMBERS,
    ZH_WD_INDEX,
    Found,
    Language,
)
from vba_assets.domain.interpretation.date_resolution import resolve_found
from vba_assets.domain.interpretation.models import DateRange, local_report_time

#: What other modules import from here (the table and the resolver live in their own modules).
__all__ = ["CORES", "LANGUAGES", "find_dates", "relative_words", "resolve_found", "resolve_quote"]


# --- finding --------------------------------------------------------------------------------------


_ISO = re.compile(r"(?<![\w-])(?P<iso>\d{4}-\d{2}-\d{2})(?![\w-])")
_FR_WORDS = frozenset(
    {"le", "la", "les", "des", "du", "un", "une", "et", "je", "j'ai", "ne", "pas", "est", "que",
     "qui", "dans", "pour", "avec", "sur", "il", "elle", "ce", "cette", "au", "aux", "mais",
     "plus", "quand"}
)  # fmt: skip
_DE_WORDS = frozenset(
    {"der", "die", "das", "den", "dem", "des", "und", "ich", "nicht", "ist", "ein", "eine",
     "einen", "zu", "mit", "auf", "es", "wir", "sie", "aber", "auch", "bei", "nach", "noch",
     "kein", "keine", "wenn"}
)  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def guess_language(text: str) -> Language | None:
    """``fr`` or ``de`` when the text's function words say so clearly; else None.

    Only used to decide whether a bare ``hier`` is French "yesterday" (German/Dutch "here").
    """
    words = [w.casefold() for w in _WORD.findall(text)]
    french = sum(1 for w in words if w in _FR_WORDS)
    german = sum(1 for w in words if w in _DE_WORDS)
    if french > german:
        return "fr"
    if german > french:
        return "de"
    return None


def _number(language: Language, match: re.Match[str]) -> int | None:
    groups = match.groupdict()
    if groups.get("kn"):
        return KOREAN_DAYS[groups["kn"]]
    word = groups.get("n")
    if not word:
        return None
    if word.isdigit():
        return int(word)
    return NUMBERS[language].get(word.casefold())


def _weekday_of(language: Language, match: re.Match[str]) -> int | None:
    groups = match.groupdict()
    if language == "zh" and groups.get("wd"):
        return ZH_WD_INDEX[groups["wd"]]
    return next((i for i in range(7) if groups.get(f"wd{i}")), None)


def find_dates(text: str, language_hint: str | None = None) -> list[Found]:
    """The relative date expressions and ISO dates of ``text``, in text order, none overlapping.

    ``language_hint``: the text whose language decides homographs (``hier``); ``text`` itself by
    default. Where two expressions overlap, the longer one wins (``since yesterday`` over
    ``yesterday``; ``vorgestern`` over ``gestern``).
    """
    hits: list[Found] = []
    hint: str | None = None
    for language, form, pattern in COMPILED:
        for match in pattern.finditer(text):
            groups = match.groupdict()
            if form.homograph and not groups.get("since"):
                hint = hint or (guess_language(language_hint or text) or "none")
                if hint != language:
                    continue
            since = form.since or bool(groups.get("since")) or bool(groups.get("since2"))
            if form.since and not (groups.get("since") or groups.get("since2")):
                continue
            hits.append(
                Found(
                    quote=match.group(0).strip(),
                    start=match.start() + (len(match.group(0)) - len(match.group(0).lstrip())),
                    end=match.end() - (len(match.group(0)) - len(match.group(0).rstrip())),
                    language=language,
                    key=form.key,
                    part=form.part,
                    since=since,
                    n=_number(language, match) if form.key == "ago" else None,
                    weekday=_weekday_of(language, match)
                    if form.key in ("weekday", "week_day")
                    else None,
                )
            )
    for match in _ISO.finditer(text):
        try:
            day = date.fromisoformat(match["iso"])
        except ValueError:
            continue
        hits.append(Found(match["iso"], match.start(), match.end(), None, None, iso=day))
    hits.sort(key=lambda f: (f.start, -(f.end - f.start), LANGUAGES.index(f.language or "en")))
    chosen: list[Found] = []
    for found in hits:
        if chosen and found.start < chosen[-1].end:
            continue
        chosen.append(found)
    return chosen


def relative_words(text: str) -> list[str]:
    """The relative date expressions of ``text`` (ISO dates are absolute and not listed)."""
    return [f.quote for f in find_dates(text) if f.iso is None]


# --- the entry point: one quoted time reference ---------------------------------------------------


def resolve_quote(
    quote: str, reported_at: str, offset: str | None, context_text: str | None = None
) -> DateRange | None:
    """The local days a time expression covers (protocol v4), or None.

    Anchored to the frozen ``reported_at`` in the reporter's ``offset``, never the wall clock.
    None when the quote holds no expression of the table, or several that disagree (cite each
    one separately), or one that dateparser does not resolve as the table expects.
    ``context_text`` (the source the quote is from) decides homographs.

    Raises:
        InputError: ``REPORT_INVALID_FIELD`` for an anchor that is not a UTC timestamp and offset.
    """
    local = local_report_time(reported_at, offset)
    ranges = {resolve_found(found, local) for found in find_dates(quote, context_text)}
    return ranges.pop() if len(ranges) == 1 else None
