"""Keyword rules that give a report its interpretation category and scope (heuristic).

Each category has a list of phrase patterns (English, with the German equivalents of the common
ones). A pattern that occurs in the title counts twice, in any other readable source once; each
pattern counts at most once per source. The category with the highest score wins; ties go to the
earlier category in :data:`CATEGORY_RULES` (the more specific in-game kinds first). No hit at all
gives ``other``.

Scope: a report is out of scope only when it reads like a feature request or a suggestion
(:data:`OUT_OF_SCOPE`); every other admitted report is taken as a report about the game.

What it cannot do: it counts words, it does not understand them. A report that describes its
problem without any listed phrase gets ``other``; a report that mentions several problems gets
the one with the most listed phrases.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.interpretation.models import InterpretationCategory
from vba_assets.domain.prompting.stage_context import SourceView


def _patterns(*phrases: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(rf"(?<!\w){phrase}(?!\w)", re.IGNORECASE) for phrase in phrases)


#: Category -> cue patterns, in tie-break order.
CATEGORY_RULES: tuple[tuple[InterpretationCategory, tuple[re.Pattern[str], ...]], ...] = (
    (
        "missing_or_unreachable_npc",
        _patterns(
            r"can'?t find",
            r"cannot find",
            r"can'?t see",
            r"cannot see",
            r"can'?t target",
            r"nowhere",
            r"missing",
            r"(?:doesn'?t|does not|don'?t|do not|not) (?:spawn|spawning|appear|show up)",
            r"see nothing",
            r"no [\w' -]{1,30} in sight",
            r"kein(?:e|en)? einzige[rns]?",
            r"nicht auffindbar",
            r"nicht zu sehen",
            r"zu sehen",
            r"spawnen",
        ),
    ),
    (
        "quest_progression",
        _patterns(
            r"turn(?:ed)?[ -]in",
            r"turn it in",
            r"won'?t take my quest",
            r"(?:doesn'?t|does not|don'?t|do not|didn'?t|not) (?:count|counting|counted)",
            r"no counter",
            r"can'?t (?:complete|accept|finish)",
            r"quest (?:credit|objective|progress)",
            r"not in (?:his|her|the) list",
            r"question mark",
            r"abandon(?:ed)? the quest",
            r"quest (?:nicht|kann nicht)",
            r"abgeben",
        ),
    ),
    (
        "npc_behaviour",
        _patterns(
            r"evad(?:es|ed|ing|e)",
            r"reset(?:s|ted)?",
            r"gossip",
            r"vendor",
            r"trainer",
            r"aggro",
            r"pathing",
            r"walks? (?:on|away|through)",
            r"keeps walking",
        ),
    ),
    (
        "item_or_loot",
        _patterns(r"loot(?:ed)?", r"drops?", r"dropped", r"reward", r"item", r"inventory"),
    ),
    (
        "spell_or_ability",
        _patterns(
            r"spell",
            r"ability",
            r"talent",
            r"aura",
            r"buff",
            r"debuff",
            r"cooldown",
            r"stun",
            r"cast(?:ing)?",
            r"does nothing",
        ),
    ),
    (
        "world_object",
        _patterns(
            r"chest",
            r"door",
            r"node",
            r"game ?object",
            r"transport",
            r"boat",
            r"zeppelin",
            r"elevator",
            r"terrain",
            r"fell through",
        ),
    ),
    (
        "ui_or_client",
        _patterns(
            r"settings?",
            r"font(?: size)?",
            r"chat tabs?",
            r"interface",
            r"addons?",
            r"ui",
            r"display",
            r"sound",
            r"graphics",
            r"keybinds?",
            r"macros?",
            r"resets? to",
        ),
    ),
    (
        "chat_or_social",
        _patterns(
            r"channels?", r"whispers?", r"mail(?:box)?", r"guild", r"friends? list", r"party invite"
        ),
    ),
    (
        "performance_or_connectivity",
        _patterns(
            r"lag(?:gy|s)?",
            r"disconnect(?:s|ed)?",
            r"latency",
            r"can'?t log ?in",
            r"realm down",
            r"server restart",
            r"crash(?:es|ed)?",
            r"freez(?:e|es|ing)",
        ),
    ),
    (
        "account_or_billing",
        _patterns(
            r"account",
            r"banned",
            r"suspended",
            r"password",
            r"payment",
            r"refund",
            r"shop",
            r"character transfer",
        ),
    ),
)

#: Phrases that make a report a request rather than a report of something wrong.
OUT_OF_SCOPE = _patterns(
    r"feature request", r"suggestion", r"would be nice", r"please add", r"could you add",
    r"it would be cool",
)  # fmt: skip


def category_scores(sources: Sequence[SourceView]) -> dict[InterpretationCategory, int]:
    """Score of every category (title hits count twice)."""
    scores: dict[InterpretationCategory, int] = {name: 0 for name, _ in CATEGORY_RULES}
    for source in sources:
        if not source.readable or not source.text:
            continue
        weight = 2 if source.kind == "title" else 1
        for name, patterns in CATEGORY_RULES:
            scores[name] += weight * sum(1 for p in patterns if p.search(source.text))
    return scores


def categorize(sources: Sequence[SourceView]) -> tuple[InterpretationCategory, int]:
    """The winning category and its score (``("other", 0)`` when nothing matched)."""
    scores = category_scores(sources)
    best = max(scores.values())
    if best == 0:
        return "other", 0
    return next(name for name, _ in CATEGORY_RULES if scores[name] == best), best


def out_of_scope_phrase(sources: Sequence[SourceView]) -> str | None:
    """The first feature-request phrase of the readable sources, or None."""
    for source in sources:
        if source.readable and source.text:
            for pattern in OUT_OF_SCOPE:
                match = pattern.search(source.text)
                if match:
                    return match.group(0)
    return None
