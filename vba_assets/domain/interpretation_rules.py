"""The controller's rules for the interpretation (ARCHITECTURE 7).

:func:`validate_interpretation` returns ``LLM_OUTPUT_RULES`` issues (JSON pointer plus a message that
says what to do); they go back to the model in the correction loop. Rules:

* Grounding: every quote occurs verbatim in the readable source it cites; every citation and ref
  resolves to an existing alias (S sources, F facts, N selected entities, D unresolved identities).
* Retention: every N alias is listed in ``affected_subjects`` or ``context_entities`` with one of
  its own mentions; every D alias is listed in ``unknowns``.
* Roles: an alias appears once; an entity is affected only when a cited mention is one of its
  mentions; a quest giver is never the only affected subject while an ``affected_subject``-role
  alias exists (it stays context, a possible contributor, never the missing creature).
* Ambiguity: an ambiguous report has a clarification question and states no affected subject as
  certain: ``affected_subjects`` may then only reference D aliases.
* Wording: no causal or diagnostic phrase (:data:`CAUSAL_PHRASES`) in the restatement, the
  observations or the sub-tasks; sub-tasks are questions; the restatement has no unresolved
  relative date.
* Dates: each time reference equals ``interpretation_models.resolve_relative_date`` of its quote,
  anchored to the frozen ``reported_at`` in the reporter's offset, never the wall clock. An
  expression the resolver does not know has null dates and must be listed in ``unknowns``.

:func:`interpretation_validator` wraps schema and rules into the ``validate`` callable of
``model_call.run_stage``.
"""

import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from vba_assets.domain.interpretation_models import (
    EntityReference,
    InterpretationOutput,
    local_report_time,
    relative_expressions,
    resolve_relative_date,
    weekday_name,
)
from vba_assets.domain.model_contract import ValidationIssue, model_validator_for
from vba_assets.domain.resolution_models import MentionCitation
from vba_assets.domain.stage_context import InterpretationStageContext
from vba_assets.domain.text import FORMAT_CONTROL_CODEPOINTS
from vba_assets.errors import ErrorCode

# --- wording --------------------------------------------------------------------------------------

#: Causal and diagnostic phrases (English, case-insensitive, whole words) refused in the
#: restatement, the observations and the sub-tasks: causes, hypotheses and fixes belong to the next
#: phase. Deliberately short so plain descriptions pass ("does not appear", "cannot find").
#: A phrase inside a double-quoted passage that occurs verbatim in a readable source is the
#: reporter's own words and is not counted.
CAUSAL_PHRASES = (
    "because",
    "caused by",
    "due to",
    "as a result of",
    "results from",
    "resulting from",
    "root cause",
    "the cause is",
    "the reason is",
    "the bug is",
    "the problem is that",
    "should be fixed",
    "must be fixed",
    "needs to be fixed",
    "the fix is",
    "missing spawn",
    "missing spawns",
    "spawn is missing",
    "spawns are missing",
)
_CAUSAL = re.compile(
    r"(?<!\w)(?:"
    + "|".join(r"\s+".join(map(re.escape, p.split())) for p in CAUSAL_PHRASES)
    + r")(?!\w)",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"\n]+)\"|“([^”\n]+)”|„([^“”\n]+)[“”]")


def causal_phrases(text: str, sources: Sequence[str] = ()) -> list[str]:
    """The :data:`CAUSAL_PHRASES` in ``text``, outside quotes copied from ``sources``."""

    def blank(match: re.Match[str]) -> str:
        inner = next(group for group in match.groups() if group is not None)
        return " " * len(match.group(0)) if any(inner in s for s in sources) else match.group(0)

    return [m.group(0) for m in _CAUSAL.finditer(_QUOTED.sub(blank, text))]


# --- the rules ------------------------------------------------------------------------------------

_RULES = ErrorCode.LLM_OUTPUT_RULES
_LISTS = ("affected_subjects", "context_entities")


