"""The grounded tie-break facts of a capture (protocol v6, issue 29 item 4).

When a complete capture (a contains capture, or the exact-name capture that completes a truncated
one) holds several entities that share one name (the term, or the full name of which the term is a
short or partial form: "Illidan" finds several ``Illidan Stormrage`` rows), the capture stage also records, in that same
capture, the quests they start or end with every title and the zones they have spawn markers in
with every zone name (:func:`with_quest_relations`): two more literal, parameterized, read-only
queries through the world-DB adapter
(:meth:`~vba_assets.domain.catalog.world.QuestRelationSearch.quest_relations`,
:meth:`~vba_assets.domain.catalog.world.ZoneMarkerSearch.zone_markers`), keyed by identities the
capture already holds. Why inside the capture rather than as a capture of its own:
:mod:`vba_assets.domain.resolution.tiebreaks`.
"""

from typing import Protocol

from vba_assets.domain.catalog.world import QuestRelationSearch, ZoneMarkerSearch
from vba_assets.domain.protocol import ProtocolSpec
from vba_assets.domain.resolution.models import CaptureArtifact
from vba_assets.domain.resolution.relation_facts import RELATION_ROW_LIMIT
from vba_assets.domain.resolution.same_names import capture_ties
from vba_assets.domain.resolution.zone_facts import ZONE_ROW_LIMIT


class TiebreakFactSearch(QuestRelationSearch, ZoneMarkerSearch, Protocol):
    """The two fact queries of a tie."""


def with_quest_relations(
    capture: CaptureArtifact, db: TiebreakFactSearch, spec: ProtocolSpec
) -> CaptureArtifact:
    """``capture`` with its quest relations and zone markers when ``spec`` has grounded
    tie-breaks and the capture is a complete name search with at least two entities sharing one
    name (the term, or any other name: a short term that finds several rows of one full name),
    for every identity of every such group in one query per fact; else unchanged. Each fact is left out when the operator has not allowlisted its
    tables (the relation and quest tables; the marker and zone name tables)."""
    if not spec.grounded_tiebreaks or capture.search.reference is not None:
        return capture
    if capture.result.truncated:
        return capture
    tied = capture_ties(capture.result.rows)
    if not tied:
        return capture
    update: dict[str, object] = {}
    relations = db.quest_relations(tied, RELATION_ROW_LIMIT)
    if relations is not None:
        update["quest_relations"] = relations
    zones = db.zone_markers(tied, ZONE_ROW_LIMIT)
    if zones is not None:
        update["zone_markers"] = zones
    return capture.model_copy(update=update) if update else capture
