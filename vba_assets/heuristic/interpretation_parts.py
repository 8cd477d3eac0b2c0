"""What both versions of the heuristic interpretation read from the frozen context (pure logic):
the entity references with their quotes, the unknowns of unresolved names, the reporter's
sentences quoted as observations, one observation per lookup fact and selection, and the
questions for the next phase (see :mod:`.interpretation` for the rules they implement).
"""

import re
from collections.abc import Callable, Sequence

from vba_assets.domain.case.text import FORMAT_CONTROL_CODEPOINTS
from vba_assets.domain.interpretation.models import (
    EntityReference,
    Observation,
    ReportQuote,
    TimeReference,
    Unknown,
)
from vba_assets.domain.interpretation.rules import causal_check
from vba_assets.domain.protocol import ProtocolSpec, protocol
from vba_assets.domain.resolution.aliases import (
    ResolutionContext,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
)
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.domain.stage_context import InterpretationStageContext
from vba_assets.heuristic.markup import read_markup

MAX_SOURCE_OBSERVATIONS = 8
MAX_SENTENCE_CHARS = 300
MAX_TIME_REFERENCES = 16
MAX_SUB_TASKS = 12
_SENTENCE = re.compile(r"[^\n.!?]+(?:[.!?]+|$)", re.MULTILINE)
#: Protocol v6: where a sentence may end. A URL (up to the next blank, so the link of a markdown,
#: BBCode or HTML link with it) is one token whose ``.`` and ``?`` end nothing, except a run of
#: ``.!?`` closing it; elsewhere a run of ``.!?`` ends a sentence when a blank or the end of the
#: text follows (``3.3.5a``, ``wowhead.com``, ``npc=123?lang=de`` end none), and a newline ends one.
_BOUNDARY = re.compile(r"(?:https?://|www\.)\S+|[.!?]+(?=\s|\Z)|\n", re.IGNORECASE)
_PROBLEM = re.compile(
    r"(?<!\w)(?:can'?t|cannot|couldn'?t|won'?t|doesn'?t|does not|don'?t|didn'?t|isn'?t|no|not|"
    r"nothing|never|missing|nowhere|reset\w*|evad\w*|bug\w*|kein\w*|nicht|nichts)(?!\w)",
    re.IGNORECASE,
)
_MAIN_KINDS = ("title", "body")
Entity = SelectedEntityAlias | UnresolvedIdentityAlias


def mention_quotes(mentions: Sequence[MentionCitation]) -> list[ReportQuote]:
    unique = dict.fromkeys((m.source, m.quote) for m in mentions)
    return [ReportQuote(source=source, quote=quote) for source, quote in list(unique)[:8]]


def entity_label(entity: Entity) -> str:
    if isinstance(entity, SelectedEntityAlias):
        return f"{entity.name} ({entity.alias}, {entity.entity_type} {entity.identity})"
    return f"'{entity.term}' ({entity.alias}, unresolved: {entity.status})"


def ambiguous_subject(resolution: ResolutionContext | None) -> UnresolvedIdentityAlias | None:
    """The first unresolved affected subject when no affected subject was selected."""
    if resolution is None:
        return None
    if any(n.role == "affected_subject" for n in resolution.selected):
        return None
    return next((d for d in resolution.unresolved if d.role == "affected_subject"), None)


def entity_references(
    resolution: ResolutionContext | None, ambiguous: bool, cut: bool = True
) -> tuple[list[EntityReference], list[EntityReference]]:
    """The affected subjects and context entities, cut to their caps unless ``cut`` is false
    (protocol v5 then keeps every N alias: :func:`.interpretation_limits.bounded_references`)."""
    affected: list[EntityReference] = []
    context: list[EntityReference] = []
    if resolution is None:
        return affected, context
    entities: list[Entity] = [*resolution.selected, *resolution.unresolved]
    for entity in entities:
        reference = EntityReference(ref=entity.alias, mentions=mention_quotes(entity.mentions))
        is_subject = entity.role == "affected_subject"
        if is_subject and not (ambiguous and isinstance(entity, SelectedEntityAlias)):
            affected.append(reference)
        else:
            context.append(reference)
    return (affected[:16], context[:32]) if cut else (affected, context)


