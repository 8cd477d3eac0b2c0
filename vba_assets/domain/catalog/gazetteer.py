"""The name gazetteer: which kinds of things a term is the exact name of, and who gives a quest.

A bug report names creatures, but also items, gameobjects and quests (issue 29, items 4 and 5).
:class:`Gazetteer` answers, without any IO:

* :meth:`Gazetteer.kinds`: is the term the exact name (any locale) of a creature, an item, a
  gameobject, and the exact title (any locale) of a quest? A term that names only non-creature
  things (:meth:`Gazetteer.is_only_non_creature`) is not worth a creature search;
* :meth:`Gazetteer.quests_titled`: the quest ids of a title (titles repeat: Alliance/Horde twins);
* :meth:`Gazetteer.quest_starters` / :meth:`Gazetteer.quest_enders`: the creature entries that
  start or end a quest of that title (``creature_queststarter`` / ``creature_questender``), for
  grounded tie-breaking of same-name creatures.

"Exact" means equal after :func:`~vba_assets.domain.catalog.names.normalize_for_match` (NFKC,
case folding, one apostrophe, one name separator, single spaces, no leading or trailing space):
``wild wolpertinger``, ``Wild  Wolpertinger `` and ``WILD WOLPERTINGER`` are the same name, a
substring or a misspelling is not. Empty names are never indexed. The data comes from the caller
(``vba_assets.worlddata.gazetteer`` loads the packaged reference tables); the gazetteer is a
planning aid, never evidence: a name in it does not prove what a report means, and a miss does not
prove that a thing is absent from a running server.
"""

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from vba_assets.domain.catalog.names import normalize_for_match


class NameKind(enum.StrEnum):
    """What a name can be the name of."""

    CREATURE = "creature"
    ITEM = "item"
    GAMEOBJECT = "gameobject"
    QUEST = "quest"


#: Rows of ``(identity, name)``: creature, item or gameobject entries with one of their names.
NamedRows = Iterable[tuple[int, str | None]]
#: Rows of ``(creature entry, quest id)`` of ``creature_queststarter`` / ``creature_questender``.
QuestRelationRows = Iterable[tuple[int, int]]

_NON_CREATURE = frozenset({NameKind.ITEM, NameKind.GAMEOBJECT, NameKind.QUEST})


def name_key(text: str) -> str:
    """The form names are compared in: :func:`normalize_for_match`, uncached (a catalog has far
    more names than its cache). ASCII text takes a shortcut with the same result: NFKC leaves it
    unchanged, its case folding is :meth:`str.lower` and no folded punctuation is ASCII."""
    if text.isascii():
        return " ".join(text.lower().split())
    return normalize_for_match.__wrapped__(text)


def _ids_by_key(rows: NamedRows) -> dict[str, tuple[int, ...]]:
    collected: dict[str, set[int]] = {}
    for identity, name in rows:
        key = name_key(name) if name else ""
        if key:
            collected.setdefault(key, set()).add(identity)
    return {key: tuple(sorted(ids)) for key, ids in collected.items()}


def _creatures_by_quest(rows: QuestRelationRows) -> dict[int, tuple[int, ...]]:
    collected: dict[int, set[int]] = {}
    for creature, quest in rows:
        collected.setdefault(quest, set()).add(creature)
    return {quest: tuple(sorted(creatures)) for quest, creatures in collected.items()}