def _issue(path: str, message: str) -> ValidationIssue:
    return ValidationIssue(code=_RULES, path=path, message=message)


class _Context(NamedTuple):
    readable: dict[str, str]
    sources: dict[str, str]  # alias -> kind, every source
    facts: set[str]
    mentions: dict[str, list[MentionCitation]]  # N and D alias -> its mentions
    labels: dict[str, str]  # N and D alias -> "N1 (Name, role quest_giver)"
    roles: dict[str, str]
    enabled: bool


def _context(stage: InterpretationStageContext) -> _Context:
    mentions: dict[str, list[MentionCitation]] = {}
    labels: dict[str, str] = {}
    roles: dict[str, str] = {}
    resolution = stage.resolution
    if resolution is not None:
        for n in resolution.selected:
            mentions[n.alias], roles[n.alias] = n.mentions, n.role
            labels[n.alias] = f"{n.alias} ({n.name}, role {n.role})"
        for d in resolution.unresolved:
            mentions[d.alias], roles[d.alias] = d.mentions, d.role
            labels[d.alias] = f"{d.alias} ({d.term!r}, {d.status}, role {d.role})"
    return _Context(
        readable={s.alias: s.text for s in stage.sources if s.readable and s.text is not None},
        sources={s.alias: s.kind for s in stage.sources},
        facts={f.alias for f in resolution.facts} if resolution else set(),
        mentions=mentions,
        labels=labels,
        roles=roles,
        enabled=resolution is not None,
    )


def _quote_issues(source: str, quote: str, ctx: _Context, path: str) -> list[ValidationIssue]:
    if source not in ctx.readable:
        state = (
            f"is not readable ({ctx.sources[source]})"
            if source in ctx.sources
            else "does not exist"
        )
        return [_issue(f"{path}/source", f"source {source} {state}; quote a readable source")]
    if quote not in ctx.readable[source]:
        return [
            _issue(
                f"{path}/quote",
                f"{quote!r} does not occur in {source}; copy the text exactly (same spelling, "
                "case, punctuation and spacing), without ellipsis or paraphrase",
            )
        ]
    if any(ord(char) in FORMAT_CONTROL_CODEPOINTS for char in quote):
        return [_issue(f"{path}/quote", "the quote crosses an invisible zero-width/bidi character")]
    return []


def _mention_text(mentions: Sequence[MentionCitation]) -> str:
    return ", ".join(f"{m.source} {m.quote!r}" for m in mentions)


def _is_own_mention(entity: EntityReference, mentions: Sequence[MentionCitation]) -> bool:
    return any(
        (m.source, m.quote) == (q.source, q.quote) for q in entity.mentions for m in mentions
    )


def _missing_alias(ref: str, ctx: _Context) -> str:
    if not ctx.enabled:
        return (
            f"{ref} does not exist: entity resolution is disabled for this case, so there are no "
            "F, N or D aliases; set ref to null and ground the entity by its mentions"
        )
    return f"{ref} does not exist; the entity aliases are {sorted(ctx.mentions) or 'none'}"


