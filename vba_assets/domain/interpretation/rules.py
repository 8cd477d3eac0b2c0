"""The controller's rules for the interpretation (ARCHITECTURE 7).

:func:`validate_interpretation` returns findings, one code per rule (``INTERPRETATION_*``,
``CITATION_*``; the version that introduced each is in :data:`vba_assets.domain.protocol.RULES`),
with a JSON pointer and a message that says what to do; they go back to the model in the correction
loop. Rules:

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
  relative date. From protocol v6 (``ProtocolSpec.multilingual_causal``) the phrases of every
  reporter language of :data:`.causal.CAUSAL_WORDS` (de, es, fr, pt, ru, pl, zh, ko) are refused
  too, as ``INTERPRETATION_CAUSAL_WORDING_MULTILINGUAL`` naming each phrase and its language; a
  verbatim quote of the report inside quote marks is the report's content and is not counted.
* Dates: each time reference equals ``interpretation_models.resolve_relative_date`` of its quote,
  anchored to the frozen ``reported_at`` in the reporter's offset, never the wall clock. An
  expression the resolver does not know has null dates and must be listed in ``unknowns``.

Protocol v4 (``ProtocolSpec.complete_interpretation``) judges the reply with
:class:`~vba_assets.domain.interpretation.models.InterpretationOutputV4` and adds:

* Dates and the restatement's relative words in the reporters' eight languages
  (:mod:`.dates`, dateparser) instead of the English/German resolver.
* Scope with consequences: ``in_scope`` false names one ``out_of_scope_class`` (null when in
  scope); an out-of-scope reply has no affected subject and no sub-task; an in-scope reply has at
  least one sub-task.
* The restatement names every selected affected subject (its catalog name or the report's own
  words for it, compared without case, punctuation and spacing) and holds no alias code (``S2``,
  ``F1``, ``N1``, ``D1``, ``Q1``) of the case.
* An ambiguous reply's clarification names, for each unresolved affected subject, its competing
  candidates (every identity, and every name the context gives) or, when nothing matched, the name
  the report used, so a triager can answer it in one line.

The grounding, alias-retention and role rules are in :mod:`.grounding`; the scope, restatement
and clarification rules of protocol v4 in :mod:`.rules_v4`; the wording and date rules are here.
:func:`interpretation_validator` wraps schema and rules into the ``validate`` callable of
:func:`~vba_assets.domain.llm.call.run_stage`.
"""

import re
from collections.abc import Callable, Sequence
from typing import Any

from vba_assets.domain.findings import Finding
from vba_assets.domain.interpretation.causal import CAUSAL_PHRASES, causal_texts, causal_words
from vba_assets.domain.interpretation.dates import relative_words, resolve_quote
from vba_assets.domain.interpretation.grounding import (
    RuleContext,
    citation_issues,
    entity_issues,
    quote_issues,
    role_issues,
    rule_context,
    rule_issue,
)
from vba_assets.domain.interpretation.models import (
    DateRange,
    InterpretationOutput,
    interpretation_output_model,
    local_report_time,
    relative_expressions,
    resolve_relative_date,
    weekday_name,
)
from vba_assets.domain.interpretation.rules_v4 import (
    clarification_issues,
    clarification_needs_names,
    restatement_issues,
    scope_issues,
)
from vba_assets.domain.limits import CLARIFICATION_MAX_CANDIDATES
from vba_assets.domain.llm.contract import model_validator_for
from vba_assets.domain.protocol import ProtocolSpec
from vba_assets.domain.stage_context import InterpretationStageContext
from vba_assets.domain.text_budget import check_budget
from vba_assets.errors import ErrorCode

#: Re-exported: callers import these from here (defined in .rules_v4 and domain.limits).
__all__ = [
    "CAUSAL_PHRASES",
    "CLARIFICATION_MAX_CANDIDATES",
    "causal_check",
    "causal_texts",
    "clarification_needs_names",
]

# --- wording --------------------------------------------------------------------------------------

