"""The grounded tie-break facts of a capture (protocol v6, issue 29 item 4).

When a complete contains capture holds several entities named exactly the term, the capture stage
also records, in that same capture, the quests they start or end with every title
(:func:`with_quest_relations`): one more literal, parameterized, read-only query through the
world-DB adapter (:meth:`~vba_assets.domain.catalog.world.QuestRelationSearch.quest_relations`),
keyed by identities the capture already holds. Why inside the capture rather than as a capture of
its own: :mod:`vba_assets.domain.resolution.tiebreaks`.
"""

from vba_assets.domain.catalog.world import QuestRelationSearch
from vba_assets.domain.protocol import ProtocolSpec
from vba_assets.domain.resolution.models import CaptureArtifact
from vba_assets.domain.resolution.tiebreaks import RELATION_ROW_LIMIT, capture_ties


def with_quest_relations(
    capture: CaptureArtifact, db: QuestRelationSearch, spec: ProtocolSpec
) -> CaptureArtifact:
    """``capture`` with its quest relations when ``spec`` has grounded tie-breaks and the capture
    is a complete name search with at least two entities named exactly its term; else unchanged
    (also when the operator has not allowlisted the relation and quest tables)."""
    if not spec.grounded_tiebreaks or capture.search.reference is not None:
        return capture
    if capture.result.truncated:
        return capture
    tied = capture_ties(capture.search.term, capture.result.rows)
    if not tied:
        return capture
    relations = db.quest_relations(tied, RELATION_ROW_LIMIT)
    if relations is None:
        return capture
    return capture.model_copy(update={"quest_relations": relations})
