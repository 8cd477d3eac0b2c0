"""The rare words of primary catalog names, for a misspelled short form (pure logic).

A reporter often writes one word of a longer name, misspelled: "ilidan" for Illidan Stormrage,
"Kaelthas" for Kael'thas Sunstrider. :meth:`~.name_index.NameIndex.closest` compares a mention
with whole names, so a short form of a long name never comes close. :class:`NameWords` holds
every word of the primary (English) names that is at least :data:`MIN_WORD_LETTERS` letters
long, no common English word (:func:`~.common_words.common_word`) and a word of the names of at
most :data:`MAX_WORD_ENTITIES` entities, with those entities, and scores a mention against these
words (RapidFuzz Indel ratio, only the words whose shape can reach the cutoff:
:meth:`.ScanLayout.shortlist`).

It is derived from the name index alone, once per index and process
(:meth:`~.name_index.NameIndex.derived`, about 0.3 s for the packaged index); the index file and
its format do not change.

What it cannot do: a word shared by many entities ("Lurker", "Guardian") says too little and is
left out, as are localized names (a report's word is often close to another language's word).
"""

from collections.abc import Mapping
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.name_index import NameIndex, words_of
from vba_assets.heuristic.name_scan import ScanLayout, build_scan_layout

#: Bump when what :func:`name_words` derives changes (part of the derived key).
NAME_WORDS_VERSION = 1
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

    def closest(self, text: str, cutoff: float, limit: int = 3) -> list[tuple[str, float]]:
        """The kept words most similar to ``text`` (normalized; Indel ratio 0-100, at least
        ``cutoff``), best first; ties by word."""
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
        return ranked[:limit]


def _by_score(item: tuple[str, float]) -> tuple[float, str]:
    return (-item[1], item[0])


def _letters(word: str) -> int:
    return sum(1 for char in word if char.isalpha())


def _build(index: NameIndex) -> NameWords:
    holders: dict[str, set[int]] = {}
    for key, entries in index.by_name.items():
        identities = {entry.identity for entry in entries if entry.primary}
        if not identities:
            continue
        for word in set(words_of(key)):
            if _letters(word) < MIN_WORD_LETTERS:
                continue
            found = holders.setdefault(word, set())
            if len(found) <= MAX_WORD_ENTITIES:
                found.update(identities)
    entities = {
        word: tuple(sorted(found))
        for word, found in holders.items()
        if len(found) <= MAX_WORD_ENTITIES and not common_word(word, "en")
    }
    return NameWords(entities, build_scan_layout(sorted(entities)))


def name_words(index: NameIndex) -> NameWords:
    """The rare name words of ``index`` (built once per index, see the module docstring)."""
    return index.derived(("name-words", NAME_WORDS_VERSION), lambda: _build(index))