def unknown_text(entity: UnresolvedIdentityAlias) -> str:
    ids = ", ".join(str(i) for i in entity.candidate_identities[:8])
    if entity.status == "no_match":
        return (
            f"Which entity '{entity.term}' is: the search matched no catalog entry. A miss is "
            "scoped to that catalog, filter and snapshot; it does not show the entity is absent "
            "from the running world."
        )
    if entity.status == "not_searched":
        return (
            f"Which entity '{entity.term}' is: not searched, the resolution plan was over its "
            "search budget (max_searches) before this mention, so no catalog entry was looked up."
        )
    if entity.status == "truncated":
        return (
            f"Which entity '{entity.term}' is: more catalog rows matched than were captured, so "
            f"no unique selection was possible (captured candidates: {ids or 'none'})."
        )
    return (
        f"Which entity '{entity.term}' is: several catalog entries remain possible "
        f"({ids or 'none'}); name similarity alone does not decide."
    )


def spec_of(context: InterpretationStageContext) -> ProtocolSpec | None:
    """The protocol a stage context names (v4 on), else None (v1-v3)."""
    version = context.protocol_version
    return protocol(version) if version is not None else None


def refused_wording(
    context: InterpretationStageContext,
) -> Callable[[str, Sequence[str]], list[str]]:
    """The causal-wording matcher the context's protocol judges by (every language from v6)."""
    spec = spec_of(context)
    return causal_check(spec is not None and spec.multilingual_causal)


def _trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end - start >= 3:
        spans.append((start, end))


