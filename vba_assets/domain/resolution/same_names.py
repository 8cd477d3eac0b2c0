"""Same-name groups of a capture and of a search's candidates (protocol v6, issue 29 item 4). Pure.

Rows that share one name (after :func:`~vba_assets.domain.catalog.names.normalize_for_match`) are
told apart only by a grounded tie-break (:mod:`.tiebreaks`). The name need not be the searched
term: a short or partial term ("Hearthsinger", "el'thuzad") finds several rows of one full name.
:func:`capture_ties` says whose tie-break facts a capture records, :func:`name_ties` which
candidates a selection must be told apart from.
"""

from collections.abc import Iterable

from vba_assets.domain.catalog.matching import RankedCandidate
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.catalog.world import CatalogRow
from vba_assets.domain.resolution.models import ExactCoverage, SearchCandidates


def name_groups(named: Iterable[tuple[int | str, str]]) -> list[list[int]]:
    """Every group of at least two integer identities of ``named`` (identity, name) pairs that
    share one name (after :func:`normalize_for_match`), each sorted, in the order of the names."""
    by_name: dict[str, set[int]] = {}
    for identity, name in named:
        if isinstance(identity, int) and name:
            by_name.setdefault(normalize_for_match(name), set()).add(identity)
    return [sorted(group) for group in by_name.values() if len(group) >= 2]


def capture_ties(rows: Iterable[CatalogRow]) -> list[int]:
    """The identities of a capture whose tie-break facts are recorded: every identity that shares
    a name with another identity of the capture (:func:`name_groups`: the rows named exactly the
    term, and every other same-name group, e.g. the several ``Illidan Stormrage`` rows a search
    for ``Illidan`` finds), sorted."""
    groups = name_groups((row.identity, row.name) for row in rows)
    return sorted({identity for group in groups for identity in group})


def name_ties(
    search: SearchCandidates | ExactCoverage, chosen: RankedCandidate
) -> tuple[list[int], list[str]]:
    """Protocol v6: the integer identities of a complete search's candidates that share a name
    (any captured name of each) with ``chosen``, ``chosen`` included and sorted, when there are at
    least two, with the shared names; else none (a unique name, or a truncated search)."""
    if search.truncated:
        return [], []
    names = {normalize_for_match(name): name for name in _names(chosen) if name}
    found = sorted(
        {
            candidate.identity
            for candidate in search.candidates
            if isinstance(candidate.identity, int)
            and any(normalize_for_match(name) in names for name in _names(candidate) if name)
        }
    )
    if len(found) < 2 or chosen.identity not in found:
        return [], []
    return found, list(names.values())


def _names(candidate: RankedCandidate) -> list[str]:
    return [candidate.name, *(ref.name for ref in candidate.also_matched)]
