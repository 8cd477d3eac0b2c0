"""The quest relations of a capture (protocol v6, grounded tie-breaks; :mod:`.tiebreaks`): how
the assessment request shows them, and what the capture-provenance check asks of them. Pure.

The relations are recorded in the capture of the search whose same-name rows they tell apart
(one parameterized query over the tied identities, :mod:`vba_assets.pipeline.tiebreak_captures`);
the zone markers beside them are :mod:`.zone_facts`.
"""

import json

from vba_assets.domain.catalog.world import RelationResult, ZoneResult
from vba_assets.domain.findings import Finding
from vba_assets.domain.resolution.models import CaptureArtifact
from vba_assets.domain.resolution.same_names import capture_ties
from vba_assets.domain.resolution.zone_facts import (
    fact_result_findings,
    zone_capture_findings,
    zone_lines,
)
from vba_assets.errors import ErrorCode

#: Relation rows a capture keeps (the query asks for one more): a famous quest giver (Thrall)
#: starts and ends about 30 quests with 10 titles each.
RELATION_ROW_LIMIT = 1000


def relation_lines(relations: RelationResult) -> list[str]:
    """The quest relations as the assessment request shows them: one line per (identity,
    relation, quest) with each title and its row."""
    groups: dict[tuple[int | str, str, int], list[str]] = {}
    for index, row in enumerate(relations.rows):
        label = json.dumps(row.title, ensure_ascii=False)
        where = f"row {index}" if row.locale is None else f"{row.locale}, row {index}"
        groups.setdefault((row.identity, row.relation, row.quest), []).append(f"{label} ({where})")
    return [
        f"  - identity {identity} {relation} quest {quest}: {'; '.join(titles)}"
        for (identity, relation, quest), titles in groups.items()
    ]


def relation_capture_findings(
    capture: CaptureArtifact, grounded: bool, sid: str, artifact: str
) -> list[Finding]:
    """What a capture's ``quest_relations`` (and ``zone_markers``,
    :func:`~.zone_facts.zone_capture_findings`) must be (the asset check ``capture_provenance``):
    only under a protocol with grounded tie-breaks, exactly for the capture's tied identities,
    the parameterized relation query over them, its snapshot, its row limit and coverage."""
    relations = capture.quest_relations

    def finding(code: ErrorCode, message: str) -> Finding:
        return Finding(code=code, subject=sid, artifact=artifact, message=message)

    tied = [] if capture.result.truncated else capture_ties(capture.result.rows)
    found = zone_capture_findings(capture, tied, grounded, sid, artifact)
    if relations is None:
        return found
    if not grounded or relations.identities != tied:
        found.append(
            finding(
                ErrorCode.CAPTURE_SEARCH_DIFFERS,
                f"quest relations of {relations.identities} in a capture whose tied identities "
                f"are {tied} (protocol with grounded tie-breaks: {grounded})",
            )
        )
    if "'" in relations.sql or " IN (" not in relations.sql.upper():
        found.append(
            finding(ErrorCode.CAPTURE_SQL_NOT_TEMPLATE, "SQL is not the relation query template")
        )
    return found + fact_result_findings(relations, capture, RELATION_ROW_LIMIT, "relation", finding)


def tiebreak_fact_lines(facts: RelationResult | ZoneResult) -> list[str]:
    """Quest relations or zone markers as request lines, ``- none`` when empty, TRUNCATED said."""
    body = (relation_lines(facts) if isinstance(facts, RelationResult) else zone_lines(facts)) or [
        "  - none"
    ]
    if facts.truncated:
        body.append("  - TRUNCATED: these facts cannot tell the candidates apart")
    return body