@dataclass(frozen=True, slots=True)
class Gazetteer:
    """Exact-name lookups over the creature, item, gameobject and quest name lists.

    Build it with :meth:`build`; every mapping is read-only and every tuple is sorted ascending,
    so the same rows give the same answers in the same order.
    """

    creatures: Mapping[str, tuple[int, ...]]
    items: Mapping[str, tuple[int, ...]]
    gameobjects: Mapping[str, tuple[int, ...]]
    quests: Mapping[str, tuple[int, ...]]
    starters: Mapping[int, tuple[int, ...]]
    enders: Mapping[int, tuple[int, ...]]

    @classmethod
    def build(
        cls,
        *,
        creatures: NamedRows = (),
        items: NamedRows = (),
        gameobjects: NamedRows = (),
        quests: NamedRows = (),
        quest_starters: QuestRelationRows = (),
        quest_enders: QuestRelationRows = (),
    ) -> "Gazetteer":
        """Index the given rows; pass every locale's names in the same iterable as English's.

        Args:
            creatures: ``(entry, name)`` of creature_template and creature_template_locale.
            items: ``(entry, name)`` of item_template and ``(ID, Name)`` of its locale table.
            gameobjects: ``(entry, name)`` of gameobject_template and its locale table.
            quests: ``(ID, LogTitle)`` of quest_template and ``(ID, Title)`` of its locale table.
            quest_starters: ``(id, quest)`` of creature_queststarter.
            quest_enders: ``(id, quest)`` of creature_questender.
        """
        return cls(
            creatures=MappingProxyType(_ids_by_key(creatures)),
            items=MappingProxyType(_ids_by_key(items)),
            gameobjects=MappingProxyType(_ids_by_key(gameobjects)),
            quests=MappingProxyType(_ids_by_key(quests)),
            starters=MappingProxyType(_creatures_by_quest(quest_starters)),
            enders=MappingProxyType(_creatures_by_quest(quest_enders)),
        )

    def _lists(self) -> tuple[tuple[NameKind, Mapping[str, tuple[int, ...]]], ...]:
        return (
            (NameKind.CREATURE, self.creatures),
            (NameKind.ITEM, self.items),
            (NameKind.GAMEOBJECT, self.gameobjects),
            (NameKind.QUEST, self.quests),
        )

    def kinds(self, term: str) -> frozenset[NameKind]:
        """Every kind of thing ``term`` is the exact name (or quest title) of, in any locale."""
        key = name_key(term)
        return frozenset(kind for kind, names in self._lists() if key and key in names)

    def entries(self, kind: NameKind, term: str) -> tuple[int, ...]:
        """The ids of the ``kind`` things named exactly ``term`` (sorted; empty if none)."""
        names = dict(self._lists())[kind]
        return names.get(name_key(term), ())

    def is_creature(self, term: str) -> bool:
        """Whether ``term`` is exactly the name of a creature, in any locale."""
        return NameKind.CREATURE in self.kinds(term)

    def is_item(self, term: str) -> bool:
        """Whether ``term`` is exactly the name of an item, in any locale."""
        return NameKind.ITEM in self.kinds(term)

    def is_gameobject(self, term: str) -> bool:
        """Whether ``term`` is exactly the name of a gameobject, in any locale."""
        return NameKind.GAMEOBJECT in self.kinds(term)

    def is_quest_title(self, term: str) -> bool:
        """Whether ``term`` is exactly the title of a quest, in any locale."""
        return NameKind.QUEST in self.kinds(term)

    def is_only_non_creature(self, term: str) -> bool:
        """Whether ``term`` names an item, object or quest and no creature (a negative gazetteer
        hit: not a creature search). A term that names nothing at all is False."""
        kinds = self.kinds(term)
        return bool(kinds) and kinds <= _NON_CREATURE

    def quests_titled(self, title: str) -> tuple[int, ...]:
        """The quest ids whose title, in any locale, is exactly ``title`` (sorted)."""
        return self.entries(NameKind.QUEST, title)

    def quest_starters(self, title: str) -> tuple[int, ...]:
        """The creature entries that start a quest titled ``title`` (sorted, no repeats)."""
        return self._givers(self.starters, title)

    def quest_enders(self, title: str) -> tuple[int, ...]:
        """The creature entries that end a quest titled ``title`` (sorted, no repeats)."""
        return self._givers(self.enders, title)

    def _givers(self, relation: Mapping[int, tuple[int, ...]], title: str) -> tuple[int, ...]:
        found = {
            creature for quest in self.quests_titled(title) for creature in relation.get(quest, ())
        }
        return tuple(sorted(found))