def _sentences(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for match in _SENTENCE.finditer(text):
        _trimmed(text, match.start(), match.end(), spans)
    return spans


def sentences_outside_urls(text: str) -> list[tuple[int, int]]:
    """The sentence spans of ``text`` (protocol v6, :data:`_BOUNDARY`): one pass, linear."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        token = match.group(0)
        if token == "\n":
            _trimmed(text, start, match.start(), spans)
        elif token[-1] in ".!?":  # a run of .!? (alone, or closing a URL)
            _trimmed(text, start, match.end(), spans)
        else:
            continue
        start = match.end()
    _trimmed(text, start, len(text), spans)
    return spans


_MARKS = (('"', '"'), ("“", "”"))
#: Protocol v6 also quotes with the marks its causal rule reads as a report quote
#: (:mod:`vba_assets.domain.interpretation.causal`), so a sentence using both of the above stays.
_MARKS_V6 = (*_MARKS, ("«", "»"), ("「", "」"))


def _wrap(kind: str, alias: str, sentence: str, more: bool = False) -> str | None:
    """``<kind> <alias> says: "<sentence>"`` with quote marks the sentence does not use."""
    for left, right in _MARKS_V6 if more else _MARKS:
        if left not in sentence and right not in sentence:
            return f"{kind} {alias} says: {left}{sentence}{right}"
    return None


def source_observations(
    context: InterpretationStageContext, entities: Sequence[Entity], texts: list[str]
) -> list[Observation]:
    """Title and body sentences with a problem phrase or a named entity, then sentences of the
    other sources (attachments) that name an entity."""
    observations: list[Observation] = []
    spec = spec_of(context)
    v6 = spec is not None and spec.merged_entities
    split = sentences_outside_urls if v6 else _sentences
    refused = refused_wording(context)
    main = [s for s in context.sources if s.kind in _MAIN_KINDS]
    rest = [s for s in context.sources if s.kind not in _MAIN_KINDS]
    for pass_sources, need_entity in ((main, False), (rest, True)):
        for source in pass_sources:
            if not source.readable or not source.text:
                continue
            text = source.text
            for start, end in split(text):
                sentence = text[start:end]
                aliases = [
                    e.alias
                    for e in entities
                    if any(m.source == source.alias and start <= m.start < end for m in e.mentions)
                ]
                if not aliases and (need_entity or not _PROBLEM.search(sentence)):
                    continue
                if len(sentence) > MAX_SENTENCE_CHARS or any(
                    ord(char) in FORMAT_CONTROL_CODEPOINTS for char in sentence
                ):
                    continue
                statement = _wrap(source.kind, source.alias, sentence, more=v6)
                if statement is None or refused(statement, texts):
                    continue
                observations.append(
                    Observation(statement=statement, citations=[source.alias, *aliases][:12])
                )
                if len(observations) >= MAX_SOURCE_OBSERVATIONS:
                    return observations
    return observations


def lookup_observations(resolution: ResolutionContext) -> list[Observation]:
    observations: list[Observation] = []
    by_search: dict[str, list[str]] = {}
    entities: list[Entity] = [*resolution.selected, *resolution.unresolved]
    for entity in entities:
        by_search.setdefault(entity.search_id, []).append(entity.alias)
        for search_id in getattr(entity, "merged_search_ids", ()):  # protocol v6
            by_search.setdefault(search_id, []).append(entity.alias)
    for fact in resolution.facts:
        cut = ", truncated at the row limit" if fact.truncated else ""
        observations.append(
            Observation(
                statement=f"Lookup {fact.alias}: a literal contains search for '{fact.term}' in "
                f"catalog {fact.catalog} returned {fact.rows} candidate(s){cut}.",
                citations=[fact.alias, *by_search.get(fact.search_id, [])][:12],
            )
        )
    for n in resolution.selected:
        observations.append(
            Observation(
                statement=f"{n.alias}: the catalog holds {n.entity_type} {n.identity} named "
                f"'{n.name}' ({n.catalog}); it was selected for the report's mention with the "
                f"contextual role {n.role}, a selection, not evidence about the reported problem.",
                citations=[n.alias, *dict.fromkeys(m.source for m in n.mentions)][:12],
            )
        )
    return observations


def next_phase_tasks(resolution: ResolutionContext | None, category: str) -> list[str]:
    tasks: list[str] = []
    if resolution is None:
        return ["Which creatures, quests or places does the report name?"]
    for n in resolution.selected:
        label = f"{n.entity_type} {n.identity} ('{n.name}')"
        if n.role == "affected_subject":
            tasks.append(
                f"Where and under which conditions does the world data place {label}, and does "
                f"that match what the report describes ({category})?"
            )
        elif n.role == "quest_giver":
            tasks.append(f"Which quests does {label} start or end, and are they available?")
        else:
            tasks.append(f"What part does {label} play in the situation the report describes?")
    for d in resolution.unresolved:
        tasks.append(f"Which catalog entry does the report mean by '{d.term}' ({d.alias})?")
    return tasks[:MAX_SUB_TASKS]


def unreadable_links(context: InterpretationStageContext) -> list[Unknown]:
    """An unknown per creature link whose id is not an identity (``npc=２３４８７``: not ASCII
    digits, :mod:`vba_assets.domain.catalog.identity_digits`): the planner did not read it, so
    which creature it means was not examined."""
    unknowns = []
    for source in context.sources:
        if not source.readable or not source.text:
            continue
        for start, end in read_markup(source.text).unreadable:
            url = source.text[start:end]
            shown = url if len(url) <= 200 else f"{url[:200]}..."
            unknowns.append(
                Unknown(
                    ref=None,
                    description=f"Not examined: the link '{shown}' in {source.alias} is "
                    "unreadable (its id is not written in ASCII digits 0-9 as an identity), so "
                    "which creature it means was not looked up.",
                )
            )
    return unknowns


def case_unknowns(
    resolution: ResolutionContext | None,
    times: Sequence[TimeReference],
    context: InterpretationStageContext | None = None,
) -> list[Unknown]:
    """An unknown per unresolved name, per time expression that could not be resolved, per
    unreadable link (with ``context``), and one when entity resolution is disabled."""
    unresolved = list(resolution.unresolved) if resolution is not None else []
    unknowns = [Unknown(ref=d.alias, description=unknown_text(d)) for d in unresolved]
    unknowns += [
        Unknown(ref=None, description=f"The time expression '{t.quote}' could not be resolved.")
        for t in times
        if t.resolved_start is None
    ]
    if resolution is None:
        unknowns.append(
            Unknown(ref=None, description="Entity resolution is disabled: no name was looked up.")
        )
    if resolution is not None and resolution.not_examined:  # protocol v5: over the limit
        names = resolution.not_examined
        shown = ", ".join(f"'{n.term}'" for n in names[:10])
        more = f" and {len(names) - 10} more" if len(names) > 10 else ""
        unknowns.append(
            Unknown(
                ref=None,
                description=f"{names[0].reason[:1].upper()}{names[0].reason[1:]}: "
                f"{len(names)} name(s) got no alias and were not looked up: "
                f"{shown}{more}."[:500],
            )
        )
    return unknowns + (unreadable_links(context) if context is not None else [])


def case_observations(
    context: InterpretationStageContext, entities: Sequence[Entity], texts: list[str]
) -> list[Observation]:
    """The reporter's sentences (:func:`source_observations`), then the lookups'."""
    observations = source_observations(context, entities, texts)
    if context.resolution is not None:
        lookups = lookup_observations(context.resolution)
        spec = spec_of(context)
        if spec is not None and spec.multilingual_causal:  # a looked-up name is no exception
            refused = refused_wording(context)
            lookups = [o for o in lookups if not refused(o.statement, texts)]
        observations += lookups
    return observations


def resolved_days(times: Sequence[TimeReference]) -> list[str]:
    """The days the resolved time references cover (``D`` or ``D1..D2``), first mention first."""
    return list(
        dict.fromkeys(
            t.resolved_start.isoformat()
            if t.resolved_start == t.resolved_end
            else f"{t.resolved_start.isoformat()}..{t.resolved_end.isoformat()}"
            for t in times
            if t.resolved_start is not None and t.resolved_end is not None
        )
    )
