"""The interpretation contract: what model call 3 must reply (ARCHITECTURE 7).

The interpretation is a resolver/classifier over the frozen case context: a standalone restatement,
a category from a fixed list, a scope decision, ambiguity and clarification, the entities the report
is about (affected) and those that are only context, grounded observations, resolved time
references, unknowns and the questions for the next phase.

Strict (``extra="forbid"``): there is no field for a cause, a hypothesis, a diagnosis or a fix, so a
reply that carries one is refused by the schema. Field descriptions reach the model through the
JSON schema. The rules that need the case context (grounding, retention of selected entities and
unresolved identities, causal wording, date checks) are in :mod:`.rules`, :mod:`.grounding` and
:mod:`.rules_v4`.

The deterministic relative-date resolver lives here too (:func:`resolve_relative_date`): it defines
what the ``resolved_start``/``resolved_end`` of a :class:`TimeReference` must be, anchored to the
frozen ``reported_at`` in the reporter's local offset, never the wall clock.
"""

import re
import typing
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from typing import Annotated, Literal, NamedTuple

from pydantic import Field

from vba_assets.domain.base import StrictModel
from vba_assets.domain.limits import (
    MAX_AFFECTED_SUBJECTS,
    MAX_CITATIONS,
    MAX_CLARIFICATION_CHARS,
    MAX_CONTEXT_ENTITIES,
    MAX_MENTIONS,
    MAX_OBSERVATIONS,
    MAX_RESTATEMENT_CHARS,
    MAX_SUB_TASKS,
    MAX_TIME_REFERENCES,
    MAX_UNKNOWNS,
    MAX_UNKNOWNS_V4,
)
from vba_assets.errors import ErrorCode, InputError

#: The fixed list of bug kinds a game-server report is classified into.
InterpretationCategory = Literal[
    "missing_or_unreachable_npc",
    "quest_progression",
    "npc_behaviour",
    "item_or_loot",
    "spell_or_ability",
    "world_object",
    "ui_or_client",
    "chat_or_social",
    "performance_or_connectivity",
    "account_or_billing",
    "other",
]
CATEGORIES: tuple[InterpretationCategory, ...] = typing.get_args(InterpretationCategory)

#: One line per category: what belongs in it. Shown to the model in the schema.
CATEGORY_DESCRIPTIONS: dict[InterpretationCategory, str] = {
    "missing_or_unreachable_npc": "a creature or NPC the player expects cannot be found, seen, "
    "reached or targeted",
    "quest_progression": "a quest cannot be accepted, advanced, completed or turned in, or its "
    "objectives do not count",
    "npc_behaviour": "an NPC is there but acts wrongly: gossip, vendor, trainer, combat, "
    "movement, evading or resetting",
    "item_or_loot": "an item, its use, a drop, loot or a reward is wrong or missing",
    "spell_or_ability": "a spell, ability, talent, aura or one of their effects behaves wrongly",
    "world_object": "a game object, door, chest, gathering node, transport or the terrain is "
    "wrong or missing",
    "ui_or_client": "the user interface, client settings, display, sound or addons",
    "chat_or_social": "chat, channels, mail, guild, group, friends or other social features",
    "performance_or_connectivity": "lag, disconnects, login or realm availability, server restarts",
    "account_or_billing": "account access, suspensions, character services, payments or the shop",
    "other": "an in-scope report that fits none of the categories above",
}

_CATEGORY_HELP = "; ".join(f"{name}: {text}" for name, text in CATEGORY_DESCRIPTIONS.items())

SOURCE_ALIAS_PATTERN = r"^S[0-9]+$"
ENTITY_ALIAS_PATTERN = r"^[ND][0-9]+$"
UNRESOLVED_ALIAS_PATTERN = r"^D[0-9]+$"
CITATION_ALIAS_PATTERN = r"^[SFND][0-9]+$"

CitationAlias = Annotated[str, Field(pattern=CITATION_ALIAS_PATTERN)]
SubTask = Annotated[str, Field(min_length=1, max_length=300)]


class ReportQuote(StrictModel):
    """An exact piece of a readable case source."""

    source: str = Field(
        pattern=SOURCE_ALIAS_PATTERN, description="A readable source alias, e.g. 'S2'."
    )
    quote: str = Field(
        min_length=1,
        max_length=500,
        description="Text copied character for character from that source (no ellipsis, no "
        "paraphrase).",
    )


class Scope(StrictModel):
    """Whether the report is something this pipeline analyses."""

    in_scope: bool = Field(
        description="True for a report of something wrong in the game world or the game service. "
        "False for feature requests, balance opinions, requests for a diagnosis or a fix without "
        "a reported problem, and anything that is not a report about the game or its service."
    )
    reason: str = Field(min_length=1, max_length=500, description="Why, in one or two sentences.")


