"""The heuristic interpretation under protocol v4, the complete contract (pure logic).

What changes from protocols v1-v3 is listed in :mod:`.interpretation`: scope classes read from the
text, time references in eight languages, a restatement by names and dates, clarifications that
name the competing candidates.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.interpretation.dates import find_dates, relative_words, resolve_found
from vba_assets.domain.interpretation.models import (
    Ambiguity,
    InterpretationOutputV4,
    InterpretationOutputV5,
    ScopeV4,
    TimeReference,
    local_report_time,
)
from vba_assets.domain.interpretation.rules import (
    CLARIFICATION_MAX_CANDIDATES,
    clarification_needs_names,
)
from vba_assets.domain.limits import MAX_UNKNOWNS, MAX_UNKNOWNS_V4, RESTATEMENT_NAMES_BUDGET
from vba_assets.domain.resolution.aliases import (
    ResolutionContext,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
)
from vba_assets.domain.stage_context import CandidateLabel, InterpretationStageContext
from vba_assets.heuristic.categories import categorize, scope_class
from vba_assets.heuristic.interpretation_limits import (
    bounded,
    bounded_clarification,
    bounded_references,
    restatement_subjects,
    shortest_names,
)
from vba_assets.heuristic.interpretation_parts import (
    MAX_TIME_REFERENCES,
    Entity,
    ambiguous_subject,
    case_observations,
    case_unknowns,
    entity_references,
    next_phase_tasks,
    refused_wording,
    resolved_days,
)

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
        return f"how is '{entity.term}' written in the game (no entry matched it)"
    listed = _candidates_text(entity, (context.candidate_names or {}).get(entity.alias, []))
    if entity.status == "truncated":
        return f"which '{entity.term}' (more match than were captured), e.g. {listed}"
    return f"which '{entity.term}': {listed}"


def _clarification_v4(
    entities: Sequence[UnresolvedIdentityAlias],
    context: InterpretationStageContext,
    cut: bool = True,
) -> str:
    """One question, in one line, about every unresolved affected subject (the candidates' names
    only when the rule asks for them, :func:`~.rules_v4.clarification_needs_names`); cut to the
    question's length unless ``cut`` is false (protocol v5 then writes a compact one)."""
    if context.candidate_names and not clarification_needs_names(context):
        context = context.model_copy(update={"candidate_names": None})
    text = "; and ".join(_clarification_part(e, context) for e in entities)
    question = f"{text[:1].upper()}{text[1:]} (answer with the id or the exact name)?"
    if len(question) > 500 and context.candidate_names:  # the ids alone, when names overflow
        return _clarification_v4(
            entities, context.model_copy(update={"candidate_names": None}), cut
        )
    return question[:499].rstrip() + "?" if len(question) > 500 and cut else question


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
    must: Sequence[SelectedEntityAlias] | None = None,
) -> str:
    """The restatement; ``must`` (protocol v5): the affected subjects it must name, all of them
    (by their catalog names alone when the labels do not fit)."""
    case = context.case
    parts = [f"Case {case.case_id}, reported at {case.reported_at} (UTC)."]
    title = case.title or ""
    if title and not relative_words(title) and '"' not in title and not _ALIAS_LIKE.search(title):
        parts.append(f'The reporter\'s title: "{title}".')
    if not in_scope:
        parts.append("The report is not about this server's game world.")
    subjects = [e for e in entities if e.role == "affected_subject"]
    others = [e for e in entities if e.role != "affected_subject"]
    concerns = 0
    if must:
        subjects = [*must, *(e for e in subjects if e not in must)][: max(8, len(must))]
        labels = "; ".join(_label_v4(e) for e in subjects)
        if len(labels) > RESTATEMENT_NAMES_BUDGET:  # the listing the rule counts fits
            labels = shortest_names(must)
        parts.append(f"It concerns {labels}.")
        concerns = len(parts) - 1
    elif subjects:
        parts.append(f"It concerns {'; '.join(_label_v4(e) for e in subjects[:8])}.")
    if others:
        parts.append(f"Also named: {'; '.join(_label_v4(e) for e in others[:8])}.")
    if not entities:
        parts.append(
            "Entity resolution was disabled, so no name was looked up."
            if context.resolution is None
            else "The report names no entity that was looked up."
        )
    days = resolved_days(times)
    if days:
        parts.append(f"Dates the report refers to (reporter's local days): {', '.join(days)}.")
    if must and len(" ".join(parts)) > 2000:  # the names before the title: never cut off
        parts.insert(1, parts.pop(concerns))
    text = " ".join(parts)[:2000]
    refused = refused_wording(context)
    if refused(text, texts) or relative_words(text) or _ALIAS_LIKE.search(text):
        named = (
            shortest_names(must)
            if must
            else "; ".join(e.name for e in subjects if isinstance(e, SelectedEntityAlias))
        )
        about = f" about {named}" if named and not _ALIAS_LIKE.search(named) else ""
        fallback = f"Case {case.case_id}: a player report{about}; see the observations."
        if about and refused(fallback, texts):  # a catalog name with causal words (v6)
            return f"Case {case.case_id}: a player report; see the observations."
        return fallback
    return text


def _sub_tasks_v4(resolution: ResolutionContext | None, category: str) -> list[str]:
    tasks = next_phase_tasks(resolution, category)
    return tasks or [
        "What exactly does the reporter see in the game world, where, and with which character?"
    ]


def interpret_complete(context: InterpretationStageContext) -> InterpretationOutputV4:
    resolution = context.resolution
    entities: list[Entity] = (
        [*resolution.selected, *resolution.unresolved] if resolution is not None else []
    )
    texts = [s.text for s in context.sources if s.readable and s.text]
    decided = scope_class(context.sources)
    in_scope = decided is None
    unclear = ambiguous_subject(resolution) if in_scope else None
    limited = bounded(context)
    affected, context_entities = entity_references(resolution, unclear is not None, not limited)
    if not in_scope:
        affected, context_entities = [], [*affected, *context_entities][: None if limited else 32]
    if limited and resolution is not None:
        affected, context_entities = bounded_references(affected, context_entities, resolution)
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
    unknowns = case_unknowns(resolution, times, context)
    observations = case_observations(context, entities, texts)
    sub_tasks = (
        [t for t in _sub_tasks_v4(resolution, category) if not refused_wording(context)(t, texts)]
        if in_scope
        else []
    )
    if in_scope and not sub_tasks:
        sub_tasks = ["Which game-world situation does the report describe?"]
    subjects = [
        d
        for d in (resolution.unresolved if resolution is not None else [])
        if d.role == "affected_subject"
    ]
    question = None
    if unclear:
        question = _clarification_v4(subjects, context, cut=not limited)
        if limited:
            question = bounded_clarification(context, affected, question)
    must = restatement_subjects(context, affected) if limited else None
    model = InterpretationOutputV5 if limited else InterpretationOutputV4
    return model(
        restatement=_restatement_v4(context, entities, times, texts, in_scope, must),
        category=category,
        scope=scope,
        ambiguity=Ambiguity(is_ambiguous=unclear is not None, clarification_question=question),
        affected_subjects=affected,
        context_entities=context_entities,
        observations=observations[:32],
        time_references=times,
        unknowns=unknowns[: MAX_UNKNOWNS if limited else MAX_UNKNOWNS_V4],
        sub_tasks=sub_tasks,
    )
