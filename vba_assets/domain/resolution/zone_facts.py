"""Grounded zone tie-breaks (protocol v6, issue 29 item 4; ARCHITECTURE 15). Pure.

A report often says where a same-name creature is: "[Black Temple] Illidan", "Kel'Thuzad in
Naxxramas". When several captured entities share a name (the searched name, or the full name a
short term finds: :func:`~vba_assets.domain.resolution.tiebreaks.capture_ties`), the capture records
the zones they have spawn markers in with every name of each zone
(``CaptureArtifact.zone_markers``: one literal parameterized query over the allowlisted
``creature_spawn_markers`` and ``zone_names``), so a replay without the database re-derives the
decision. The fact ``zone`` holds when:

* the cited span is a name of the zone of zone-marker row ``zone_row`` (after
  :func:`~vba_assets.domain.catalog.names.normalize_for_match`: case, accents, any apostrophe),
  written as whole words in its source;
* that row is the selected entity's;
* no other of the tied entities has markers in a zone of that name (two entities spawning in the
  named zone break no tie);
* every other tied entity is placed elsewhere: it has markers in some other zone, or it is a
  level-1 row (``maxlevel`` 1, a script dummy or encounter copy). An entity without any marker may
  stand in the named zone (measured: devset EVAL-020 names the zone the player was in, and the
  same-name daily-quest copies have no markers; dev2's Akama and Kalecgos copies neither), so it
  keeps the tie;
* the zone name is not the searched name itself.

What it cannot do: a report that names the zone where the *player* was while the meant creature
has markers elsewhere can still select the wrong same-name entity; the heuristic
(:mod:`vba_assets.heuristic.tiebreaks`) also never chooses a level-1 or helper row by a zone.
"""

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.catalog.world import RelationResult, ZoneResult
from vba_assets.domain.findings import Finding
from vba_assets.domain.resolution.models import CaptureArtifact, GroundedTiebreak
from vba_assets.errors import ErrorCode

#: Zone-marker rows a capture keeps (the query asks for one more): a creature with markers in
#: 10 zones of 10 names each is 100 rows; a tie of 5 such is 500.
ZONE_ROW_LIMIT = 1000


def _key(text: str) -> str:
    return normalize_for_match(text.strip(" \t\n\"'«»“”‘’[]()<>"))


def zone_holders(zones: ZoneResult, name: str) -> set[int | str]:
    """The identities of ``zones`` with markers in a zone one of whose names is ``name``."""
    key = _key(name)
    named = {row.zone_id for row in zones.rows if row.name is not None and _key(row.name) == key}
    return {row.identity for row in zones.rows if row.zone_id in named}


def whole_words(source: str, start: int, end: int) -> bool:
    """Whether ``source[start:end]`` is not part of a longer word."""
    before = start > 0 and source[start - 1].isalnum()
    after = end < len(source) and source[end].isalnum()
    return not before and not after


def unplaced(
    zones: ZoneResult, selected: int | str, tied: Sequence[int], data: Mapping[int | str, Any]
) -> list[int]:
    """The other tied identities whose place is unknown: no spawn marker anywhere, and not a
    level-1 row (``maxlevel`` 1: a script dummy or encounter copy that carries the name). Such an
    entity may well stand in the named zone, so the zone tells nothing apart."""
    placed = {row.identity for row in zones.rows}
    return [
        identity
        for identity in tied
        if identity != selected
        and identity not in placed
        and not (isinstance(level := data.get(identity, {}).get("maxlevel"), int) and level <= 1)
    ]


def zone_fact(
    tiebreak: GroundedTiebreak,
    zones: ZoneResult | None,
    selected: int | str,
    tied: Sequence[int],
    term: str,
    data: Mapping[int | str, Any] | None = None,
    names: Sequence[str] = (),
) -> str | None:
    """None when the span names the zone of zone-marker row ``tiebreak.zone_row``, which is the
    selected entity's, no other identity of ``tied`` has markers in a zone of that name, and every
    other one is placed elsewhere (:func:`unplaced`; ``data``: their data columns). A zone named
    as the searched ``term`` or one of the tied ``names`` names no zone apart."""
    if zones is None:
        return "this search's capture holds no zone markers"
    if zones.truncated:
        return "this search's zone markers are truncated: they cannot tell entities apart"
    index = tiebreak.zone_row
    if index is None or not 0 <= index < len(zones.rows):
        return f"zone_row must be a row of the zone markers (0-{len(zones.rows) - 1})"
    row = zones.rows[index]
    if row.identity != selected:
        return f"zone row {index} belongs to identity {row.identity}, not {selected}"
    if row.name is None:
        return f"zone {row.zone_id} of row {index} has no name"
    if _key(tiebreak.span.quote) != _key(row.name):
        return f"the span {tiebreak.span.quote!r} is not the zone name {row.name!r}"
    if _key(row.name) in {_key(name) for name in (term, *names)}:
        return "the zone name is the searched name itself, which names no zone apart"
    others = sorted(str(i) for i in zone_holders(zones, row.name) & set(tied) if i != selected)
    if others:
        return f"{', '.join(others)} also have spawn markers in a zone named {row.name!r}"
    unknown = unplaced(zones, selected, tied, data or {})
    if unknown:
        return (
            f"{', '.join(map(str, unknown))} have no spawn marker anywhere (and are not level-1 "
            f"rows): they may stand in {row.name!r} too"
        )
    return None


