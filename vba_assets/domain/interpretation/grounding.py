"""The grounding and alias-retention rules of the interpretation (ARCHITECTURE 7).

Part of :func:`~vba_assets.domain.interpretation.rules.validate_interpretation` (whose docstring
lists every rule): quotes occur verbatim in a readable source, citations and refs resolve to an
existing alias, every N alias is retained as an entity with one of its own mentions and every D
alias as an unknown, an alias is listed once, and the roles decide what may be an affected subject.
Each check returns findings with the code of its rule (``CITATION_*``, ``INTERPRETATION_*``), a
JSON pointer, the alias concerned and a message that says what to do.
:class:`RuleContext` is what every check reads from the stage context, the wording and date checks
in :mod:`.rules` included.
"""

from collections.abc import Sequence
from typing import NamedTuple

from vba_assets.domain.case.text import FORMAT_CONTROL_CODEPOINTS
from vba_assets.domain.findings import Finding
from vba_assets.domain.interpretation.models import EntityReference, InterpretationOutput
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.domain.stage_context import InterpretationStageContext
from vba_assets.errors import ErrorCode

_LISTS = ("affected_subjects", "context_entities")


def rule_issue(code: ErrorCode, path: str, message: str, subject: str | None = None) -> Finding:
    """A finding of rule ``code`` at the JSON pointer ``path`` (``subject``: the alias concerned)."""
    return Finding(code=code, path=path, message=message, subject=subject)


class RuleContext(NamedTuple):
    """What the rules read from the stage context: sources, aliases, their mentions and roles."""

    readable: dict[str, str]
    sources: dict[str, str]  # alias -> kind, every source
    facts: set[str]
    mentions: dict[str, list[MentionCitation]]  # N and D alias -> its mentions
    labels: dict[str, str]  # N and D alias -> "N1 (Name, role quest_giver)"
    roles: dict[str, str]
    enabled: bool


def rule_context(stage: InterpretationStageContext) -> RuleContext:
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
    return RuleContext(
        readable={s.alias: s.text for s in stage.sources if s.readable and s.text is not None},
        sources={s.alias: s.kind for s in stage.sources},
        facts={f.alias for f in resolution.facts} if resolution else set(),
        mentions=mentions,
        labels=labels,
        roles=roles,
        enabled=resolution is not None,
    )


def quote_issues(source: str, quote: str, ctx: RuleContext, path: str) -> list[Finding]:
    """A quote must occur verbatim in the readable source it cites (no invisible characters)."""
    if source not in ctx.readable:
        state = (
            f"is not readable ({ctx.sources[source]})"
            if source in ctx.sources
            else "does not exist"
        )
        return [
            rule_issue(
                ErrorCode.CITATION_SOURCE_UNREADABLE,
                f"{path}/source",
                f"source {source} {state}; quote a readable source",
                source,
            )
        ]
    if quote not in ctx.readable[source]:
        return [
            rule_issue(
                ErrorCode.CITATION_QUOTE_NOT_FOUND,
                f"{path}/quote",
                f"{quote!r} does not occur in {source}; copy the text exactly (same spelling, "
                "case, punctuation and spacing), without ellipsis or paraphrase",
                source,
            )
        ]
    if any(ord(char) in FORMAT_CONTROL_CODEPOINTS for char in quote):
        return [
            rule_issue(
                ErrorCode.CITATION_INVISIBLE_CHARACTER,
                f"{path}/quote",
                "the quote crosses an invisible zero-width/bidi character",
                source,
            )
        ]
    return []


def _mention_text(mentions: Sequence[MentionCitation]) -> str:
    return ", ".join(f"{m.source} {m.quote!r}" for m in mentions)


def _is_own_mention(entity: EntityReference, mentions: Sequence[MentionCitation]) -> bool:
    return any(
        (m.source, m.quote) == (q.source, q.quote) for q in entity.mentions for m in mentions
    )


def missing_alias(ref: str, ctx: RuleContext) -> str:
    """The message for a ref or citation that names no alias of this case."""
    if not ctx.enabled:
        return (
            f"{ref} does not exist: entity resolution is disabled for this case, so there are no "
            "F, N or D aliases; set ref to null and ground the entity by its mentions"
        )
    return f"{ref} does not exist; the entity aliases are {sorted(ctx.mentions) or 'none'}"


