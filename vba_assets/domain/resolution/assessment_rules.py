"""The controller's rules for assessments (ARCHITECTURE 6.4). Pure.

:func:`validate_assessment` checks that every search is assessed once and that a selection is a real
candidate of its search, cited with one of the search's mentions and with report context beyond the
name itself; an abstention (``ambiguous``, ``no_match``) names only real candidates. The rules of
plans are in :mod:`.rules` (which also exports these names), the citation checks both share in
:mod:`.citations`; findings are worded as the :mod:`.rules` docstring says.
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any

from vba_assets.domain.case.text import fold
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.findings import Finding
from vba_assets.domain.protocol import ProtocolSpec
from vba_assets.domain.resolution.batched import planned_searches
from vba_assets.domain.resolution.citations import readable_sources, rule_issue
from vba_assets.domain.resolution.context import candidate_names, link_agrees
from vba_assets.domain.resolution.corrections import agrees_with_correction
from vba_assets.domain.resolution.links import report_words
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    ExactCoverage,
    ProposedSearch,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
    SearchAssessmentOutput,
    SearchCandidates,
)
from vba_assets.domain.resolution.tiebreaks import exact_tie_member, tiebreak_findings
from vba_assets.errors import ErrorCode


def _selection_issues(
    verdict: SearchAssessmentOutput,
    search: SearchCandidates,
    proposed: ProposedSearch,
    sources: Mapping[str, str],
    path: str,
    exact_on: bool = False,
) -> list[Finding]:
    mentions = proposed.mentions
    sid = search.search_id
    ids = dict(zip(search.candidate_ids, search.candidates, strict=True))
    capture_alias = search.capture_alias
    if search.truncated:
        exact = search.exact if exact_on else None
        if exact is None or not search.in_exact(verdict.candidate_id):
            return [_truncated_issue(search, exact, path)]
        # Protocol v6: only a complete, unique exact-name row may select, or one of a tie of
        # exact-name rows that cites a grounded tie-break (checked by tiebreak_findings).
        tie = verdict.tiebreak is not None and exact_tie_member(search, verdict.candidate_id)
        if not exact.unique and not tie:
            return [_exact_not_unique_issue(search, path)]
        ids = dict(zip(exact.candidate_ids, exact.candidates, strict=True))
        capture_alias = exact.capture_alias
    candidate = ids.get(verdict.candidate_id or "")
    if candidate is None:
        return [
            rule_issue(
                ErrorCode.ASSESSMENT_NOT_A_CANDIDATE,
                f"{path}/candidate_id",
                f"{verdict.candidate_id!r} is not a candidate of {sid}; "
                f"choose one of {search.candidate_ids} or answer 'ambiguous'/'no_match'",
                sid,
            )
        ]
    issues: list[Finding] = []
    if verdict.capture != capture_alias:
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_WRONG_CAPTURE,
                f"{path}/capture",
                f"the capture of {sid} is {capture_alias}",
                sid,
            )
        )
    if verdict.capture_row != candidate.source_index:
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_WRONG_CAPTURE,
                f"{path}/capture_row",
                f"{verdict.candidate_id} is row {candidate.source_index} of {capture_alias}",
                sid,
            )
        )
    if verdict.mention is None or verdict.mention not in mentions:
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_MENTION_NOT_CITED,
                f"{path}/mention",
                f"cite one of the mentions of {sid} exactly",
                sid,
            )
        )
    if not verdict.evidence:
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_NO_EVIDENCE,
                f"{path}/evidence",
                "a selection needs report context, not a similar name",
                sid,
            )
        )
    for e_index, evidence in enumerate(verdict.evidence):
        text = sources.get(evidence.source)
        if text is None or evidence.quote not in text:
            issues.append(
                rule_issue(
                    ErrorCode.CITATION_QUOTE_NOT_FOUND,
                    f"{path}/evidence/{e_index}",
                    f"quote not found verbatim in readable source {evidence.source}",
                    sid,
                )
            )
    if proposed.reference is not None and not link_agrees(proposed, [candidate]):
        linked = candidate_names(candidate)
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_LINK_DISAGREES,
                f"{path}/status",
                f"{sid} fetched the linked identity {proposed.reference.identity} "
                f"({', '.join(repr(n) for n in linked[:4])}), but the report's words for it "
                f"({', '.join(repr(w) for w in report_words(proposed)) or 'none'}) agree with "
                "none of its names: a link proves only what was linked; answer 'ambiguous' (it "
                "becomes a link_disagrees unknown)",
                sid,
            )
        )
    if proposed.corrected_from is not None and not agrees_with_correction(
        proposed.term, candidate_names(candidate)
    ):
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_CORRECTION_DISAGREES,
                f"{path}/candidate_id",
                f"{sid} searched {proposed.term!r}, a correction of "
                f"{proposed.corrected_from.quote!r}: select only a candidate one of whose names "
                f"is exactly {proposed.term!r}, else answer 'ambiguous' or 'no_match'",
                sid,
            )
        )
    written = [proposed.corrected_from.quote] if proposed.corrected_from is not None else []
    if verdict.evidence and all(
        fold(e.quote).strip() in {fold(candidate.name), fold(search.term), *map(fold, written)}
        for e in verdict.evidence
    ):
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_NO_EVIDENCE,
                f"{path}/evidence",
                "the evidence is only the name itself; cite the context that identifies it",
                sid,
            )
        )
    elif verdict.evidence and not any(
        words_beyond_names(
            e.quote,
            [candidate.name, *(row.name for row in candidate.also_matched), search.term, *written],
        )
        for e in verdict.evidence
    ):
        names = ", ".join(repr(n) for n in dict.fromkeys([candidate.name, search.term]))
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_EVIDENCE_NAME_ONLY,
                f"{path}/evidence",
                f"similar names alone are insufficient: once case, punctuation and spacing are "
                f"ignored, the evidence holds only the name ({names}); quote report words beyond "
                "it that identify this candidate (the quest, place, level or what it does)",
                sid,
            )
        )
    return issues


def _truncated_issue(search: SearchCandidates, exact: ExactCoverage | None, path: str) -> Finding:
    """A selection from a truncated capture (``exact``: its exact-name capture, protocol v6)."""
    sid = search.search_id
    also = (
        f", or select the candidate of its exact-name capture {exact.capture_alias} "
        f"({', '.join(exact.candidate_ids) or 'none'}) when that capture is marked unique"
        if exact is not None
        else ""
    )
    return rule_issue(
        ErrorCode.ASSESSMENT_TRUNCATED_SELECTION,
        f"{path}/status",
        f"{sid} was truncated (more rows matched than were captured): "
        f"it cannot produce a unique selection; answer 'ambiguous'{also}",
        sid,
    )


def _exact_not_unique_issue(search: SearchCandidates, path: str) -> Finding:
    """Protocol v6: a selection from an exact-name capture that is truncated, holds several
    entities, or none named exactly as the term."""
    assert search.exact is not None
    exact = search.exact
    why = (
        "it is truncated"
        if exact.truncated
        else f"it holds {len({c.identity for c in exact.candidates})} entities"
    )
    return rule_issue(
        ErrorCode.ASSESSMENT_EXACT_NOT_UNIQUE,
        f"{path}/candidate_id",
        f"{search.search_id}'s exact-name capture {exact.capture_alias} does not establish a "
        f"unique row ({why}, or no name equals {search.term!r}): answer 'ambiguous' naming the "
        "competing candidates",
        search.search_id,
    )


_WORD = re.compile(r"\w+")
#: Text-formatting tags without content of their own (BBCode ``[b]``, ``[color=red]``; HTML
#: ``<b>``, ``<br/>``): their letters are no words of the report.
_FORMATTING_TAG = re.compile(
    r"\[/?(?:b|i|u|s|center|code|quote|spoiler|size|color|font)(?:=[^\]\s]{0,40})?\]"
    r"|</?(?:b|i|u|s|em|strong|br|p|code|pre|blockquote|span|div|small|big|sub|sup)\s*/?>",
    re.IGNORECASE,
)


def words_beyond_names(quote: str, names: Sequence[str]) -> list[str]:
    """The words of ``quote`` left once every occurrence of ``names`` is removed, compared after
    normalising case, punctuation and whitespace, formatting tags left out (protocol v4: similar
    names alone are insufficient; ``"Wild Wolpertinger!"`` and ``"[b]Hogger[/b]"`` leave
    nothing)."""
    plain = _FORMATTING_TAG.sub(" ", quote)
    text = f" {' '.join(_WORD.findall(normalize_for_match(plain)))} "
    wanted = {" ".join(_WORD.findall(normalize_for_match(name))) for name in names}
    for name in sorted(wanted - {""}, key=lambda n: (-len(n), n)):
        while f" {name} " in text:
            text = text.replace(f" {name} ", " ")
    return text.split()


def _abstention_issues(
    verdict: SearchAssessmentOutput, search: SearchCandidates, path: str
) -> list[Finding]:
    sid = search.search_id

    def issue(field: str, message: str) -> Finding:
        return rule_issue(ErrorCode.ASSESSMENT_STATUS_FIELDS, f"{path}/{field}", message, sid)

    issues: list[Finding] = []
    if verdict.candidate_id is not None or verdict.capture is not None:
        issues.append(issue("candidate_id", f"'{verdict.status}' selects no candidate"))
    unknown = [c for c in verdict.competing_candidate_ids if search.candidate(c) is None]
    if unknown:
        issues.append(issue("competing_candidate_ids", f"{unknown} are not candidates of {sid}"))
    if verdict.status == "ambiguous" and search.candidates and not verdict.competing_candidate_ids:
        issues.append(
            issue(
                "competing_candidate_ids", "'ambiguous' names the candidates that remain possible"
            )
        )
    if verdict.status == "no_match" and verdict.competing_candidate_ids:
        issues.append(issue("competing_candidate_ids", "'no_match' lists no candidates"))
    return issues


def validate_assessment(
    assessment: ResolutionAssessmentOutput,
    index: CandidateIndex,
    plan: ResolutionPlanOutput,
    case_doc: Mapping[str, Any],
    spec: ProtocolSpec,
) -> list[Finding]:
    """Rules of 6.4 (those of ``spec``'s version): each search assessed once; selections are real
    candidates with citations."""
    sources = readable_sources(case_doc)
    by_id = {search.search_id: search for search in index.searches}
    proposed = dict(planned_searches(plan, spec.batched_exact_names))
    issues: list[Finding] = []
    seen: set[str] = set()
    for position, verdict in enumerate(assessment.assessments):
        path, sid = f"/assessments/{position}", verdict.search_id
        if sid not in by_id:
            issues.append(
                rule_issue(
                    ErrorCode.ASSESSMENT_UNKNOWN_SEARCH,
                    f"{path}/search_id",
                    f"unknown search {sid}",
                    sid,
                )
            )
            continue
        if sid in seen:
            issues.append(
                rule_issue(
                    ErrorCode.ASSESSMENT_DUPLICATE_SEARCH,
                    f"{path}/search_id",
                    f"{sid} is assessed twice",
                    sid,
                )
            )
            continue
        seen.add(sid)
        if verdict.status == "selected":
            issues += _selection_issues(
                verdict, by_id[sid], proposed[sid], sources, path, spec.exact_name_coverage
            )
            if spec.grounded_tiebreaks:  # v6: same-name rows are told apart by facts
                issues += tiebreak_findings(verdict, by_id[sid], sources, path)
        else:
            issues += _abstention_issues(verdict, by_id[sid], path)
    missing = [search_id for search_id in by_id if search_id not in seen]
    if missing:
        issues.append(
            rule_issue(
                ErrorCode.ASSESSMENT_MISSING_SEARCH,
                "/assessments",
                f"every search must be assessed once; missing {missing}",
                ", ".join(missing),
            )
        )
    return [finding for finding in issues if spec.applies(finding.code)]