#: The English causal phrases (:data:`.causal.CAUSAL_PHRASES`) of protocols v1-v5. A phrase inside
#: a double-quoted passage that occurs verbatim in a readable source is the reporter's own words
#: and is not counted. Protocol v6 matches every language of :data:`.causal.CAUSAL_WORDS`.
_CAUSAL = re.compile(
    r"(?<!\w)(?:"
    + "|".join(r"\s+".join(map(re.escape, p.split())) for p in CAUSAL_PHRASES)
    + r")(?!\w)",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"\n]+)\"|“([^”\n]+)”|„([^“”\n]+)[“”]")


def causal_phrases(text: str, sources: Sequence[str] = ()) -> list[str]:
    """The :data:`CAUSAL_PHRASES` in ``text``, outside quotes copied from ``sources``."""
    check_budget()  # per text of the reply, each searched for every source's quotes

    def blank(match: re.Match[str]) -> str:
        inner = next(group for group in match.groups() if group is not None)
        return " " * len(match.group(0)) if any(inner in s for s in sources) else match.group(0)

    return [m.group(0) for m in _CAUSAL.finditer(_QUOTED.sub(blank, text))]


def causal_check(multilingual: bool) -> Callable[[str, Sequence[str]], list[str]]:
    """The causal-wording matcher of a protocol: :func:`.causal.causal_texts` (every language,
    ``ProtocolSpec.multilingual_causal``, v6 on) or :func:`causal_phrases` (English, v1-v5)."""
    return causal_texts if multilingual else causal_phrases


def _causal_issues(
    path: str, text: str, sources: Sequence[str], spec: ProtocolSpec
) -> list[Finding]:
    """The causal-wording findings of one text: English phrases under
    ``INTERPRETATION_CAUSAL_WORDING`` (every protocol); from v6 the other languages' phrases under
    ``INTERPRETATION_CAUSAL_WORDING_MULTILINGUAL``, each named with its language."""
    fix = (
        "state what was reported or looked up; causes, hypotheses and fixes belong to the next "
        "phase"
    )
    if not spec.multilingual_causal:
        hits = causal_phrases(text, sources)
        english, other = hits, []
    else:
        found = causal_words(text, sources)
        english = [h.words for h in found if h.language == "en"]
        other = [f"{h.words!r} ({h.language})" for h in found if h.language != "en"]
    issues = []
    if english:
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_CAUSAL_WORDING,
                path,
                f"causal or diagnostic wording ({', '.join(repr(h) for h in english)}) is not "
                f"allowed: {fix}",
            )
        )
    if other:
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_CAUSAL_WORDING_MULTILINGUAL,
                path,
                f"causal or diagnostic wording ({', '.join(other)}) is not allowed in any "
                f"language: {fix}; a quote of the report counts as the report's words only when "
                "it is copied verbatim inside quote marks",
            )
        )
    return issues


# --- dates and wording ----------------------------------------------------------------------------


