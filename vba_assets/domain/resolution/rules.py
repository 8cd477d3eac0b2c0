"""The controller's rules for plans and assessments (ARCHITECTURE 6.1 and 6.4). Pure.

Each validator returns a list of :class:`ValidationIssue`; an empty list means accepted. The issues go
back to the model verbatim in the correction message, so they name the offending field (a JSON pointer)
and say what to do instead.
"""

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from vba_assets.config import CatalogConfig
from vba_assets.domain.case.text import FORMAT_CONTROL_CODEPOINTS
from vba_assets.domain.llm.contract import ValidationIssue
from vba_assets.domain.resolution.models import (
    CandidateIndex,
    MentionCitation,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
    SearchAssessmentOutput,
    SearchCandidates,
)
from vba_assets.errors import ErrorCode

_RULES = ErrorCode.LLM_OUTPUT_RULES


def _issue(path: str, message: str) -> ValidationIssue:
    return ValidationIssue(code=_RULES, path=path, message=message)


def readable_sources(case_doc: Mapping[str, Any]) -> dict[str, str]:
    """``alias -> normalized text`` of every source the model may read."""
    return {
        source["alias"]: source["text"]
        for source in case_doc.get("sources", [])
        if source.get("readable") and isinstance(source.get("text"), str)
    }


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def _has_format_control(text: str) -> bool:
    return any(ord(char) in FORMAT_CONTROL_CODEPOINTS for char in text)


def check_mention(
    mention: MentionCitation, sources: Mapping[str, str], path: str, all_aliases: Sequence[str]
) -> list[ValidationIssue]:
    """A mention must be an exact, visible span of a readable source."""
    if mention.source not in sources:
        state = "is not readable" if mention.source in all_aliases else "does not exist"
        return [
            _issue(f"{path}/source", f"source {mention.source} {state}; cite a readable source")
        ]
    text = sources[mention.source]
    if mention.end <= mention.start or mention.end > len(text):
        return [
            _issue(
                f"{path}/end",
                f"span [{mention.start}, {mention.end}) is outside {mention.source} "
                f"({len(text)} characters)",
            )
        ]
    span = text[mention.start : mention.end]
    if span != mention.quote:
        found = text.find(mention.quote)
        hint = f"; that quote starts at offset {found}" if found >= 0 else ""
        return [
            _issue(
                f"{path}/quote",
                f"{mention.source}[{mention.start}:{mention.end}] is {span!r}, not "
                f"{mention.quote!r}{hint}",
            )
        ]
    if _has_format_control(span):
        return [
            _issue(
                f"{path}/quote",
                "the span contains an invisible zero-width or bidi control character; "
                "a grounded span never crosses one",
            )
        ]
    return []


def validate_plan(
    plan: ResolutionPlanOutput,
    case_doc: Mapping[str, Any],
    catalogs: Sequence[CatalogConfig],
    max_searches: int,
) -> list[ValidationIssue]:
    """Grounding rules of 6.1: every term occurs in every span it cites; catalogs are configured."""
    sources = readable_sources(case_doc)
    aliases = [source["alias"] for source in case_doc.get("sources", [])]
    catalog_names = {catalog.name for catalog in catalogs}
    issues: list[ValidationIssue] = []
    if len(plan.searches) > max_searches:
        issues.append(
            _issue("/searches", f"{len(plan.searches)} searches proposed; at most {max_searches}")
        )
    seen: dict[tuple[str, str], int] = {}
    for index, search in enumerate(plan.searches):
        path = f"/searches/{index}"
        if search.catalog not in catalog_names:
            issues.append(
                _issue(
                    f"{path}/catalog",
                    f"unknown catalog {search.catalog!r}; use one of {sorted(catalog_names)}",
                )
            )
        if search.term != search.term.strip() or any(c in search.term for c in "\n\r\t"):
            issues.append(_issue(f"{path}/term", "a term is one line without outer whitespace"))
        if _has_format_control(search.term):
            issues.append(
                _issue(f"{path}/term", "the term contains a zero-width or bidi control character")
            )
        key = (_fold(search.term), search.catalog)
        if key in seen:
            issues.append(
                _issue(
                    f"{path}/term",
                    f"duplicate of /searches/{seen[key]} (same term and catalog)",
                )
            )
        seen.setdefault(key, index)
        for m_index, mention in enumerate(search.mentions):
            m_path = f"{path}/mentions/{m_index}"
            mention_issues = check_mention(mention, sources, m_path, aliases)
            issues.extend(mention_issues)
            if not mention_issues and _fold(search.term) not in _fold(mention.quote):
                issues.append(
                    _issue(
                        f"{path}/term",
                        f"term {search.term!r} does not occur in the cited quote "
                        f"{mention.quote!r}; search only names the report itself contains",
                    )
                )
    return issues


