"""The rare words of primary catalog names, for a misspelled short form (pure logic).

A reporter often writes one word of a longer name, misspelled: "ilidan" for Illidan Stormrage,
"Kaelthas" for Kael'thas Sunstrider. :meth:`~.name_index.NameIndex.closest` compares a mention
with whole names, so a short form of a long name never comes close. :class:`NameWords` holds
every word of the primary (English) names that is at least :data:`MIN_WORD_LETTERS` letters
long and a word of the names of at most :data:`MAX_WORD_ENTITIES` entities, with those entities,
and scores a mention against these words (RapidFuzz Indel ratio, only the words whose shape can
reach the cutoff: :meth:`.ScanLayout.shortlist`), leaving out common English words
(:func:`~.common_words.common_word`, checked on the few words a lookup finds).

It is derived from the name index alone (:meth:`~.name_index.NameIndex.derived`, about 0.4 s
for the packaged index) and kept in the index's store as :data:`NAME_WORDS_KEPT_NAME`, so a later
process reads it back; the index file and its format do not change.

What it cannot do: a word shared by many entities ("Lurker", "Guardian") says too little and is
left out, as are localized names (a report's word is often close to another language's word).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.name_index import Keeping, NameIndex
from vba_assets.heuristic.name_scan import ScanLayout, build_scan_layout

#: Bump when what :func:`name_words` derives or its document changes (part of the kept name).
NAME_WORDS_VERSION = 3
#: The name the name words are kept under in the index's store (they depend on the index alone).
NAME_WORDS_KEPT_NAME = f"name-words-{NAME_WORDS_VERSION}"
#: Shortest name word kept, in letters.
MIN_WORD_LETTERS = 5
#: Most entities whose primary names may hold a kept word.
MAX_WORD_ENTITIES = 16


@dataclass(frozen=True, eq=False)
class NameWords:
    """The rare words of primary names (see the module docstring)."""

    #: Each kept word and the entities whose primary names hold it, in identity order.
    entities: Mapping[str, tuple[int, ...]]
    layout: ScanLayout
    #: Every normalized name (any locale) of a boss and every kept word a boss's name holds.
    boss_keys: tuple[str, ...] = ()

    def near_boss(self, text: str, cutoff: float) -> bool:
        """Whether some boss's name or rare name word reaches ``cutoff`` against ``text``: a
        cheap test before a lookup that only a boss may answer."""
        query = normalize_for_match(text)
        found = process.extractOne(query, self.boss_keys, scorer=fuzz.ratio, score_cutoff=cutoff)
        return bool(query) and found is not None

    def closest(self, text: str, cutoff: float, limit: int = 3) -> list[tuple[str, float]]:
        """The kept words most similar to ``text`` (normalized; Indel ratio 0-100, at least
        ``cutoff``) that are no common English word, best first; ties by word."""
        query = normalize_for_match(text)
        if not query:
            return []
        found = process.extract(
            query,
            self.layout.shortlist(query, cutoff),
            scorer=fuzz.ratio,
            score_cutoff=cutoff,
            limit=None,
        )
        ranked = sorted(((word, float(score)) for word, score, _ in found), key=_by_score)
        return [item for item in ranked if not common_word(item[0], "en")][:limit]


def _by_score(item: tuple[str, float]) -> tuple[float, str]:
    return (-item[1], item[0])


def _build(index: NameIndex) -> NameWords:
    normalize = normalize_for_match.__wrapped__  # not the small shared cache: 30k names
    holders: dict[str, set[int]] = {}
    for identity in index.by_identity:
        for entry in index.by_identity[identity]:
            if not entry.primary:
                continue
            for word in normalize(entry.name).split(" "):
                if sum(1 for char in word if char.isalpha()) >= MIN_WORD_LETTERS:
                    holders.setdefault(word, set()).add(identity)
    entities = {
        word: tuple(sorted(found))
        for word, found in sorted(holders.items())
        if len(found) <= MAX_WORD_ENTITIES
    }
    return NameWords(entities, build_scan_layout(entities), _boss_keys(index, entities))


def _boss_keys(index: NameIndex, entities: Mapping[str, tuple[int, ...]]) -> tuple[str, ...]:
    normalize = normalize_for_match.__wrapped__
    names = {normalize(entry.name) for boss in index.bosses for entry in index.names_of(boss)}
    words = {word for word, ids in entities.items() if any(map(index.boss, ids))}
    return tuple(sorted(names | words))


def _document(words: NameWords) -> dict[str, Any]:
    return {
        "version": NAME_WORDS_VERSION,
        "entities": dict(words.entities),
        "boss_keys": list(words.boss_keys),
    }


def _from_document(document: Any) -> NameWords:
    entities, bosses = document["entities"], document["boss_keys"]
    if (
        document.get("version") != NAME_WORDS_VERSION
        or not isinstance(entities, dict)
        or not isinstance(bosses, list)
    ):
        raise ValueError("not a name words document of this version")
    kept = {str(word): tuple(int(i) for i in ids) for word, ids in sorted(entities.items())}
    return NameWords(kept, build_scan_layout(kept), tuple(map(str, bosses)))


_KEPT: Keeping[NameWords] = Keeping(NAME_WORDS_KEPT_NAME, _document, _from_document)


def name_words(index: NameIndex) -> NameWords:
    """The rare name words of ``index`` (built once per index and kept in its store, see the
    module docstring)."""
    return index.derived(("name-words", NAME_WORDS_VERSION), lambda: _build(index), _KEPT)
