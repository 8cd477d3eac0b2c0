"""One entity per creature (protocol v6, issue 29 item 2): the N aliases of one entry merged.

A report may name the same creature several ways: its English name, its localized name, a link,
a short form. Each is its own search, and each search that selects the entry gave its own ``N``
alias (protocols v1-v5), so the interpretation saw two creatures where the report has one. Under
``ProtocolSpec.merged_entities`` the selections of one entry (same ``entity_type``, same identity)
become ONE ``N`` alias:

* its representative is the first selection in plan order whose catalog is a primary-name catalog
  (kind ``name``), else the first selection: its ``search_id``, name, catalog, capture row and
  assessment pointer are the alias's (the other searches are listed in ``merged_search_ids``, each
  still a fact ``F`` of its own, and its assessment verdict stays where it is);
* its mentions are every selection's mentions, the representative's first, then the others' in
  plan order, each span once;
* its role is the strongest of the selections' roles in :data:`SEARCH_ROLES` order
  (``affected_subject`` before ``quest_giver`` before ``location_context`` before
  ``other_context``): a creature the report says misbehaves in one sentence is the affected
  subject even where another sentence names it as a quest giver;
* aliases are numbered ``N1..Nn`` in the order of each entry's first selection.

Unresolved searches (``D`` aliases) are not merged: which entry they mean is not known. The
evaluation scores each gold mention by its own search's verdict and role
(:mod:`vba_assets.evaluation.metrics`), which merging leaves unchanged.
"""

from collections.abc import Mapping, Sequence

from vba_assets.domain.catalog.matching import identity_key
from vba_assets.domain.resolution.aliases import SelectedEntityAlias
from vba_assets.domain.resolution.models import SEARCH_ROLES, MentionCitation


def merge_selected(
    selected: Sequence[SelectedEntityAlias], kinds: Mapping[str, str]
) -> list[SelectedEntityAlias]:
    """``selected`` (in plan order) with the aliases of one entry merged (module docstring).

    Args:
        selected: the N aliases one per selecting search, in plan order.
        kinds: search id -> catalog kind (``name``, ``localized_name``) of its selected row.
    """
    groups: dict[tuple[str, tuple[int, int, str]], list[SelectedEntityAlias]] = {}
    for alias in selected:
        groups.setdefault((alias.entity_type, identity_key(alias.identity)), []).append(alias)
    merged: list[SelectedEntityAlias] = []
    for group in groups.values():
        first = next((a for a in group if kinds.get(a.search_id) == "name"), group[0])
        others = [a for a in group if a is not first]
        mentions: dict[tuple[str, int, int], MentionCitation] = {}
        for alias in (first, *others):
            for mention in alias.mentions:
                mentions.setdefault((mention.source, mention.start, mention.end), mention)
        role = min((a.role for a in group), key=SEARCH_ROLES.index)
        merged.append(
            first.model_copy(
                update={
                    "alias": f"N{len(merged) + 1}",
                    "mentions": list(mentions.values()),
                    "role": role,
                    "merged_search_ids": [a.search_id for a in others],
                }
            )
        )
    return merged
