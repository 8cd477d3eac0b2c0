"""The controller's rules for plans and assessments (ARCHITECTURE 6.1 and 6.4). Pure.

Each validator returns a list of :class:`Finding`; an empty list means accepted. Every rule has its
own code (``PLAN_*``, ``ASSESSMENT_*``, ``CITATION_*``; the versions that introduced them are in
:data:`vba_assets.domain.protocol.RULES`). The findings go back to the model verbatim in the
correction message, so they name the offending field (a JSON pointer), the search or mention they
concern, and say what to do instead.

Three modules; other code imports from this one:

* **Plans** are this module's: :func:`validate_plan` (6.1).
* **Assessments** are in :mod:`.assessment_rules`: :func:`validate_assessment` (6.4).
* **Citations** both check are in :mod:`.citations`: :func:`check_mention`,
  :func:`readable_sources`.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from vba_assets.domain.case.text import fold, has_format_control
from vba_assets.domain.catalog.identity_digits import digit_runs, holds_identity, refusal
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.findings import Finding
from vba_assets.domain.protocol import ProtocolSpec
from vba_assets.domain.resolution.assessment_rules import validate_assessment, words_beyond_names
from vba_assets.domain.resolution.citations import (
    check_mention,
    mention_label,
    readable_sources,
    rule_issue,
)
from vba_assets.domain.resolution.corrections import correction_issues
from vba_assets.domain.resolution.models import ProposedSearch, ResolutionPlanOutput
from vba_assets.domain.text_budget import check_budget
from vba_assets.errors import ErrorCode

#: Re-exported: callers import these from here (defined in .assessment_rules and .citations).
__all__ = [
    "check_mention",
    "mention_label",
    "readable_sources",
    "validate_assessment",
    "words_beyond_names",
]


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
            rule_issue(
                ErrorCode.PLAN_TOO_MANY_SEARCHES,
                "/searches",
                f"{len(plan.searches)} searches proposed; at most {max_searches}",
            )
        )
    seen: dict[tuple[str, ...], int] = {}
    for index, search in enumerate(plan.searches):
        check_budget()
        path, sid = f"/searches/{index}", f"Q{index + 1}"
        if search.catalog not in catalog_names:
            issues.append(
                rule_issue(
                    ErrorCode.PLAN_CATALOG_UNKNOWN,
                    f"{path}/catalog",
                    f"unknown catalog {search.catalog!r}; use one of {sorted(catalog_names)}",
                    sid,
                )
            )
        if search.term != search.term.strip() or any(c in search.term for c in "\n\r\t"):
            issues.append(
                rule_issue(
                    ErrorCode.PLAN_TERM_MALFORMED,
                    f"{path}/term",
                    "a term is one line without outer whitespace",
                    sid,
                )
            )
        if has_format_control(search.term):
            issues.append(
                rule_issue(
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
                rule_issue(
                    ErrorCode.PLAN_DUPLICATE_SEARCH,
                    f"{path}/term",
                    f"duplicate of /searches/{seen[key]} (same term and catalog)",
                    sid,
                )
            )
        seen.setdefault(key, index)
        corrected, grounded = correction_issues(search, path, sid)  # v6: corrected_from
        issues += corrected
        for m_index, mention in enumerate(search.mentions):
            check_budget()
            m_path = f"{path}/mentions/{m_index}"
            mention_issues = check_mention(mention, sources, m_path, aliases, sid)
            issues.extend(mention_issues)
            if (
                not mention_issues
                and m_index not in grounded
                and fold(search.term) not in fold(mention.quote)
            ):
                issues.append(
                    rule_issue(
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
                    rule_issue(
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
    if holds_identity(link.quote, identity):
        return []
    refused = [
        refusal(link.quote[run.start : run.end])
        for run in digit_runs(link.quote)
        if run.identity is None
    ]
    why = f" (not an identity: {'; '.join(refused)})" if refused else ""
    return [
        rule_issue(
            ErrorCode.PLAN_REFERENCE_NOT_IN_LINK,
            f"{path}/identity",
            f"identity {identity} does not occur as a whole number in the cited link "
            f"{link.quote!r}{why}; cite the span of the report that holds the id (the link or "
            "the id written beside the name)",
            f"{sid} {mention_label(link)}",
        )
    ]