def zone_span_problem(tiebreak: GroundedTiebreak, sources: Mapping[str, str]) -> str | None:
    """A zone name must be cited as whole words (``Naxxramas``, not inside ``Naxxramas2``)."""
    span = tiebreak.span
    text = sources.get(span.source, "")
    if tiebreak.fact == "zone" and not whole_words(text, span.start, span.end):
        return f"the zone span {span.quote!r} is part of a longer word"
    return None


def zone_lines(zones: ZoneResult) -> list[str]:
    """The zone markers as the assessment request shows them: one line per (identity, zone) with
    each name and its row."""
    groups: dict[tuple[int | str, int], list[str]] = {}
    for index, row in enumerate(zones.rows):
        label = "no name" if row.name is None else json.dumps(row.name, ensure_ascii=False)
        groups.setdefault((row.identity, row.zone_id), []).append(
            f"{label} ({row.locale or '-'}, row {index})"
        )
    return [
        f"  - identity {identity} has spawn markers in zone {zone}: {'; '.join(names)}"
        for (identity, zone), names in groups.items()
    ]


def zone_capture_findings(
    capture: CaptureArtifact, tied: list[int], grounded: bool, sid: str, artifact: str
) -> list[Finding]:
    """What a capture's ``zone_markers`` must be (the asset check ``capture_provenance``): only
    under a protocol with grounded tie-breaks, exactly for the capture's tied identities, the
    parameterized marker query over them, its snapshot, its row limit and coverage."""
    zones = capture.zone_markers
    if zones is None:
        return []

    def finding(code: ErrorCode, message: str) -> Finding:
        return Finding(code=code, subject=sid, artifact=artifact, message=message)

    found = []
    if not grounded or zones.identities != tied:
        found.append(
            finding(
                ErrorCode.CAPTURE_SEARCH_DIFFERS,
                f"zone markers of {zones.identities} in a capture whose tied identities are "
                f"{tied} (protocol with grounded tie-breaks: {grounded})",
            )
        )
    if "'" in zones.sql or " IN (" not in zones.sql.upper():
        found.append(finding(ErrorCode.CAPTURE_SQL_NOT_TEMPLATE, "SQL is not the zone template"))
    return found + fact_result_findings(zones, capture, ZONE_ROW_LIMIT, "zone", finding)


def fact_result_findings(
    facts: ZoneResult | RelationResult,
    capture: CaptureArtifact,
    row_limit: int,
    label: str,
    finding: Callable[[ErrorCode, str], Finding],
) -> list[Finding]:
    """The checks every identity-keyed fact result of a capture shares (zone markers, quest
    relations): rows only of its identities, the capture's snapshot, its row limit, coverage.
    ``label`` names the facts in the messages ("zone": "a zone row ...", "zones from ...")."""
    found = []
    if any(row.identity not in facts.identities for row in facts.rows):
        found.append(
            finding(ErrorCode.CAPTURE_IDENTITY_DIFFERS, f"a {label} row of another identity")
        )
    if facts.snapshot != capture.result.snapshot:
        found.append(finding(ErrorCode.CAPTURE_SNAPSHOT_DIFFERS, f"{label}s from another snapshot"))
    if facts.row_limit != row_limit or len(facts.rows) > facts.row_limit:
        found.append(
            finding(
                ErrorCode.CAPTURE_ROW_LIMIT,
                f"{label} row limit {facts.row_limit} ({row_limit} expected) with "
                f"{len(facts.rows)} rows",
            )
        )
    if not facts.coverage_notes:
        found.append(finding(ErrorCode.CAPTURE_NO_COVERAGE_NOTES, f"{label}s without coverage"))
    return found