def _entity_issues(output: InterpretationOutput, ctx: _Context) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    seen: dict[str, str] = {}
    for name in _LISTS:
        for index, entity in enumerate(getattr(output, name)):
            path = f"/{name}/{index}"
            for m_index, quote in enumerate(entity.mentions):
                issues += _quote_issues(
                    quote.source, quote.quote, ctx, f"{path}/mentions/{m_index}"
                )
            if entity.ref is None:
                owner = next(
                    (a for a, ms in ctx.mentions.items() if _is_own_mention(entity, ms)), None
                )
                if owner is not None:
                    issues.append(
                        _issue(f"{path}/ref", f"this is a mention of {ctx.labels[owner]}: set ref")
                    )
                continue
            if entity.ref not in ctx.mentions:
                issues.append(_issue(f"{path}/ref", _missing_alias(entity.ref, ctx)))
                continue
            if entity.ref in seen:
                issues.append(
                    _issue(
                        f"{path}/ref",
                        f"{entity.ref} is already listed at {seen[entity.ref]}: an entity is either "
                        "an affected subject or context, listed once",
                    )
                )
            seen.setdefault(entity.ref, path)
            if not _is_own_mention(entity, ctx.mentions[entity.ref]):
                issues.append(
                    _issue(
                        f"{path}/mentions",
                        f"no cited mention supports {ctx.labels[entity.ref]}; cite one of its "
                        f"mentions exactly: {_mention_text(ctx.mentions[entity.ref])}",
                    )
                )
    for alias in sorted(a for a in ctx.mentions if a.startswith("N") and a not in seen):
        where = (
            "affected_subjects" if ctx.roles[alias] == "affected_subject" else "context_entities"
        )
        issues.append(
            _issue(
                f"/{where}",
                f"{ctx.labels[alias]} is a selected entity and must be retained: list it with ref "
                f"{alias!r} in affected_subjects or context_entities, citing one of its mentions: "
                f"{_mention_text(ctx.mentions[alias])}",
            )
        )
    return issues


def _role_issues(output: InterpretationOutput, ctx: _Context) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    affected = [(i, e.ref) for i, e in enumerate(output.affected_subjects)]
    if output.ambiguity.is_ambiguous:
        issues += [
            _issue(
                f"/affected_subjects/{i}/ref",
                "the report is marked ambiguous, so no affected subject may be stated as certain: "
                "reference an unresolved D alias here, or move the entity to context_entities",
            )
            for i, ref in affected
            if ref is None or not ref.startswith("D")
        ]
    subject_aliases = sorted(a for a, role in ctx.roles.items() if role == "affected_subject")
    roles = [ctx.roles.get(ref or "") for _, ref in affected]
    if subject_aliases and "quest_giver" in roles and "affected_subject" not in roles:
        issues += [
            _issue(
                f"/affected_subjects/{i}/ref",
                f"{ctx.labels[ref]} is the quest giver: it stays context (a possible contributor), "
                f"never the affected creature; list {', '.join(subject_aliases)} as the affected "
                "subject",
            )
            for i, ref in affected
            if ref is not None and ctx.roles.get(ref) == "quest_giver"
        ]
    return issues


def _citation_issues(output: InterpretationOutput, ctx: _Context) -> list[ValidationIssue]:
    known = {*ctx.sources, *ctx.facts, *ctx.mentions}
    issues = [
        _issue(f"/observations/{i}/citations/{j}", _missing_alias(alias, ctx))
        if not alias.startswith("S")
        else _issue(f"/observations/{i}/citations/{j}", f"{alias} is not a source of this case")
        for i, observation in enumerate(output.observations)
        for j, alias in enumerate(observation.citations)
        if alias not in known
    ]
    for index, unknown in enumerate(output.unknowns):
        if unknown.ref is not None and unknown.ref not in ctx.mentions:
            issues.append(_issue(f"/unknowns/{index}/ref", _missing_alias(unknown.ref, ctx)))
    retained = {unknown.ref for unknown in output.unknowns}
    for alias in sorted(a for a in ctx.mentions if a.startswith("D") and a not in retained):
        issues.append(
            _issue(
                "/unknowns",
                f"{ctx.labels[alias]} is an unresolved identity and must be retained: add an "
                f"unknown with ref {alias!r} that says what is not known",
            )
        )
    return issues