def entity_issues(output: InterpretationOutput, ctx: RuleContext) -> list[Finding]:
    """Entities: grounded mentions, resolvable refs, each alias once, every N alias retained."""
    issues: list[Finding] = []
    seen: dict[str, str] = {}
    for name in _LISTS:
        for index, entity in enumerate(getattr(output, name)):
            path = f"/{name}/{index}"
            for m_index, quote in enumerate(entity.mentions):
                issues += quote_issues(quote.source, quote.quote, ctx, f"{path}/mentions/{m_index}")
            if entity.ref is None:
                owner = next(
                    (a for a, ms in ctx.mentions.items() if _is_own_mention(entity, ms)), None
                )
                if owner is not None:
                    issues.append(
                        rule_issue(
                            ErrorCode.INTERPRETATION_REF_NOT_SET,
                            f"{path}/ref",
                            f"this is a mention of {ctx.labels[owner]}: set ref",
                            owner,
                        )
                    )
                continue
            if entity.ref not in ctx.mentions:
                issues.append(
                    rule_issue(
                        ErrorCode.INTERPRETATION_REF_UNKNOWN,
                        f"{path}/ref",
                        missing_alias(entity.ref, ctx),
                        entity.ref,
                    )
                )
                continue
            if entity.ref in seen:
                issues.append(
                    rule_issue(
                        ErrorCode.INTERPRETATION_ALIAS_REPEATED,
                        f"{path}/ref",
                        f"{entity.ref} is already listed at {seen[entity.ref]}: an entity is either "
                        "an affected subject or context, listed once",
                        entity.ref,
                    )
                )
            seen.setdefault(entity.ref, path)
            if not _is_own_mention(entity, ctx.mentions[entity.ref]):
                issues.append(
                    rule_issue(
                        ErrorCode.INTERPRETATION_MENTION_UNSUPPORTED,
                        f"{path}/mentions",
                        f"no cited mention supports {ctx.labels[entity.ref]}; cite one of its "
                        f"mentions exactly: {_mention_text(ctx.mentions[entity.ref])}",
                        entity.ref,
                    )
                )
    for alias in sorted(a for a in ctx.mentions if a.startswith("N") and a not in seen):
        where = (
            "affected_subjects" if ctx.roles[alias] == "affected_subject" else "context_entities"
        )
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_SELECTION_NOT_RETAINED,
                f"/{where}",
                f"{ctx.labels[alias]} is a selected entity and must be retained: list it with ref "
                f"{alias!r} in affected_subjects or context_entities, citing one of its mentions: "
                f"{_mention_text(ctx.mentions[alias])}",
                alias,
            )
        )
    return issues


def role_issues(output: InterpretationOutput, ctx: RuleContext) -> list[Finding]:
    """Affected subjects: only D aliases when ambiguous; never only the quest giver."""
    issues: list[Finding] = []
    affected = [(i, e.ref) for i, e in enumerate(output.affected_subjects)]
    if output.ambiguity.is_ambiguous:
        issues += [
            rule_issue(
                ErrorCode.INTERPRETATION_AMBIGUOUS_CERTAIN_SUBJECT,
                f"/affected_subjects/{i}/ref",
                "the report is marked ambiguous, so no affected subject may be stated as certain: "
                "reference an unresolved D alias here, or move the entity to context_entities",
                ref,
            )
            for i, ref in affected
            if ref is None or not ref.startswith("D")
        ]
    subject_aliases = sorted(a for a, role in ctx.roles.items() if role == "affected_subject")
    roles = [ctx.roles.get(ref or "") for _, ref in affected]
    if subject_aliases and "quest_giver" in roles and "affected_subject" not in roles:
        issues += [
            rule_issue(
                ErrorCode.INTERPRETATION_QUEST_GIVER_AS_SUBJECT,
                f"/affected_subjects/{i}/ref",
                f"{ctx.labels[ref]} is the quest giver: it stays context (a possible contributor), "
                f"never the affected creature; list {', '.join(subject_aliases)} as the affected "
                "subject",
                ref,
            )
            for i, ref in affected
            if ref is not None and ctx.roles.get(ref) == "quest_giver"
        ]
    return issues


def citation_issues(output: InterpretationOutput, ctx: RuleContext) -> list[Finding]:
    """Observation citations and unknown refs resolve; every D alias is retained as an unknown."""
    known = {*ctx.sources, *ctx.facts, *ctx.mentions}
    issues = [
        rule_issue(
            ErrorCode.INTERPRETATION_CITATION_UNKNOWN,
            f"/observations/{i}/citations/{j}",
            missing_alias(alias, ctx)
            if not alias.startswith("S")
            else f"{alias} is not a source of this case",
            alias,
        )
        for i, observation in enumerate(output.observations)
        for j, alias in enumerate(observation.citations)
        if alias not in known
    ]
    for index, unknown in enumerate(output.unknowns):
        if unknown.ref is not None and unknown.ref not in ctx.mentions:
            issues.append(
                rule_issue(
                    ErrorCode.INTERPRETATION_REF_UNKNOWN,
                    f"/unknowns/{index}/ref",
                    missing_alias(unknown.ref, ctx),
                    unknown.ref,
                )
            )
    retained = {unknown.ref for unknown in output.unknowns}
    for alias in sorted(a for a in ctx.mentions if a.startswith("D") and a not in retained):
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_UNRESOLVED_NOT_RETAINED,
                "/unknowns",
                f"{ctx.labels[alias]} is an unresolved identity and must be retained: add an "
                f"unknown with ref {alias!r} that says what is not known",
                alias,
            )
        )
    return issues