class Ambiguity(StrictModel):
    """Whether the report can be understood without asking the reporter."""

    is_ambiguous: bool = Field(
        description="True when the report cannot be understood without asking the reporter "
        "(e.g. it is unclear which creature, quest or place is meant)."
    )
    clarification_question: str | None = Field(
        max_length=MAX_CLARIFICATION_CHARS,
        description="Required when is_ambiguous (a question to the reporter, ending with '?'); "
        "null otherwise.",
    )


class EntityReference(StrictModel):
    """An entity the report names, with the mentions that ground it."""

    ref: str | None = Field(
        pattern=ENTITY_ALIAS_PATTERN,
        description="An N alias (selected entity) or a D alias (unresolved identity) from the "
        "context; null when entity resolution is disabled or the name was not searched.",
    )
    mentions: list[ReportQuote] = Field(
        min_length=1,
        max_length=MAX_MENTIONS,
        description="Where the report names it. For an N or D alias, include at least one of "
        "that alias's mentions exactly (same source, same quote).",
    )


class Observation(StrictModel):
    """One thing the report or a lookup states, without interpretation of its cause."""

    statement: str = Field(
        min_length=1,
        max_length=1000,
        description="What the reporter says or a lookup shows; no cause, no hypothesis, no fix.",
    )
    citations: list[CitationAlias] = Field(
        min_length=1,
        max_length=MAX_CITATIONS,
        description="The aliases it rests on: S (source), F (lookup fact), N (selected entity), "
        "D (unresolved identity).",
    )


class TimeReference(StrictModel):
    """A time expression of the report, resolved to calendar dates of the reporter."""

    source: str = Field(pattern=SOURCE_ALIAS_PATTERN, description="A readable source alias.")
    quote: str = Field(
        min_length=1, max_length=200, description="The time expression, copied exactly."
    )
    resolved_start: date | None = Field(
        description="First local calendar day it covers (YYYY-MM-DD), counted from the "
        "reporter's local date of reported_at; null when it cannot be resolved."
    )
    resolved_end: date | None = Field(
        description="Last local calendar day it covers (YYYY-MM-DD); null with resolved_start."
    )
    anchor: Literal["reported_at"] = Field(
        description="Always 'reported_at': the frozen report time, never today's date."
    )


class Unknown(StrictModel):
    """Something the interpretation cannot settle from the context."""

    ref: str | None = Field(
        pattern=UNRESOLVED_ALIAS_PATTERN,
        description="The D alias this unknown is about, or null for another open point.",
    )
    description: str = Field(min_length=1, max_length=500, description="What is unknown.")


class InterpretationOutput(StrictModel):
    """Model call 3: the grounded interpretation of one case. No causes, no hypotheses, no fixes."""

    restatement: str = Field(
        min_length=1,
        max_length=MAX_RESTATEMENT_CHARS,
        description="The report restated so it stands alone: entities named, relative dates "
        "replaced by the resolved dates (YYYY-MM-DD), no cause or fix.",
    )
    category: InterpretationCategory = Field(description=f"The kind of report. {_CATEGORY_HELP}.")
    scope: Scope
    ambiguity: Ambiguity
    affected_subjects: list[EntityReference] = Field(
        max_length=MAX_AFFECTED_SUBJECTS,
        description="The entities the reported problem is about (e.g. the creature that cannot "
        "be found). A quest giver is context, not the missing creature.",
    )
    context_entities: list[EntityReference] = Field(
        max_length=MAX_CONTEXT_ENTITIES,
        description="Entities that only give context (quest givers, places, other NPCs). An "
        "alias appears in at most one of the two lists.",
    )
    observations: list[Observation] = Field(max_length=MAX_OBSERVATIONS)
    time_references: list[TimeReference] = Field(max_length=MAX_TIME_REFERENCES)
    unknowns: list[Unknown] = Field(
        max_length=MAX_UNKNOWNS_V4,
        description="Open points. Every D alias of the context must be listed here by its ref.",
    )
    sub_tasks: list[SubTask] = Field(
        max_length=MAX_SUB_TASKS,
        description="Questions for the next phase, each ending with '?'; never a diagnosis.",
    )


# --- relative dates (what a TimeReference's resolved_* must be) ------------------------------------


class DateRange(NamedTuple):
    """Inclusive range of the reporter's local calendar days."""

    start: date
    end: date


