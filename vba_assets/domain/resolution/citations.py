"""Grounded citations: the checks a plan and an assessment share (ARCHITECTURE 6.1 and 6.4). Pure.

A mention the model cites must be an exact, visible span of a readable source of the case
(:func:`check_mention`); :func:`rule_issue` is how every rule of :mod:`.rules` and
:mod:`.assessment_rules` words its finding. Separate so that both rule modules read from one place
and neither imports the other.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from vba_assets.domain.case.text import has_format_control
from vba_assets.domain.findings import Finding
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.errors import ErrorCode


def rule_issue(code: ErrorCode, path: str, message: str, subject: str | None = None) -> Finding:
    """A finding of rule ``code`` at the JSON pointer ``path`` (``subject``: the search or mention
    concerned)."""
    return Finding(code=code, path=path, message=message, subject=subject)


def readable_sources(case_doc: Mapping[str, Any]) -> dict[str, str]:
    """``alias -> normalized text`` of every source the model may read."""
    return {
        source["alias"]: source["text"]
        for source in case_doc.get("sources", [])
        if source.get("readable") and isinstance(source.get("text"), str)
    }


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
            rule_issue(
                ErrorCode.CITATION_SOURCE_UNREADABLE,
                f"{path}/source",
                f"source {mention.source} {state}; cite a readable source",
                subject,
            )
        ]
    text = sources[mention.source]
    if mention.end <= mention.start or mention.end > len(text):
        return [
            rule_issue(
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
            rule_issue(
                ErrorCode.CITATION_SPAN_MISMATCH,
                f"{path}/quote",
                f"{mention.source}[{mention.start}:{mention.end}] is {span!r}, not "
                f"{mention.quote!r}{hint}",
                subject,
            )
        ]
    if has_format_control(span):
        return [
            rule_issue(
                ErrorCode.CITATION_INVISIBLE_CHARACTER,
                f"{path}/quote",
                "the span contains an invisible zero-width or bidi control character; "
                "a grounded span never crosses one",
                subject,
            )
        ]
    return []
