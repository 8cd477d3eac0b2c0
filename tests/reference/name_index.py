"""The name index's searches the plain way: every key looked at, every name scored.

The product scans keys laid out in blobs by script and scores only a shortlist of names whose
shape can reach the cutoff (:mod:`vba_assets.heuristic.name_scan`); the gazetteer stops
normalizing names once it knows both kinds. These functions define what they must answer.
"""

from rapidfuzz import fuzz, process

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.heuristic.gazetteer import CONTAINING_LIMIT, INDEX_ENTITY_TYPE, Gazetteer
from vba_assets.heuristic.name_index import NameIndex


def plain_matching_keys(index: NameIndex, text: str) -> list[str]:
    """Every normalized name containing ``text`` (normalized), in sorted order."""
    needle = normalize_for_match(text)
    if not needle or "\n" in needle:
        return []
    return [key for key in sorted(index.by_name) if needle in key]


def plain_containing(index: NameIndex, text: str, limit: int) -> tuple[int, ...]:
    """The identities of :func:`plain_matching_keys` in key order, stopping past ``limit``."""
    found: dict[int, None] = {}
    for key in plain_matching_keys(index, text):
        for entry in index.by_name[key]:
            found[entry.identity] = None
        if len(found) > limit:
            break
    return tuple(found)


def plain_closest(
    index: NameIndex, text: str, cutoff: float, limit: int
) -> list[tuple[str, float]]:
    """The ``limit`` names of best Indel ratio (at least ``cutoff``), every name scored; ties by
    name."""
    found = process.extract(
        normalize_for_match(text),
        sorted(index.by_name),
        scorer=fuzz.ratio,
        score_cutoff=cutoff,
        limit=None,
    )
    ranked = sorted(((name, float(score)) for name, score, _ in found), key=lambda f: (-f[1], f[0]))
    return ranked[:limit]


def plain_containing_catalogs(gazetteer: Gazetteer, text: str) -> list[str]:
    """The catalogs (configured order) of a kind some name of the identities containing ``text``
    (at most :data:`CONTAINING_LIMIT` + 1) has, every name of theirs normalized."""
    identities = plain_containing(gazetteer.index, text, CONTAINING_LIMIT)
    needle = normalize_for_match(text)
    kinds = {
        "name" if entry.primary else "localized_name"
        for identity in identities
        for entry in gazetteer.index.names_of(identity)
        if needle in normalize_for_match(entry.name)
    }
    return [
        c.name
        for c in gazetteer.catalogs
        if c.kind in kinds and c.entity_type.casefold() == INDEX_ENTITY_TYPE
    ]