def _time_issues(
    output: InterpretationOutput,
    stage: InterpretationStageContext,
    ctx: RuleContext,
    spec: ProtocolSpec,
) -> list[Finding]:
    issues: list[Finding] = []
    case = stage.case
    anchor = local_report_time(case.reported_at, case.reported_at_offset)
    for index, ref in enumerate(output.time_references):
        check_budget()
        path = f"/time_references/{index}"
        issues += quote_issues(ref.source, ref.quote, ctx, path)
        expected: DateRange | None
        if spec.complete_interpretation:
            source_text = ctx.readable.get(ref.source)
            expected = resolve_quote(
                ref.quote, case.reported_at, case.reported_at_offset, source_text
            )
        else:
            expected = resolve_relative_date(ref.quote, case.reported_at, case.reported_at_offset)
        if expected is None:
            if ref.resolved_start is not None or ref.resolved_end is not None:
                issues.append(
                    rule_issue(
                        ErrorCode.INTERPRETATION_DATE_UNRESOLVED,
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
                    rule_issue(
                        ErrorCode.INTERPRETATION_DATE_UNRESOLVED,
                        "/unknowns",
                        f"the unresolved time expression {ref.quote!r} must be listed in unknowns: "
                        "add an unknown with ref null whose description quotes it",
                    )
                )
            continue
        for key, value in (("resolved_start", expected.start), ("resolved_end", expected.end)):
            if getattr(ref, key) != value:
                issues.append(
                    rule_issue(
                        ErrorCode.INTERPRETATION_DATE_MISMATCH,
                        f"{path}/{key}",
                        f"{ref.quote!r} resolves to {expected.start.isoformat()}.."
                        f"{expected.end.isoformat()}: {key} must be {value.isoformat()} (the "
                        f"reporter's local date of reported_at is {anchor.date().isoformat()}, "
                        f"{weekday_name(anchor.date())})",
                    )
                )
    return issues


def _wording_issues(
    output: InterpretationOutput, ctx: RuleContext, spec: ProtocolSpec
) -> list[Finding]:
    sources = list(ctx.readable.values())
    texts = [
        ("/restatement", output.restatement),
        *((f"/observations/{i}/statement", o.statement) for i, o in enumerate(output.observations)),
        *((f"/sub_tasks/{i}", task) for i, task in enumerate(output.sub_tasks)),
    ]
    issues = [issue for path, text in texts for issue in _causal_issues(path, text, sources, spec)]
    relative = (
        relative_words(output.restatement)
        if spec.complete_interpretation
        else relative_expressions(output.restatement)
    )
    if relative:
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_RELATIVE_DATE_IN_RESTATEMENT,
                "/restatement",
                f"replace the relative date expression(s) {relative} with the resolved dates "
                "(YYYY-MM-DD) so the restatement stands alone",
            )
        )
    issues += [
        rule_issue(
            ErrorCode.INTERPRETATION_SUBTASK_NOT_QUESTION,
            f"/sub_tasks/{i}",
            "a sub-task is a question for the next phase: end it with '?'",
        )
        for i, task in enumerate(output.sub_tasks)
        if not task.rstrip().endswith("?")
    ]
    question = output.ambiguity.clarification_question
    if output.ambiguity.is_ambiguous and not (question or "").strip():
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_CLARIFICATION,
                "/ambiguity/clarification_question",
                "an ambiguous report needs a clarification question to the reporter",
            )
        )
    elif output.ambiguity.is_ambiguous and not (question or "").rstrip().endswith("?"):
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_CLARIFICATION,
                "/ambiguity/clarification_question",
                "end the question with '?'",
            )
        )
    elif not output.ambiguity.is_ambiguous and question is not None:
        issues.append(
            rule_issue(
                ErrorCode.INTERPRETATION_CLARIFICATION,
                "/ambiguity/clarification_question",
                "only an ambiguous report has a clarification question: set it to null, or set "
                "is_ambiguous to true",
            )
        )
    return issues


# --- all rules ------------------------------------------------------------------------------------


def validate_interpretation(
    output: InterpretationOutput, context: InterpretationStageContext, spec: ProtocolSpec
) -> list[Finding]:
    """Every rule of the module docstring that ``spec``'s version has; empty means accepted."""
    ctx = rule_context(context)
    findings = [
        *entity_issues(output, ctx),
        *role_issues(output, ctx),
        *citation_issues(output, ctx),
        *_time_issues(output, context, ctx, spec),
        *_wording_issues(output, ctx, spec),
    ]
    if spec.complete_interpretation:
        findings += [
            *scope_issues(output),
            *restatement_issues(output, context, ctx, bounded=spec.bounded_lists),
            *clarification_issues(output, context, ctx, bounded=spec.bounded_lists),
        ]
    return [finding for finding in findings if spec.applies(finding.code)]


def interpretation_validator(
    context: InterpretationStageContext, spec: ProtocolSpec
) -> Callable[[Any], Any]:
    """The ``validate`` callable of ``run_stage``: the schema, then :func:`validate_interpretation`.

    The schema is the output model of ``spec`` (:class:`InterpretationOutputV4` from protocol v4).
    Returns the validated output when valid, else the list of findings.
    """
    return model_validator_for(
        interpretation_output_model(spec.complete_interpretation, spec.bounded_lists),
        lambda output: validate_interpretation(output, context, spec),
    )
