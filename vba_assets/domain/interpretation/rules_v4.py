"""The interpretation rules protocol v4 adds: scope, the restatement's names, the clarification.

Protocol v4 (``ProtocolSpec.complete_interpretation``) judges a reply by the complete
interpretation contract; these are its rules beyond those of every version (see the
:mod:`.rules` docstring for the list of all rules, and :func:`.rules.validate_interpretation`,
which runs them only under v4). Separate so a reader of the older protocols' rules need not read
them, and so each rule module stays short.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.findings import Finding
from vba_assets.domain.interpretation.grounding import RuleContext, rule_issue
from vba_assets.domain.interpretation.models import (
    OUT_OF_SCOPE_CLASSES,
    EntityReference,
    InterpretationOutput,
)
from vba_assets.domain.limits import (
    CLARIFICATION_LISTING_BUDGET,
    CLARIFICATION_MAX_CANDIDATES,
    CLARIFICATION_NAMES_BUDGET,
    RESTATEMENT_NAMES_BUDGET,
)
from vba_assets.domain.resolution.aliases import SelectedEntityAlias, UnresolvedIdentityAlias
from vba_assets.domain.stage_context import InterpretationStageContext
from vba_assets.errors import ErrorCode

_ALIAS_CODE = re.compile(r"(?<![\w-])(?P<alias>[SFND][0-9]+|Q[0-9]+(?:-C[0-9]+)?)(?![\w-])")


def scope_issues(output: InterpretationOutput) -> list[Finding]:
    """Scope with consequences: an out-of-scope reply names its class and has no affected subject
    or sub-task; an in-scope reply has no class and at least one sub-task."""
    scope = output.scope
    chosen = getattr(scope, "out_of_scope_class", None)
    issues: list[Finding] = []
    if not scope.in_scope and chosen is None:
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_SCOPE_CLASS,
                "/scope/out_of_scope_class",
                "an out-of-scope report names its class: set out_of_scope_class to one of "
                f"{', '.join(OUT_OF_SCOPE_CLASSES)}, or set in_scope to true",
            )
        )
    elif scope.in_scope and chosen is not None:
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_SCOPE_CLASS,
                "/scope/out_of_scope_class",
                f"the report is in scope, so it has no out-of-scope class: set out_of_scope_class "
                f"to null, or set in_scope to false if it really is {chosen}",
            )
        )
    if not scope.in_scope:
        issues += [
            rule_issue(
                ErrorCode.INTERPRETATION_OUT_OF_SCOPE_WORK,
                f"/affected_subjects/{i}",
                "an out-of-scope report has no affected subject: move this entity to "
                "context_entities (keep its ref and mentions)",
                entity.ref,
            )
            for i, entity in enumerate(output.affected_subjects)
        ]
        if output.sub_tasks:
            issues.append(
                rule_issue(
                    ErrorCode.INTERPRETATION_OUT_OF_SCOPE_WORK,
                    "/sub_tasks",
                    "an out-of-scope report gives the next phase nothing to do: set sub_tasks to "
                    "[]",
                )
            )
    elif not output.sub_tasks:
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_IN_SCOPE_NO_SUBTASK,
                "/sub_tasks",
                "an in-scope report needs at least one sub-task: a question the next phase must "
                "answer, ending with '?'",
            )
        )
    return issues


def _contains(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` ignoring case, punctuation and spacing (whole words)."""
    folded, wanted = normalize_for_match(text), normalize_for_match(phrase)
    return bool(wanted) and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", folded) is not None


def subject_words(n: SelectedEntityAlias) -> list[str]:
    """The words that name a selected subject: its catalog name, then the report's words."""
    return list(dict.fromkeys([n.name, *(m.quote for m in n.mentions)]))


def restatement_targets(
    affected: Sequence[EntityReference], context: InterpretationStageContext, *, bounded: bool
) -> list[tuple[int, SelectedEntityAlias]]:
    """The selected affected subjects the restatement must name, with their positions in
    ``affected``: every one, or under ``bounded`` (protocol v5) the first ones whose shortest
    words fit :data:`~vba_assets.domain.limits.RESTATEMENT_NAMES_BUDGET` (the first always)."""
    resolution = context.resolution
    selected = {n.alias: n for n in resolution.selected} if resolution is not None else {}
    targets = [(index, selected[e.ref]) for index, e in enumerate(affected) if e.ref in selected]
    if not bounded:
        return targets
    required: list[tuple[int, SelectedEntityAlias]] = []
    spent = 0
    for index, n in targets:
        spent += min(len(word) for word in subject_words(n)) + 2
        if required and spent > RESTATEMENT_NAMES_BUDGET:
            break
        required.append((index, n))
    return required


def restatement_issues(
    output: InterpretationOutput,
    context: InterpretationStageContext,
    ctx: RuleContext,
    *,
    bounded: bool = False,
) -> list[Finding]:
    """The restatement names every selected affected subject (:func:`restatement_targets`) and
    holds no alias code of the case."""
    issues: list[Finding] = []
    resolution = context.resolution
    for index, n in restatement_targets(output.affected_subjects, context, bounded=bounded):
        words = subject_words(n)
        if not any(_contains(output.restatement, word) for word in words):
            issues.append(
                rule_issue(
                    ErrorCode.INTERPRETATION_RESTATEMENT_NAMES,
                    "/restatement",
                    f"the restatement must name the affected subject {ctx.labels[n.alias]} "
                    f"(listed at /affected_subjects/{index}): write its catalog name "
                    f"{n.name!r} or the report's own words for it "
                    f"({', '.join(repr(w) for w in words[1:4]) or repr(n.name)})",
                    n.alias,
                )
            )
    known = {*ctx.sources, *ctx.facts, *ctx.mentions}
    if resolution is not None:
        known |= {f.search_id for f in resolution.facts}
    codes = [
        m["alias"]
        for m in _ALIAS_CODE.finditer(output.restatement)
        if m["alias"].split("-")[0] in known
    ]
    if codes:
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_RESTATEMENT_ALIAS,
                "/restatement",
                f"the restatement stands alone, without alias codes: replace "
                f"{', '.join(dict.fromkeys(codes))} by the names or words they stand for",
            )
        )
    return issues