def _assessment_issues(
    verdict: SearchAssessmentOutput,
    search: SearchCandidates,
    mentions: Sequence[MentionCitation],
    sources: Mapping[str, str],
    path: str,
) -> list[ValidationIssue]:
    ids = dict(zip(search.candidate_ids, search.candidates, strict=True))
    issues: list[ValidationIssue] = []
    if verdict.status == "selected":
        if search.truncated:
            return [
                _issue(
                    f"{path}/status",
                    f"{search.search_id} was truncated (more rows matched than were captured): "
                    "it cannot produce a unique selection; answer 'ambiguous'",
                )
            ]
        candidate = ids.get(verdict.candidate_id or "")
        if candidate is None:
            return [
                _issue(
                    f"{path}/candidate_id",
                    f"{verdict.candidate_id!r} is not a candidate of {search.search_id}; "
                    f"choose one of {search.candidate_ids} or answer 'ambiguous'/'no_match'",
                )
            ]
        if verdict.capture != search.capture_alias:
            issues.append(
                _issue(
                    f"{path}/capture",
                    f"the capture of {search.search_id} is {search.capture_alias}",
                )
            )
        if verdict.capture_row != candidate.source_index:
            issues.append(
                _issue(
                    f"{path}/capture_row",
                    f"{verdict.candidate_id} is row {candidate.source_index} of "
                    f"{search.capture_alias}",
                )
            )
        if verdict.mention is None or verdict.mention not in mentions:
            issues.append(
                _issue(f"{path}/mention", f"cite one of the mentions of {search.search_id} exactly")
            )
        if not verdict.evidence:
            issues.append(
                _issue(f"{path}/evidence", "a selection needs report context, not a similar name")
            )
        for e_index, evidence in enumerate(verdict.evidence):
            text = sources.get(evidence.source)
            if text is None or evidence.quote not in text:
                issues.append(
                    _issue(
                        f"{path}/evidence/{e_index}",
                        f"quote not found verbatim in readable source {evidence.source}",
                    )
                )
        if verdict.evidence and all(
            _fold(e.quote).strip() in {_fold(candidate.name), _fold(search.term)}
            for e in verdict.evidence
        ):
            issues.append(
                _issue(
                    f"{path}/evidence",
                    "the evidence is only the name itself; cite the context that identifies it",
                )
            )
    else:
        if verdict.candidate_id is not None or verdict.capture is not None:
            issues.append(
                _issue(f"{path}/candidate_id", f"'{verdict.status}' selects no candidate")
            )
        unknown = [c for c in verdict.competing_candidate_ids if c not in ids]
        if unknown:
            issues.append(
                _issue(
                    f"{path}/competing_candidate_ids",
                    f"{unknown} are not candidates of {search.search_id}",
                )
            )
        if (
            verdict.status == "ambiguous"
            and search.candidates
            and not verdict.competing_candidate_ids
        ):
            issues.append(
                _issue(
                    f"{path}/competing_candidate_ids",
                    "'ambiguous' names the candidates that remain possible",
                )
            )
        if verdict.status == "no_match" and verdict.competing_candidate_ids:
            issues.append(
                _issue(f"{path}/competing_candidate_ids", "'no_match' lists no candidates")
            )
    return issues


def validate_assessment(
    assessment: ResolutionAssessmentOutput,
    index: CandidateIndex,
    plan: ResolutionPlanOutput,
    case_doc: Mapping[str, Any],
) -> list[ValidationIssue]:
    """Rules of 6.4: each search assessed once; selections are real candidates with citations."""
    sources = readable_sources(case_doc)
    by_id = {search.search_id: search for search in index.searches}
    mentions = {
        f"Q{number}": search.mentions for number, search in enumerate(plan.searches, start=1)
    }
    issues: list[ValidationIssue] = []
    seen: set[str] = set()
    for position, verdict in enumerate(assessment.assessments):
        path = f"/assessments/{position}"
        if verdict.search_id not in by_id:
            issues.append(_issue(f"{path}/search_id", f"unknown search {verdict.search_id}"))
            continue
        if verdict.search_id in seen:
            issues.append(_issue(f"{path}/search_id", f"{verdict.search_id} is assessed twice"))
            continue
        seen.add(verdict.search_id)
        issues += _assessment_issues(
            verdict, by_id[verdict.search_id], mentions[verdict.search_id], sources, path
        )
    missing = [search_id for search_id in by_id if search_id not in seen]
    if missing:
        issues.append(
            _issue("/assessments", f"every search must be assessed once; missing {missing}")
        )
    return issues