def _time_issues(
    output: InterpretationOutput, stage: InterpretationStageContext, ctx: _Context
) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    anchor = local_report_time(stage.case.reported_at, stage.case.reported_at_offset)
    for index, ref in enumerate(output.time_references):
        path = f"/time_references/{index}"
        issues += _quote_issues(ref.source, ref.quote, ctx, path)
        expected = resolve_relative_date(
            ref.quote, stage.case.reported_at, stage.case.reported_at_offset
        )
        if expected is None:
            if ref.resolved_start is not None or ref.resolved_end is not None:
                issues.append(
                    _issue(
                        f"{path}/resolved_start",
                        f"{ref.quote!r} is not a date expression the controller resolves; set "
                        "resolved_start and resolved_end to null and list it in unknowns",
                    )
                )
            if not any(
                u.ref is None and ref.quote.casefold() in u.description.casefold()
                for u in output.unknowns
            ):
                issues.append(
                    _issue(
                        "/unknowns",
                        f"the unresolved time expression {ref.quote!r} must be listed in unknowns: "
                        "add an unknown with ref null whose description quotes it",
                    )
                )
            continue
        for key, value in (("resolved_start", expected.start), ("resolved_end", expected.end)):
            if getattr(ref, key) != value:
                issues.append(
                    _issue(
                        f"{path}/{key}",
                        f"{ref.quote!r} resolves to {expected.start.isoformat()}.."
                        f"{expected.end.isoformat()}: {key} must be {value.isoformat()} (the "
                        f"reporter's local date of reported_at is {anchor.date().isoformat()}, "
                        f"{weekday_name(anchor.date())})",
                    )
                )
    return issues


def _wording_issues(output: InterpretationOutput, ctx: _Context) -> list[ValidationIssue]:
    sources = list(ctx.readable.values())
    texts = [
        ("/restatement", output.restatement),
        *((f"/observations/{i}/statement", o.statement) for i, o in enumerate(output.observations)),
        *((f"/sub_tasks/{i}", task) for i, task in enumerate(output.sub_tasks)),
    ]
    issues = [
        _issue(
            path,
            f"causal or diagnostic wording ({', '.join(repr(h) for h in hits)}) is not allowed: "
            "state what was reported or looked up; causes, hypotheses and fixes belong to the next "
            "phase",
        )
        for path, text in texts
        if (hits := causal_phrases(text, sources))
    ]
    relative = relative_expressions(output.restatement)
    if relative:
        issues.append(
            _issue(
                "/restatement",
                f"replace the relative date expression(s) {relative} with the resolved dates "
                "(YYYY-MM-DD) so the restatement stands alone",
            )
        )
    issues += [
        _issue(f"/sub_tasks/{i}", "a sub-task is a question for the next phase: end it with '?'")
        for i, task in enumerate(output.sub_tasks)
        if not task.rstrip().endswith("?")
    ]
    question = output.ambiguity.clarification_question
    if output.ambiguity.is_ambiguous and not (question or "").strip():
        issues.append(
            _issue(
                "/ambiguity/clarification_question",
                "an ambiguous report needs a clarification question to the reporter",
            )
        )
    elif output.ambiguity.is_ambiguous and not (question or "").rstrip().endswith("?"):
        issues.append(_issue("/ambiguity/clarification_question", "end the question with '?'"))
    elif not output.ambiguity.is_ambiguous and question is not None:
        issues.append(
            _issue(
                "/ambiguity/clarification_question",
                "only an ambiguous report has a clarification question: set it to null, or set "
                "is_ambiguous to true",
            )
        )
    return issues


def validate_interpretation(
    output: InterpretationOutput, context: InterpretationStageContext
) -> list[ValidationIssue]:
    """Every rule of the module docstring; an empty list means accepted."""
    ctx = _context(context)
    return [
        *_entity_issues(output, ctx),
        *_role_issues(output, ctx),
        *_citation_issues(output, ctx),
        *_time_issues(output, context, ctx),
        *_wording_issues(output, ctx),
    ]


def interpretation_validator(context: InterpretationStageContext) -> Callable[[Any], Any]:
    """The ``validate`` callable of ``run_stage``: the schema, then :func:`validate_interpretation`.

    Returns the :class:`InterpretationOutput` when valid, else the list of issues.
    """
    return model_validator_for(
        InterpretationOutput, lambda output: validate_interpretation(output, context)
    )