_EN_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
_DE_DAYS = "montag dienstag mittwoch donnerstag freitag samstag sonntag"
_EN_NUMBERS = "zero one two three four five six seven eight nine ten"
_DE_NUMBERS = "null einem zwei drei vier fünf sechs sieben acht neun zehn"
_WEEKDAYS = {
    **{name: day for words in (_EN_DAYS, _DE_DAYS) for day, name in enumerate(words.split(" "))},
    "sonnabend": 5,
}
_NUMBERS = {
    **{name: n for words in (_EN_NUMBERS, _DE_NUMBERS) for n, name in enumerate(words.split(" "))},
    "a": 1,
    "an": 1,
    "einen": 1,
}
_DAY = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_NUM = r"\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True))
#: The expressions :func:`resolve_relative_date` knows (English and a few German ones). ``D`` is
#: the reporter's local date of ``reported_at``. Documented in the prompts too.
SUPPORTED_EXPRESSIONS = (
    "today / heute / this morning / this afternoon: D",
    "tonight / this evening: D (D-1..D when reported before 06:00 local time)",
    "yesterday / gestern: D-1",
    "the day before yesterday / vorgestern: D-2",
    "last night / letzte Nacht: D-1..D",
    "N days ago / vor N Tagen: D-N",
    "last week / letzte Woche: Monday..Sunday of the calendar week before D's",
    "last <weekday> / letzten <Wochentag>: the latest such day before D",
    "since <any of the above or a weekday> / seit ...: from its first day to D",
    "an ISO date YYYY-MM-DD: that day",
)
_EXPRESSION = re.compile(
    r"(?<!\w)(?P<since>(?:since|seit)\s+)?(?:"
    r"(?P<d2>the\s+day\s+before\s+yesterday|vorgestern)"
    r"|(?P<d1>yesterday|gestern)"
    r"|(?P<night>last\s+night|letzte\s+nacht)"
    r"|(?P<tonight>tonight|this\s+evening)"
    r"|(?P<d0>today|this\s+morning|this\s+afternoon|heute)"
    rf"|(?P<ago>(?P<n>{_NUM})\s+days?\s+ago)"
    rf"|(?P<vor>vor\s+(?P<vn>{_NUM})\s+tag(?:en)?)"
    r"|(?P<week>last\s+week|letzte\s+woche|vergangene\s+woche)"
    rf"|(?:last|letzten|letzter|letztes|vergangenen)\s+(?P<lastday>{_DAY})"
    rf"|(?P<day>{_DAY})"
    r"|(?P<iso>\d{4}-\d{2}-\d{2})"
    r")(?!\w)",
    re.IGNORECASE,
)
_OFFSET = re.compile(r"^(?P<sign>[+-])(?P<h>\d{2}):?(?P<m>\d{2})$")


def weekday_name(day: date) -> str:
    """English weekday name, independent of the process locale."""
    return _EN_DAYS.split(" ")[day.weekday()].capitalize()


def local_report_time(reported_at: str, offset: str | None) -> datetime:
    """``reported_at`` (UTC, ISO-8601) as an aware datetime in the reporter's ``offset``."""
    match = _OFFSET.match(offset or "+00:00")
    try:
        instant = datetime.fromisoformat(re.sub(r"(\.\d{1,6})\d*", r"\1", reported_at))
        if match is None or instant.tzinfo is None:
            raise ValueError("needs a UTC timestamp and an offset like '+02:00'")
        sign = -1 if match["sign"] == "-" else 1
        zone = timezone(sign * timedelta(hours=int(match["h"]), minutes=int(match["m"])))
        return instant.astimezone(zone)
    except ValueError as exc:
        raise InputError(
            ErrorCode.REPORT_INVALID_FIELD,
            f"reported_at {reported_at!r} with offset {offset!r} is not a valid anchor: {exc}",
            field="reported_at",
        ) from None


def _expression_range(match: re.Match[str], local: datetime) -> DateRange | None:
    today = local.date()
    first: date
    last: date | None = None
    if match["d0"]:
        first = today
    elif match["d1"]:
        first = today - timedelta(days=1)
    elif match["d2"]:
        first = today - timedelta(days=2)
    elif match["night"]:
        first, last = today - timedelta(days=1), today
    elif match["tonight"]:
        first = today - timedelta(days=1) if local.hour < 6 else today
        last = today
    elif match["ago"] or match["vor"]:
        word = (match["n"] or match["vn"]).casefold()
        first = today - timedelta(days=int(word) if word.isdigit() else _NUMBERS[word])
    elif match["week"]:
        monday = today - timedelta(days=today.weekday())
        first, last = monday - timedelta(days=7), monday - timedelta(days=1)
    elif match["lastday"] or match["day"]:
        weekday = _WEEKDAYS[(match["lastday"] or match["day"]).casefold()]
        first = today - timedelta(days=(today.weekday() - weekday) % 7 or 7)
    else:
        try:
            first = date.fromisoformat(match["iso"])
        except ValueError:
            return None
    if match["since"]:
        return DateRange(first, today)
    return DateRange(first, last or first)


