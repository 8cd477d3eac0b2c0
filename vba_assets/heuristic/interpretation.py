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

Protocol v4 (a stage context stamped ``protocol_version`` 4, the complete contract;
:mod:`.interpretation_v4`, sharing :mod:`.interpretation_parts` with this module) changes:

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

from collections.abc import Sequence

from vba_assets.domain.interpretation.models import (
    Ambiguity,
    InterpretationOutput,
    Scope,
    TimeReference,
    relative_expressions,
    resolve_relative_date,
)
from vba_assets.domain.interpretation.rules import causal_phrases
from vba_assets.domain.resolution.aliases import UnresolvedIdentityAlias
from vba_assets.domain.stage_context import InterpretationStageContext
from vba_assets.heuristic.categories import categorize, out_of_scope_phrase
from vba_assets.heuristic.interpretation_parts import (
    MAX_TIME_REFERENCES,
    Entity,
    ambiguous_subject,
    case_observations,
    case_unknowns,
    entity_label,
    entity_references,
    next_phase_tasks,
    resolved_days,
)
from vba_assets.heuristic.interpretation_v4 import interpret_complete


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
    named = "; ".join(entity_label(e) for e in entities[:12])
    if named:
        parts.append(f"Names looked up in the catalogs: {named}.")
    elif context.resolution is None:
        parts.append("Entity resolution was disabled, so no name was looked up.")
    else:
        parts.append("The report names no entity that was looked up.")
    days = resolved_days(times)
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
        return interpret_complete(context)
    resolution = context.resolution
    entities: list[Entity] = (
        [*resolution.selected, *resolution.unresolved] if resolution is not None else []
    )
    texts = [s.text for s in context.sources if s.readable and s.text]
    unclear = ambiguous_subject(resolution)
    affected, context_entities = entity_references(resolution, unclear is not None)
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
    unknowns = case_unknowns(resolution, times)
    observations = case_observations(context, entities, texts)
    sub_tasks = [
        task for task in next_phase_tasks(resolution, category) if not causal_phrases(task, texts)
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