def clarification_needs_names(context: InterpretationStageContext) -> bool:
    """Whether a clarification must give the candidates' names besides their ids: when the
    listing of the shown candidates of every unresolved identity of the context
    (``"<id> '<name>'; "`` each) fits :data:`CLARIFICATION_NAMES_BUDGET` characters. It reads the
    context only, so the writer of a reply can know it as well as the rule."""
    resolution = context.resolution
    names = context.candidate_names or {}
    if resolution is None:
        return True
    size = 0
    for d in resolution.unresolved:
        shown = set(d.candidate_identities[:CLARIFICATION_MAX_CANDIDATES])
        size += sum(
            len(str(c.identity)) + len(c.name) + 5
            for c in names.get(d.alias, [])
            if c.identity in shown
        )
    return size <= CLARIFICATION_NAMES_BUDGET


def _number_in(text: str, identity: int | str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(str(identity))}(?![\w-])", text) is not None


def _listing_cost(d: UnresolvedIdentityAlias, labels: dict[int | str, str]) -> int:
    """What spelling out ``d`` costs in a clarification: the unmatched word, or the shown
    candidates' ids (and names, in ``labels``)."""
    if d.status == "no_match" or not d.candidate_identities:
        return len(d.term) + 4
    shown = d.candidate_identities[:CLARIFICATION_MAX_CANDIDATES]
    return sum(len(str(i)) + 2 + (len(labels[i]) + 3 if i in labels else 0) for i in shown)


def clarification_targets(
    context: InterpretationStageContext, listed: list[str], *, bounded: bool
) -> list[UnresolvedIdentityAlias]:
    """The unresolved identities a clarification must name: those the reply lists as affected
    subjects (``listed``, D aliases in order), else every unresolved affected subject; under
    ``bounded`` (protocol v5) only the first ones whose listing fits
    :data:`~vba_assets.domain.limits.CLARIFICATION_LISTING_BUDGET` (the first always)."""
    resolution = context.resolution
    if resolution is None:
        return []
    unresolved = {d.alias: d for d in resolution.unresolved}
    aliases = [a for a in listed if a in unresolved] or [
        d.alias for d in resolution.unresolved if d.role == "affected_subject"
    ]
    targets = [unresolved[a] for a in dict.fromkeys(aliases)]
    if not bounded:
        return targets
    with_names = clarification_needs_names(context)
    names = context.candidate_names or {}
    required: list[UnresolvedIdentityAlias] = []
    spent = 0
    for d in targets:
        labels = {c.identity: c.name for c in names.get(d.alias, [])} if with_names else {}
        spent += _listing_cost(d, labels)
        if required and spent > CLARIFICATION_LISTING_BUDGET:
            break
        required.append(d)
    return required


def clarification_issues(
    output: InterpretationOutput,
    context: InterpretationStageContext,
    ctx: RuleContext,
    *,
    bounded: bool = False,
) -> list[Finding]:
    """An ambiguous reply's clarification names the competing candidates of each unresolved
    affected subject (:func:`clarification_targets`), by id and, when the listing fits
    (:func:`clarification_needs_names`), by name (or, when nothing matched, the report's own
    word for it)."""
    resolution = context.resolution
    question = output.ambiguity.clarification_question
    if not output.ambiguity.is_ambiguous or resolution is None or not (question or "").strip():
        return []
    text = question or ""
    listed = [e.ref for e in output.affected_subjects if e.ref is not None]
    names = context.candidate_names or {}
    with_names = clarification_needs_names(context)
    issues: list[Finding] = []
    for d in clarification_targets(context, listed, bounded=bounded):
        alias = d.alias
        if d.status == "no_match" or not d.candidate_identities:
            if not _contains(text, d.term):
                issues.append(
                    rule_issue(
                        ErrorCode.INTERPRETATION_CLARIFICATION_CANDIDATES,
                        "/ambiguity/clarification_question",
                        f"{ctx.labels[alias]} matched no catalog entry: the question must name "
                        f"{d.term!r} as the report wrote it, so the reporter can say what it is",
                        alias,
                    )
                )
            continue
        shown = d.candidate_identities[:CLARIFICATION_MAX_CANDIDATES]
        labels = {c.identity: c.name for c in names.get(alias, [])} if with_names else {}
        missing = [i for i in shown if not _number_in(text, i)]
        missing += [
            i for i in shown if i in labels and i not in missing and not _contains(text, labels[i])
        ]
        if missing:
            wanted = ", ".join(f"{i} ({labels[i]!r})" if i in labels else str(i) for i in shown)
            more = (
                f" (first {len(shown)} of {len(d.candidate_identities)})"
                if len(d.candidate_identities) > len(shown)
                else ""
            )
            issues.append(
                rule_issue(
                    ErrorCode.INTERPRETATION_CLARIFICATION_CANDIDATES,
                    "/ambiguity/clarification_question",
                    f"the question must name the competing candidates of {ctx.labels[alias]} "
                    f"with their ids{' and names' if labels else ''}{more}, so a triager can "
                    f"answer it in one line: {wanted}",
                    alias,
                )
            )
    return issues
