"""The heuristic interpretation (model call 3 without a model).

Built from the frozen context only, so that it passes
:func:`~vba_assets.domain.interpretation.rules.validate_interpretation`:

* **entities**: every N alias is retained with its mentions, in ``affected_subjects`` when its
  search role is ``affected_subject``, else in ``context_entities``; every D alias likewise by its
  role, and each is also an unknown;
* **ambiguity**: ambiguous when some search had the ``affected_subject`` role and none of those
  searches produced an N alias; the clarification question asks about the first such name;
* **category and scope**: keyword rules (:mod:`.categories`);
* **observations**: sentences quoted verbatim (title and body sentences with a problem phrase
  or a named entity, then attachment sentences that name an entity; at most
  :data:`MAX_SOURCE_OBSERVATIONS`) citing their source and the aliases mentioned in them, plus
  one line per lookup fact and per selected entity; a sentence with causal wording is left out;
* **time references**: every relative date expression of the readable sources, resolved with
  :func:`~vba_assets.domain.interpretation.models.resolve_relative_date` against ``reported_at``;
  an expression it cannot resolve becomes an unknown;
* **sub-tasks**: questions about each entity for the next phase, never a diagnosis.

Protocol v4 (a stage context stamped ``protocol_version`` 4, the complete contract) changes:

* **scope**: every out-of-scope class is read from the text (:func:`.categories.scope_class`);
  an out-of-scope report lists its entities as context only, asks nothing of the next phase and is
  not ambiguous; an in-scope report always has a sub-task;
* **time references** in the reporters' eight languages (:mod:`vba_assets.domain.interpretation.dates`);
* **restatement**: the names of the entities (catalog names and the report's words), never an
  alias code, with the resolved dates;
* **clarification**: names the competing candidates (ids, and names when the context has them) or
  the unmatched name, in one line.

What it cannot do: the restatement is a template around the report's title, not a summary; the
observations are the reporter's sentences, not a reading of them; nothing is inferred beyond the
lookups. With entity resolution disabled no entity is listed (it does not guess names). Scope is
read from cue phrases: a report that is out of scope without any listed cue is taken as in scope.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.case.text import FORMAT_CONTROL_CODEPOINTS
from vba_assets.domain.heuristics.categories import categorize, out_of_scope_phrase, scope_class
from vba_assets.domain.interpretation.dates import find_dates, relative_words, resolve_found
from vba_assets.domain.interpretation.models import (
    Ambiguity,
    EntityReference,
    InterpretationOutput,
    InterpretationOutputV4,
    Observation,
    ReportQuote,
    Scope,
    ScopeV4,
    TimeReference,
    Unknown,
    local_report_time,
    relative_expressions,
    resolve_relative_date,
)
from vba_assets.domain.interpretation.rules import CLARIFICATION_MAX_CANDIDATES, causal_phrases
from vba_assets.domain.prompting.stage_context import CandidateLabel, InterpretationStageContext
from vba_assets.domain.resolution.models import (
    MentionCitation,
    ResolutionContext,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
)

MAX_SOURCE_OBSERVATIONS = 8
MAX_SENTENCE_CHARS = 300
MAX_TIME_REFERENCES = 16
MAX_SUB_TASKS = 12
_SENTENCE = re.compile(r"[^\n.!?]+(?:[.!?]+|$)", re.MULTILINE)
_PROBLEM = re.compile(
    r"(?<!\w)(?:can'?t|cannot|couldn'?t|won'?t|doesn'?t|does not|don'?t|didn'?t|isn'?t|no|not|"
    r"nothing|never|missing|nowhere|reset\w*|evad\w*|bug\w*|kein\w*|nicht|nichts)(?!\w)",
    re.IGNORECASE,
)
_MAIN_KINDS = ("title", "body")
Entity = SelectedEntityAlias | UnresolvedIdentityAlias


def _quotes(mentions: Sequence[MentionCitation]) -> list[ReportQuote]:
    unique = dict.fromkeys((m.source, m.quote) for m in mentions)
    return [ReportQuote(source=source, quote=quote) for source, quote in list(unique)[:8]]


def _label(entity: Entity) -> str:
    if isinstance(entity, SelectedEntityAlias):
        return f"{entity.name} ({entity.alias}, {entity.entity_type} {entity.identity})"
    return f"'{entity.term}' ({entity.alias}, unresolved: {entity.status})"


def _ambiguous(resolution: ResolutionContext | None) -> UnresolvedIdentityAlias | None:
    """The first unresolved affected subject when no affected subject was selected."""
    if resolution is None:
        return None
    if any(n.role == "affected_subject" for n in resolution.selected):
        return None
    return next((d for d in resolution.unresolved if d.role == "affected_subject"), None)


def _clarification(entity: UnresolvedIdentityAlias) -> str:
    if entity.status == "no_match":
        return (
            f"The name '{entity.term}' matched no catalog entry: how exactly is it written in the "
            "game, and where did you look for it?"
        )
    count = len(entity.candidate_identities)
    listed = ", ".join(str(i) for i in entity.candidate_identities[:8]) or "several"
    return (
        f"The name '{entity.term}' fits {count or 'several'} catalog entries ({listed}): which one "
        "do you mean, for example where exactly did you meet it and what does it do?"
    )


def _entities(
    resolution: ResolutionContext | None, ambiguous: bool
) -> tuple[list[EntityReference], list[EntityReference]]:
    affected: list[EntityReference] = []
    context: list[EntityReference] = []
    if resolution is None:
        return affected, context
    entities: list[Entity] = [*resolution.selected, *resolution.unresolved]
    for entity in entities:
        reference = EntityReference(ref=entity.alias, mentions=_quotes(entity.mentions))
        is_subject = entity.role == "affected_subject"
        if is_subject and not (ambiguous and isinstance(entity, SelectedEntityAlias)):
            affected.append(reference)
        else:
            context.append(reference)
    return affected[:16], context[:32]


def _unknown_text(entity: UnresolvedIdentityAlias) -> str:
    ids = ", ".join(str(i) for i in entity.candidate_identities[:8])
    if entity.status == "no_match":
        return (
            f"Which entity '{entity.term}' is: the search matched no catalog entry. A miss is "
            "scoped to that catalog, filter and snapshot; it does not show the entity is absent "
            "from the running world."
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


def _time_references(context: InterpretationStageContext) -> list[TimeReference]:
    found: list[TimeReference] = []
    seen: set[tuple[str, str]] = set()
    case = context.case
    for source in context.sources:
        if not source.readable or not source.text:
            continue
        for quote in relative_expressions(source.text):
            if (source.alias, quote) in seen or len(found) >= MAX_TIME_REFERENCES:
                continue
            seen.add((source.alias, quote))
            resolved = resolve_relative_date(quote, case.reported_at, case.reported_at_offset)
            found.append(
                TimeReference(
                    source=source.alias,
                    quote=quote,
                    resolved_start=resolved.start if resolved else None,
                    resolved_end=resolved.end if resolved else None,
                    anchor="reported_at",
                )
            )
    return found


def _sentences(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _SENTENCE.finditer(text):
        start, end = match.start(), match.end()
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end - start >= 3:
            spans.append((start, end))
    return spans


def _wrap(kind: str, alias: str, sentence: str) -> str | None:
    """``<kind> <alias> says: "<sentence>"`` with quote marks the sentence does not use."""
    for left, right in (('"', '"'), ("“", "”")):
        if left not in sentence and right not in sentence:
            return f"{kind} {alias} says: {left}{sentence}{right}"
    return None


def _source_observations(
    context: InterpretationStageContext, entities: Sequence[Entity], texts: list[str]
) -> list[Observation]:
    """Title and body sentences with a problem phrase or a named entity, then sentences of the
    other sources (attachments) that name an entity."""
    observations: list[Observation] = []
    main = [s for s in context.sources if s.kind in _MAIN_KINDS]
    rest = [s for s in context.sources if s.kind not in _MAIN_KINDS]
    for pass_sources, need_entity in ((main, False), (rest, True)):
        for source in pass_sources:
            if not source.readable or not source.text:
                continue
            text = source.text
            for start, end in _sentences(text):
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
                statement = _wrap(source.kind, source.alias, sentence)
                if statement is None or causal_phrases(statement, texts):
                    continue
                observations.append(
                    Observation(statement=statement, citations=[source.alias, *aliases][:12])
                )
                if len(observations) >= MAX_SOURCE_OBSERVATIONS:
                    return observations
    return observations


def _lookup_observations(resolution: ResolutionContext) -> list[Observation]:
    observations: list[Observation] = []
    by_search: dict[str, list[str]] = {}
    entities: list[Entity] = [*resolution.selected, *resolution.unresolved]
    for entity in entities:
        by_search.setdefault(entity.search_id, []).append(entity.alias)
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


def _sub_tasks(resolution: ResolutionContext | None, category: str) -> list[str]:
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


def _restatement(
    context: InterpretationStageContext,
    entities: Sequence[Entity],
    times: Sequence[TimeReference],
    texts: list[str],
) -> str:
    case = context.case
    parts = [f"Case {case.case_id}, reported at {case.reported_at} (UTC)."]
    title = case.title or ""
    if title and not relative_expressions(title) and '"' not in title:
        parts.append(f'The reporter\'s title: "{title}".')
    named = "; ".join(_label(e) for e in entities[:12])
    if named:
        parts.append(f"Names looked up in the catalogs: {named}.")
    elif context.resolution is None:
        parts.append("Entity resolution was disabled, so no name was looked up.")
    else:
        parts.append("The report names no entity that was looked up.")
    days = list(
        dict.fromkeys(
            t.resolved_start.isoformat()
            if t.resolved_start == t.resolved_end
            else f"{t.resolved_start.isoformat()}..{t.resolved_end.isoformat()}"
            for t in times
            if t.resolved_start is not None and t.resolved_end is not None
        )
    )
    if days:
        parts.append(f"Dates the report refers to (reporter's local days): {', '.join(days)}.")
    text = " ".join(parts)[:2000]
    if causal_phrases(text, texts) or relative_expressions(text):
        return f"Case {case.case_id}: a player report; see the observations for its statements."
    return text


def interpret_case(context: InterpretationStageContext) -> InterpretationOutput:
    """The heuristic interpretation of one case (see the module docstring): the complete
    contract when the context says protocol v4, else the answer of protocol v1-v3."""
    if context.complete:
        return _interpret_complete(context)
    resolution = context.resolution
    entities: list[Entity] = (
        [*resolution.selected, *resolution.unresolved] if resolution is not None else []
    )
    texts = [s.text for s in context.sources if s.readable and s.text]
    unclear = _ambiguous(resolution)
    affected, context_entities = _entities(resolution, unclear is not None)
    category, _score = categorize(context.sources)
    request = out_of_scope_phrase(context.sources)
    scope = Scope(
        in_scope=request is None,
        reason=(
            f"heuristic: the report contains the request phrase '{request}', so it is read as a "
            "request, not a report of something wrong"
            if request
            else "heuristic: an admitted player report about the game; the heuristic only "
            "recognizes explicit feature requests as out of scope"
        ),
    )
    times = _time_references(context)
    unresolved = list(resolution.unresolved) if resolution is not None else []
    unknowns = [Unknown(ref=d.alias, description=_unknown_text(d)) for d in unresolved]
    unknowns += [
        Unknown(ref=None, description=f"The time expression '{t.quote}' could not be resolved.")
        for t in times
        if t.resolved_start is None
    ]
    if resolution is None:
        unknowns.append(
            Unknown(ref=None, description="Entity resolution is disabled: no name was looked up.")
        )
    observations = _source_observations(context, entities, texts)
    if resolution is not None:
        observations += _lookup_observations(resolution)
    sub_tasks = [
        task for task in _sub_tasks(resolution, category) if not causal_phrases(task, texts)
    ]
    return InterpretationOutput(
        restatement=_restatement(context, entities, times, texts),
        category=category,
        scope=scope,
        ambiguity=Ambiguity(
            is_ambiguous=unclear is not None,
            clarification_question=_clarification(unclear) if unclear is not None else None,
        ),
        affected_subjects=affected,
        context_entities=context_entities,
        observations=observations[:32],
        time_references=times,
        unknowns=unknowns[:32],
        sub_tasks=sub_tasks,
    )


# --- protocol v4: the complete contract -----------------------------------------------------------

_ALIAS_LIKE = re.compile(r"(?<![\w-])(?:[SFND][0-9]+|Q[0-9]+(?:-C[0-9]+)?)(?![\w-])")


def _time_references_v4(context: InterpretationStageContext) -> list[TimeReference]:
    found: list[TimeReference] = []
    seen: set[tuple[str, str]] = set()
    local = local_report_time(context.case.reported_at, context.case.reported_at_offset)
    for source in context.sources:
        if not source.readable or not source.text:
            continue
        for expression in find_dates(source.text):
            if expression.iso is not None:
                continue
            key = (source.alias, expression.quote)
            if key in seen or len(found) >= MAX_TIME_REFERENCES:
                continue
            seen.add(key)
            resolved = resolve_found(expression, local)
            found.append(
                TimeReference(
                    source=source.alias,
                    quote=expression.quote,
                    resolved_start=resolved.start if resolved else None,
                    resolved_end=resolved.end if resolved else None,
                    anchor="reported_at",
                )
            )
    return found


def _candidates_text(entity: UnresolvedIdentityAlias, names: list[CandidateLabel]) -> str:
    known = {c.identity: c.name for c in names}
    shown = entity.candidate_identities[:CLARIFICATION_MAX_CANDIDATES]
    listed = "; ".join(f"{i} '{known[i]}'" if i in known else str(i) for i in shown)
    more = len(entity.candidate_identities) - len(shown)
    return listed + (f" (and {more} more)" if more > 0 else "")


def _clarification_part(
    entity: UnresolvedIdentityAlias, context: InterpretationStageContext
) -> str:
    if entity.status == "no_match" or not entity.candidate_identities:
        return f"how exactly is '{entity.term}' written in the game (no catalog entry matched it)"
    listed = _candidates_text(entity, (context.candidate_names or {}).get(entity.alias, []))
    if entity.status == "truncated":
        return (
            f"which '{entity.term}' do you mean (more entries match than were captured), for "
            f"example {listed}"
        )
    return f"which '{entity.term}' do you mean: {listed}"


def _clarification_v4(
    entities: Sequence[UnresolvedIdentityAlias], context: InterpretationStageContext
) -> str:
    """One question, in one line, about every unresolved affected subject."""
    text = "; and ".join(_clarification_part(e, context) for e in entities)
    question = f"{text[:1].upper()}{text[1:]} (answer with the id or the exact name)?"
    if len(question) > 500 and context.candidate_names:  # the ids alone, when names overflow
        return _clarification_v4(entities, context.model_copy(update={"candidate_names": None}))
    return question[:499].rstrip() + "?" if len(question) > 500 else question


def _label_v4(entity: Entity) -> str:
    if isinstance(entity, SelectedEntityAlias):
        words = dict.fromkeys(m.quote for m in entity.mentions)
        said = next((w for w in words if w.casefold() != entity.name.casefold()), None)
        extra = f", written '{said}' in the report" if said else ""
        return f"{entity.name} ({entity.entity_type} {entity.identity}{extra})"
    return f"'{entity.term}' (not resolved: {entity.status})"


def _restatement_v4(
    context: InterpretationStageContext,
    entities: Sequence[Entity],
    times: Sequence[TimeReference],
    texts: list[str],
    in_scope: bool,
) -> str:
    case = context.case
    parts = [f"Case {case.case_id}, reported at {case.reported_at} (UTC)."]
    title = case.title or ""
    if title and not relative_words(title) and '"' not in title and not _ALIAS_LIKE.search(title):
        parts.append(f'The reporter\'s title: "{title}".')
    if not in_scope:
        parts.append("The report is not about this server's game world.")
    subjects = [e for e in entities if e.role == "affected_subject"]
    others = [e for e in entities if e.role != "affected_subject"]
    if subjects:
        parts.append(f"It concerns {'; '.join(_label_v4(e) for e in subjects[:8])}.")
    if others:
        parts.append(f"Also named: {'; '.join(_label_v4(e) for e in others[:8])}.")
    if not entities:
        parts.append(
            "Entity resolution was disabled, so no name was looked up."
            if context.resolution is None
            else "The report names no entity that was looked up."
        )
    days = list(
        dict.fromkeys(
            t.resolved_start.isoformat()
            if t.resolved_start == t.resolved_end
            else f"{t.resolved_start.isoformat()}..{t.resolved_end.isoformat()}"
            for t in times
            if t.resolved_start is not None and t.resolved_end is not None
        )
    )
    if days:
        parts.append(f"Dates the report refers to (reporter's local days): {', '.join(days)}.")
    text = " ".join(parts)[:2000]
    if causal_phrases(text, texts) or relative_words(text) or _ALIAS_LIKE.search(text):
        named = "; ".join(e.name for e in subjects if isinstance(e, SelectedEntityAlias))
        about = f" about {named}" if named and not _ALIAS_LIKE.search(named) else ""
        return f"Case {case.case_id}: a player report{about}; see the observations."
    return text


def _sub_tasks_v4(resolution: ResolutionContext | None, category: str) -> list[str]:
    tasks = _sub_tasks(resolution, category)
    return tasks or [
        "What exactly does the reporter see in the game world, where, and with which character?"
    ]


def _interpret_complete(context: InterpretationStageContext) -> InterpretationOutputV4:
    resolution = context.resolution
    entities: list[Entity] = (
        [*resolution.selected, *resolution.unresolved] if resolution is not None else []
    )
    texts = [s.text for s in context.sources if s.readable and s.text]
    decided = scope_class(context.sources)
    in_scope = decided is None
    unclear = _ambiguous(resolution) if in_scope else None
    affected, context_entities = _entities(resolution, unclear is not None)
    if not in_scope:
        affected, context_entities = [], [*affected, *context_entities][:32]
    category, _score = categorize(context.sources)
    scope = ScopeV4(
        in_scope=in_scope,
        out_of_scope_class=decided[0] if decided else None,
        reason=(
            f"heuristic: the report reads as {decided[0]} (cue '{decided[1]}'), not as a report "
            "of something wrong in this server's game world"
            if decided
            else "heuristic: a player report about the game world; no out-of-scope cue (feature "
            "request, account or billing, client or addon, cheating, not the game world) was found"
        ),
    )
    times = _time_references_v4(context)
    unresolved = list(resolution.unresolved) if resolution is not None else []
    unknowns = [Unknown(ref=d.alias, description=_unknown_text(d)) for d in unresolved]
    unknowns += [
        Unknown(ref=None, description=f"The time expression '{t.quote}' could not be resolved.")
        for t in times
        if t.resolved_start is None
    ]
    if resolution is None:
        unknowns.append(
            Unknown(ref=None, description="Entity resolution is disabled: no name was looked up.")
        )
    observations = _source_observations(context, entities, texts)
    if resolution is not None:
        observations += _lookup_observations(resolution)
    sub_tasks = (
        [t for t in _sub_tasks_v4(resolution, category) if not causal_phrases(t, texts)]
        if in_scope
        else []
    )
    if in_scope and not sub_tasks:
        sub_tasks = ["Which game-world situation does the report describe?"]
    return InterpretationOutputV4(
        restatement=_restatement_v4(context, entities, times, texts, in_scope),
        category=category,
        scope=scope,
        ambiguity=Ambiguity(
            is_ambiguous=unclear is not None,
            clarification_question=_clarification_v4(
                [
                    d
                    for d in (resolution.unresolved if resolution is not None else [])
                    if d.role == "affected_subject"
                ],
                context,
            )
            if unclear
            else None,
        ),
        affected_subjects=affected,
        context_entities=context_entities,
        observations=observations[:32],
        time_references=times,
        unknowns=unknowns[:32],
        sub_tasks=sub_tasks,
    )