def _expressions(text: str) -> Iterator[re.Match[str]]:
    # A bare weekday ("Sunday") is a date only after "since"/"seit".
    return (m for m in _EXPRESSION.finditer(text) if not m["day"] or m["since"])


def relative_expressions(text: str) -> list[str]:
    """The relative date expressions in ``text`` (ISO dates are absolute and not listed)."""
    return [m.group(0) for m in _expressions(text) if not m["iso"]]


def resolve_relative_date(quote: str, reported_at: str, offset: str | None) -> DateRange | None:
    """The local calendar days a time expression of a report covers, or None.

    Anchored to the frozen ``reported_at`` in the reporter's ``offset`` (their local date ``D``),
    never the wall clock (see :data:`SUPPORTED_EXPRESSIONS`). None when the quote holds no known
    expression, or several that disagree (cite each one separately).

    Raises:
        InputError: ``REPORT_INVALID_FIELD`` for an anchor that is not a UTC timestamp and offset.
    """
    local = local_report_time(reported_at, offset)
    ranges = {_expression_range(match, local) for match in _expressions(quote)}
    return ranges.pop() if len(ranges) == 1 else None


# --- protocol v4: the complete interpretation contract ---------------------------------------------

#: What an out-of-scope report is instead of a report about this server's game world (v4).
OutOfScopeClass = Literal[
    "feature_request",
    "account_or_billing",
    "client_or_addon",
    "cheating_report",
    "not_game_world",
]
OUT_OF_SCOPE_CLASSES: tuple[OutOfScopeClass, ...] = typing.get_args(OutOfScopeClass)

#: One line per out-of-scope class. Shown to the model in the schema and the prompts.
OUT_OF_SCOPE_DESCRIPTIONS: dict[OutOfScopeClass, str] = {
    "feature_request": "a request for new content, a change, a custom feature or a balance "
    "opinion, not a report of something wrong",
    "account_or_billing": "account access, bans and suspensions, passwords, restoring items or "
    "characters, donations, payments or the shop: a matter for the staff, not the game world",
    "client_or_addon": "a crash, error or display problem of the player's own client, computer, "
    "graphics driver or addons",
    "cheating_report": "a report about another player cheating, hacking, botting or exploiting",
    "not_game_world": "anything else that is not about this server's game world: the website, "
    "forum or launcher, other games or servers, questions, spam",
}
_OUT_OF_SCOPE_HELP = "; ".join(
    f"{name}: {text}" for name, text in OUT_OF_SCOPE_DESCRIPTIONS.items()
)


class ScopeV4(Scope):
    """Protocol v4: an out-of-scope decision names its class, and has consequences."""

    in_scope: bool = Field(
        description="True for a report of something wrong in this server's game world or its "
        "service of it (creatures, quests, items, spells, objects, terrain, the realm). False for "
        "the out-of-scope classes of out_of_scope_class."
    )
    out_of_scope_class: OutOfScopeClass | None = Field(
        description="Required when in_scope is false, null when it is true. "
        f"{_OUT_OF_SCOPE_HELP}. An out-of-scope report has no affected_subjects (its entities "
        "go to context_entities) and no sub_tasks; an in-scope report has at least one sub_task."
    )


class InterpretationOutputV4(InterpretationOutput):
    """Model call 3 from protocol v4: the scope names its out-of-scope class."""

    scope: ScopeV4


class InterpretationOutputV5(InterpretationOutputV4):
    """Model call 3 from protocol v5: ``unknowns`` has room for every ``D`` alias (at most
    ``MAX_UNRESOLVED`` per context) and every unresolvable date (:mod:`vba_assets.domain.limits`)."""

    unknowns: list[Unknown] = Field(
        max_length=MAX_UNKNOWNS,
        description="Open points. Every D alias of the context must be listed here by its ref "
        "(names over the limit are listed in the context as not examined and need none).",
    )


def interpretation_output_model(
    complete: bool, bounded: bool = False
) -> type[InterpretationOutput]:
    """The output model of a protocol: :class:`InterpretationOutputV5` when its ``bounded_lists``
    flag is set (v5 on), :class:`InterpretationOutputV4` when ``complete_interpretation`` is
    (v4), else :class:`InterpretationOutput`."""
    if bounded:
        return InterpretationOutputV5
    return InterpretationOutputV4 if complete else InterpretationOutput
