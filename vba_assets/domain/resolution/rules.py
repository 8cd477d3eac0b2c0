"""The controller's rules for plans and assessments (ARCHITECTURE 6.1 and 6.4). Pure.

Each validator returns a list of :class:`Finding`; an empty list means accepted. Every rule has its
own code (``PLAN_*``, ``ASSESSMENT_*``, ``CITATION_*``; the versions that introduced them are in
:data:`vba_assets.domain.protocol.RULES`). The findings go back to the model verbatim in the
correction message, so they name the offending field (a JSON pointer), the search or mention they
concern, and say what to do instead.
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any

from vba_assets.config import CatalogConfig
from vba_assets.domain.case.text import FORMAT_CONTROL_CODEPOINTS, fold
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.findings import Finding
from vba_assets.domain.protocol import ProtocolSpec
from vba_assets.domain.resolution.context import candidate_names, link_agrees
from vba_assets.domain.resolution.links import holds_identity, report_words
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    MentionCitation,
    ProposedSearch,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
    SearchAssessmentOutput,
    SearchCandidates,
)
from vba_assets.errors import ErrorCode


def _issue(code: ErrorCode, path: str, message: str, subject: str | None = None) -> Finding:
    return Finding(code=code, path=path, message=message, subject=subject)


def readable_sources(case_doc: Mapping[str, Any]) -> dict[str, str]:
    """``alias -> normalized text`` of every source the model may read."""
    return {
        source["alias"]: source["text"]
        for source in case_doc.get("sources", [])
        if source.get("readable") and isinstance(source.get("text"), str)
    }


def _has_format_control(text: str) -> bool:
    return any(ord(char) in FORMAT_CONTROL_CODEPOINTS for char in text)


def mention_label(mention: MentionCitation) -> str:
    """``S3[10:27]``: how findings name a mention."""
    return f"{mention.source}[{mention.start}:{mention.end}]"


def check_mention(
    mention: MentionCitation,
    sources: Mapping[str, str],
    path: str,
    all_aliases: Sequence[str],
    owner: str | None = None,
) -> list[Finding]:
    """A mention must be an exact, visible span of a readable source (``owner``: its search)."""
    subject = f"{owner} {mention_label(mention)}" if owner else mention_label(mention)
    if mention.source not in sources:
        state = "is not readable" if mention.source in all_aliases else "does not exist"
        return [
            _issue(
                ErrorCode.CITATION_SOURCE_UNREADABLE,
                f"{path}/source",
                f"source {mention.source} {state}; cite a readable source",
                subject,
            )
        ]
    text = sources[mention.source]
    if mention.end <= mention.start or mention.end > len(text):
        return [
            _issue(
                ErrorCode.CITATION_SPAN_OUT_OF_RANGE,
                f"{path}/end",
                f"span [{mention.start}, {mention.end}) is outside {mention.source} "
                f"({len(text)} characters)",
                subject,
            )
        ]
    span = text[mention.start : mention.end]
    if span != mention.quote:
        found = text.find(mention.quote)
        hint = f"; that quote starts at offset {found}" if found >= 0 else ""
        return [
            _issue(
                ErrorCode.CITATION_SPAN_MISMATCH,
                f"{path}/quote",
                f"{mention.source}[{mention.start}:{mention.end}] is {span!r}, not "
                f"{mention.quote!r}{hint}",
                subject,
            )
        ]
    if _has_format_control(span):
        return [
            _issue(
                ErrorCode.CITATION_INVISIBLE_CHARACTER,
                f"{path}/quote",
                "the span contains an invisible zero-width or bidi control character; "
                "a grounded span never crosses one",
                subject,
            )
        ]
    return []


def validate_plan(
    plan: ResolutionPlanOutput,
    case_doc: Mapping[str, Any],
    catalogs: Sequence[CatalogConfig],
    max_searches: int,
    spec: ProtocolSpec,
) -> list[Finding]:
    """Grounding rules of 6.1 (those of ``spec``'s version): every term occurs in every span it
    cites; catalogs are configured."""
    return [
        f for f in _plan_findings(plan, case_doc, catalogs, max_searches) if spec.applies(f.code)
    ]


def _plan_findings(
    plan: ResolutionPlanOutput,
    case_doc: Mapping[str, Any],
    catalogs: Sequence[CatalogConfig],
    max_searches: int,
) -> list[Finding]:
    sources = readable_sources(case_doc)
    aliases = [source["alias"] for source in case_doc.get("sources", [])]
    catalog_names = {catalog.name for catalog in catalogs}
    issues: list[Finding] = []
    if len(plan.searches) > max_searches:
        issues.append(
            _issue(
                ErrorCode.PLAN_TOO_MANY_SEARCHES,
                "/searches",
                f"{len(plan.searches)} searches proposed; at most {max_searches}",
            )
        )
    seen: dict[tuple[str, ...], int] = {}
    for index, search in enumerate(plan.searches):
        path, sid = f"/searches/{index}", f"Q{index + 1}"
        if search.catalog not in catalog_names:
            issues.append(
                _issue(
                    ErrorCode.PLAN_CATALOG_UNKNOWN,
                    f"{path}/catalog",
                    f"unknown catalog {search.catalog!r}; use one of {sorted(catalog_names)}",
                    sid,
                )
            )
        if search.term != search.term.strip() or any(c in search.term for c in "\n\r\t"):
            issues.append(
                _issue(
                    ErrorCode.PLAN_TERM_MALFORMED,
                    f"{path}/term",
                    "a term is one line without outer whitespace",
                    sid,
                )
            )
        if _has_format_control(search.term):
            issues.append(
                _issue(
                    ErrorCode.PLAN_TERM_MALFORMED,
                    f"{path}/term",
                    "the term contains a zero-width or bidi control character",
                    sid,
                )
            )
        key: tuple[str, ...] = (fold(search.term), search.catalog)
        if search.reference is not None:
            key = (*key, str(search.reference.identity))
        if key in seen:
            issues.append(
                _issue(
                    ErrorCode.PLAN_DUPLICATE_SEARCH,
                    f"{path}/term",
                    f"duplicate of /searches/{seen[key]} (same term and catalog)",
                    sid,
                )
            )
        seen.setdefault(key, index)
        for m_index, mention in enumerate(search.mentions):
            m_path = f"{path}/mentions/{m_index}"
            mention_issues = check_mention(mention, sources, m_path, aliases, sid)
            issues.extend(mention_issues)
            if not mention_issues and fold(search.term) not in fold(mention.quote):
                issues.append(
                    _issue(
                        ErrorCode.PLAN_TERM_NOT_IN_QUOTE,
                        f"{path}/term",
                        f"term {search.term!r} does not occur in the cited quote "
                        f"{mention.quote!r}; search only names the report itself contains",
                        f"{sid} {mention_label(mention)}",
                    )
                )
        if search.reference is not None:
            issues += _reference_issues(search, sources, f"{path}/reference", aliases, sid)
    for index, name in enumerate(plan.unsearched):
        path = f"/unsearched/{index}"
        for m_index, mention in enumerate(name.mentions):
            m_path = f"{path}/mentions/{m_index}"
            mention_issues = check_mention(mention, sources, m_path, aliases, path)
            issues.extend(mention_issues)
            if not mention_issues and fold(name.term) not in fold(mention.quote):
                issues.append(
                    _issue(
                        ErrorCode.PLAN_TERM_NOT_IN_QUOTE,
                        f"{path}/term",
                        f"unsearched name {name.term!r} does not occur in the cited quote "
                        f"{mention.quote!r}; list only names the report itself contains",
                        f"{path} {mention_label(mention)}",
                    )
                )
    return issues


def _reference_issues(
    search: ProposedSearch,
    sources: Mapping[str, str],
    path: str,
    aliases: Sequence[str],
    sid: str,
) -> list[Finding]:
    """An identity reference cites a grounded span that holds its identity's digits (v4)."""
    assert search.reference is not None
    link = search.reference.link
    found = check_mention(link, sources, f"{path}/link", aliases, sid)
    if found:
        return found
    identity = search.reference.identity
    if not holds_identity(link.quote, identity):
        return [
            _issue(
                ErrorCode.PLAN_REFERENCE_NOT_IN_LINK,
                f"{path}/identity",
                f"identity {identity} does not occur as a whole number in the cited link "
                f"{link.quote!r}; cite the span of the report that holds the id (the link or "
                "the id written beside the name)",
                f"{sid} {mention_label(link)}",
            )
        ]
    return []


def _selection_issues(
    verdict: SearchAssessmentOutput,
    search: SearchCandidates,
    proposed: ProposedSearch,
    sources: Mapping[str, str],
    path: str,
) -> list[Finding]:
    mentions = proposed.mentions
    sid = search.search_id
    ids = dict(zip(search.candidate_ids, search.candidates, strict=True))
    if search.truncated:
        return [
            _issue(
                ErrorCode.ASSESSMENT_TRUNCATED_SELECTION,
                f"{path}/status",
                f"{sid} was truncated (more rows matched than were captured): "
                "it cannot produce a unique selection; answer 'ambiguous'",
                sid,
            )
        ]
    candidate = ids.get(verdict.candidate_id or "")
    if candidate is None:
        return [
            _issue(
                ErrorCode.ASSESSMENT_NOT_A_CANDIDATE,
                f"{path}/candidate_id",
                f"{verdict.candidate_id!r} is not a candidate of {sid}; "
                f"choose one of {search.candidate_ids} or answer 'ambiguous'/'no_match'",
                sid,
            )
        ]
    issues: list[Finding] = []
    if verdict.capture != search.capture_alias:
        issues.append(
            _issue(
                ErrorCode.ASSESSMENT_WRONG_CAPTURE,
                f"{path}/capture",
                f"the capture of {sid} is {search.capture_alias}",
                sid,
            )
        )
    if verdict.capture_row != candidate.source_index:
        issues.append(
            _issue(
                ErrorCode.ASSESSMENT_WRONG_CAPTURE,
                f"{path}/capture_row",
                f"{verdict.candidate_id} is row {candidate.source_index} of {search.capture_alias}",
                sid,
            )
        )
    if verdict.mention is None or verdict.mention not in mentions:
        issues.append(
            _issue(
                ErrorCode.ASSESSMENT_MENTION_NOT_CITED,
                f"{path}/mention",
                f"cite one of the mentions of {sid} exactly",
                sid,
            )
        )
    if not verdict.evidence:
        issues.append(
            _issue(
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
                _issue(
                    ErrorCode.CITATION_QUOTE_NOT_FOUND,
                    f"{path}/evidence/{e_index}",
                    f"quote not found verbatim in readable source {evidence.source}",
                    sid,
                )
            )
    if proposed.reference is not None and not link_agrees(proposed, [candidate]):
        linked = candidate_names(candidate)
        issues.append(
            _issue(
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
    if verdict.evidence and all(
        fold(e.quote).strip() in {fold(candidate.name), fold(search.term)} for e in verdict.evidence
    ):
        issues.append(
            _issue(
                ErrorCode.ASSESSMENT_NO_EVIDENCE,
                f"{path}/evidence",
                "the evidence is only the name itself; cite the context that identifies it",
                sid,
            )
        )
    elif verdict.evidence and not any(
        words_beyond_names(
            e.quote, [candidate.name, *(row.name for row in candidate.also_matched), search.term]
        )
        for e in verdict.evidence
    ):
        names = ", ".join(repr(n) for n in dict.fromkeys([candidate.name, search.term]))
        issues.append(
            _issue(
                ErrorCode.ASSESSMENT_EVIDENCE_NAME_ONLY,
                f"{path}/evidence",
                f"similar names alone are insufficient: once case, punctuation and spacing are "
                f"ignored, the evidence holds only the name ({names}); quote report words beyond "
                "it that identify this candidate (the quest, place, level or what it does)",
                sid,
            )
        )
    return issues


_WORD = re.compile(r"\w+")


def words_beyond_names(quote: str, names: Sequence[str]) -> list[str]:
    """The words of ``quote`` left once every occurrence of ``names`` is removed, compared after
    normalising case, punctuation and whitespace (protocol v4: similar names alone are
    insufficient; ``"Wild Wolpertinger!"`` leaves nothing)."""
    text = f" {' '.join(_WORD.findall(normalize_for_match(quote)))} "
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
        return _issue(ErrorCode.ASSESSMENT_STATUS_FIELDS, f"{path}/{field}", message, sid)

    issues: list[Finding] = []
    if verdict.candidate_id is not None or verdict.capture is not None:
        issues.append(issue("candidate_id", f"'{verdict.status}' selects no candidate"))
    unknown = [c for c in verdict.competing_candidate_ids if c not in search.candidate_ids]
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
    proposed = {f"Q{number}": search for number, search in enumerate(plan.searches, start=1)}
    issues: list[Finding] = []
    seen: set[str] = set()
    for position, verdict in enumerate(assessment.assessments):
        path, sid = f"/assessments/{position}", verdict.search_id
        if sid not in by_id:
            issues.append(
                _issue(
                    ErrorCode.ASSESSMENT_UNKNOWN_SEARCH,
                    f"{path}/search_id",
                    f"unknown search {sid}",
                    sid,
                )
            )
            continue
        if sid in seen:
            issues.append(
                _issue(
                    ErrorCode.ASSESSMENT_DUPLICATE_SEARCH,
                    f"{path}/search_id",
                    f"{sid} is assessed twice",
                    sid,
                )
            )
            continue
        seen.add(sid)
        if verdict.status == "selected":
            issues += _selection_issues(verdict, by_id[sid], proposed[sid], sources, path)
        else:
            issues += _abstention_issues(verdict, by_id[sid], path)
    missing = [search_id for search_id in by_id if search_id not in seen]
    if missing:
        issues.append(
            _issue(
                ErrorCode.ASSESSMENT_MISSING_SEARCH,
                "/assessments",
                f"every search must be assessed once; missing {missing}",
                ", ".join(missing),
            )
        )
    return [finding for finding in issues if spec.applies(finding.code)]
