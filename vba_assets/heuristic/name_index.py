"""The heuristic's name index: every creature name it knows, versioned and hashed (pure logic).

The heuristic planner decides which spans of a report are creature names by looking them up here,
never in the world database: a plan is then a function of the request and of this index alone,
and the index is named (:attr:`NameIndex.label`) in every reply the heuristic gives, so replay and
verification never need the database and a changed index is visible in the records. The index is
built from rows the caller reads (``resources/llm/heuristic_index.py`` reads the packaged demo
world data: ``creature_template`` names, ``creature_template_locale`` names of every locale and
the two quest relation tables); :attr:`NameIndex.sha256` is the sha256 of those source files'
pinned hashes and :data:`INDEX_FORMAT`, so equal labels mean equal contents.

What it answers, all by :func:`~vba_assets.domain.catalog.names.normalize_for_match` forms:

* :meth:`NameIndex.exact`: the entries whose name equals a text (any locale);
* :meth:`NameIndex.names_of`: every name of an identity (the names a link's id stands for);
* :meth:`NameIndex.containing`: how many entities have a name containing a text (how
  distinctive a word is; a contains search for it would return that many entities);
* :meth:`NameIndex.closest`: the nearest names of a misspelled text (RapidFuzz, Indel ratio);
* :meth:`NameIndex.quest_giver`: whether an identity starts or ends some quest
  (``creature_queststarter``/``creature_questender``).

What it cannot do: it knows the packaged catalog only. An operator's database with other or
custom creatures is searched by the controller as always, but the heuristic does not know those
names (it proposes what the packaged catalog holds, and capitalized names it cannot place).
"""

import bisect
import hashlib
import json
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from rapidfuzz import fuzz, process

from vba_assets.domain.catalog.names import normalize_for_match, tokenize
from vba_assets.heuristic.name_scan import (
    SCAN_LAYOUT_VERSION,
    ScanLayout,
    build_scan_layout,
    scan_layout_document,
    scan_layout_from_document,
)

#: Bump when the way the index is built or read changes (it is part of :attr:`NameIndex.sha256`).
#: 2: the identities of bosses (``rank`` 3 in ``creature_template``), :attr:`NameIndex.bosses`.
#: 3: the names of items, gameobjects and quest titles (every locale) that name no creature,
#: :meth:`NameIndex.only_non_creature` (issue 29's negative gazetteer).
INDEX_FORMAT = 3
#: The locale of a primary (``creature_template.name``) entry.
PRIMARY = ""
T = TypeVar("T")


class DerivedStore(Protocol):
    """Where structures derived from an index outlive the process (the IO layer provides one,
    ``resources/llm/heuristic_index.py``: files in the cache directory beside the index)."""

    def load(self, name: str, decode: Callable[[Any], T]) -> T | None:
        """``decode`` of the JSON data kept as ``name`` for this index, or None when nothing is
        kept or ``decode`` refuses it (``ValueError``, ``KeyError`` or ``TypeError``)."""

    def save(self, name: str, document: Any) -> None:
        """Keep ``document`` (JSON data) as ``name`` for this index; failures are not errors."""


@dataclass(frozen=True)
class Keeping(Generic[T]):
    """How :meth:`NameIndex.derived` keeps one structure in a :class:`DerivedStore`: ``name``
    says everything the structure depends on besides the index (its rules' version, the
    configured catalogs), ``encode``/``decode`` convert it to and from JSON data (``decode``
    raises ``ValueError``, ``KeyError`` or ``TypeError`` for data it does not accept)."""

    name: str
    encode: Callable[[T], Any]
    decode: Callable[[Any], T]


#: The name :meth:`NameIndex._layout` is kept under (it depends on the index alone).
SCAN_KEPT_NAME = f"scan-layout-{SCAN_LAYOUT_VERSION}"
_SCAN: Keeping[ScanLayout] = Keeping(
    SCAN_KEPT_NAME, scan_layout_document, scan_layout_from_document
)


class IndexedName(NamedTuple):
    """One name of one identity: ``locale`` is ``""`` for the primary catalog name (a tuple:
    two hundred thousand of them are built and, cached, read back fast)."""

    identity: int
    name: str
    locale: str = PRIMARY

    @property
    def primary(self) -> bool:
        return self.locale == PRIMARY

    @property
    def language(self) -> str:
        """``"en"`` for a primary name, else the locale's language (``"deDE"`` -> ``"de"``)."""
        return "en" if self.primary else self.locale[:2].casefold()


@dataclass(eq=False)
class NameIndex:
    """Every known name, by normalized form and by identity (see the module docstring)."""

    sha256: str
    by_name: Mapping[str, tuple[IndexedName, ...]]
    by_identity: Mapping[int, tuple[IndexedName, ...]]
    quest_givers: frozenset[int] = frozenset()
    #: Identities the catalog ranks as bosses (what tells a character's short form from a place).
    bosses: frozenset[int] = frozenset()
    #: The normalized names of items and gameobjects and the quest titles, in every locale, that
    #: are no creature's name: sorted, one per line (one string keeps the document fast to read).
    non_creature: str = field(default="", repr=False)
    _non_creature_keys: list[str] | None = field(default=None, repr=False)
    _keys: tuple[str, ...] = field(default=(), repr=False)
    _contained: dict[tuple[str, int], tuple[int, ...]] = field(default_factory=dict, repr=False)
    _languages: dict[str, tuple[tuple[str, IndexedName], ...]] = field(
        default_factory=dict, repr=False
    )
    #: Structures other modules derive from this index, by their key (see :meth:`derived`).
    _derived: dict[Hashable, Any] = field(default_factory=dict, repr=False)
    #: Where :meth:`derived` keeps structures for later processes (None: only in memory).
    store: DerivedStore | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        """``names-<format>-<sha256[:12]>``: how replies name the index they were made with."""
        return f"names-{INDEX_FORMAT}-{self.sha256[:12]}"

    def exact(self, text: str) -> tuple[IndexedName, ...]:
        """Every entry whose name equals ``text`` after normalization."""
        return self.by_name.get(normalize_for_match(text), ())

    def names_of(self, identity: int) -> tuple[IndexedName, ...]:
        """Every name of ``identity`` (primary first, then locales in order)."""
        return self.by_identity.get(identity, ())

    def derived(self, key: Hashable, build: Callable[[], T], kept: Keeping[T] | None = None) -> T:
        """``build()``, computed once per index and ``key`` (the index never changes, so what is
        derived from it alone can be kept with it).

        With ``kept`` and a :attr:`store`, a structure an earlier process kept is read back
        instead of built (one it cannot decode is built again), and a built one is kept."""
        if key not in self._derived:
            value = self._kept(kept)
            if value is None:
                value = build()
                if kept is not None and self.store is not None:
                    self.store.save(kept.name, kept.encode(value))
            self._derived[key] = value
        found: T = self._derived[key]
        return found

    def _kept(self, kept: Keeping[T] | None) -> T | None:
        if kept is None or self.store is None:
            return None
        return self.store.load(kept.name, kept.decode)

    def names_in(self, language: str) -> tuple[tuple[str, IndexedName], ...]:
        """Every primary name and every name of ``language``'s locales, each with its
        normalized form (cached)."""
        found = self._languages.get(language)
        if found is None:
            found = self._languages[language] = tuple(
                (key, entry)
                for key, entries in self.by_name.items()
                for entry in entries
                if entry.locale == PRIMARY or entry.locale[:2].casefold() == language
            )
        return found

    def only_non_creature(self, text: str) -> bool:
        """True when ``text`` is exactly (after normalization) the name of an item or gameobject or
        a quest's title, in some locale, and no creature's name (a negative gazetteer hit: "Cruel
        Barb", "Hearthstone", "The Heart of Hakkar"). A text that names nothing is False."""
        key = normalize_for_match(text)
        if not key or "\n" in key or key in self.by_name:
            return False
        if self._non_creature_keys is None:
            self._non_creature_keys = self.non_creature.split("\n") if self.non_creature else []
        keys = self._non_creature_keys
        position = bisect.bisect_left(keys, key)
        return position < len(keys) and keys[position] == key

    def quest_giver(self, identity: int) -> bool:
        """True when ``identity`` starts or ends at least one quest."""
        return identity in self.quest_givers

    def boss(self, identity: int) -> bool:
        """True when the catalog ranks ``identity`` as a boss."""
        return identity in self.bosses

    def keys(self) -> tuple[str, ...]:
        """Every distinct normalized name, sorted."""
        if not self._keys:
            self._keys = tuple(sorted(self.by_name))
        return self._keys

    def containing(self, text: str, limit: int = 50) -> tuple[int, ...]:
        """Identities with a name containing ``text`` (normalized), at most ``limit + 1``."""
        needle = normalize_for_match(text)
        found = self._contained.get((needle, limit))
        if found is None:
            found = self._contained[(needle, limit)] = self._scan(needle, limit)
        return found

    def _scan(self, needle: str, limit: int) -> tuple[int, ...]:
        if not needle or "\n" in needle:
            return ()
        return self._identities(self._layout().matching_keys(needle), limit)

    def _identities(self, keys: Iterable[str], limit: int) -> tuple[int, ...]:
        """The identities of ``keys`` in order, stopping past ``limit`` (as :meth:`_scan`)."""
        found: dict[int, None] = {}
        for key in keys:
            for entry in self.by_name[key]:
                found[entry.identity] = None
            if len(found) > limit:
                break
        return tuple(found)

    def _layout(self) -> ScanLayout:
        """The keys laid out for the fast scans, kept in the store (:mod:`.name_scan`)."""
        return self.derived(("scan-layout",), lambda: build_scan_layout(self.keys()), _SCAN)

    def matching_keys(self, text: str) -> Iterator[str]:
        """Every normalized name containing ``text`` (normalized), in sorted order."""
        needle = normalize_for_match(text)
        if not needle or "\n" in needle:
            return iter(())
        return self._layout().matching_keys(needle)

    def capture_rank(self, text: str, identities: Collection[int], primary: bool) -> int | None:
        """Where the first row of one of ``identities`` falls (0-based) in a contains search for
        ``text`` on the primary (``primary``) or localized name catalog, in the controller's
        order (ARCHITECTURE 6.2: the exact name first, then shorter names, then by name, then by
        identity and locale), or None when no row of theirs matches.

        The index folds case (and unifies punctuation) fully, so this is the order an accent- and
        case-insensitive backend gives (the embedded SQLite's search key, MariaDB's
        ``utf8mb4_unicode_ci``); for an ASCII ``text`` SQLite agrees on the real names (``tests/unit/test_capture_rank.py``), barring names
        whose folding differs ("ß" holds "ss" for the index, not for SQLite)."""
        exact = text.casefold()
        rows = sorted(
            (entry.name.casefold() != exact, len(entry.name), entry.name, entry.identity,
             entry.locale)
            for key in self.matching_keys(text)
            for entry in self.by_name[key]
            if entry.primary == primary
        )  # fmt: skip
        wanted = set(identities)
        return next((n for n, row in enumerate(rows) if row[3] in wanted), None)

    def containing_count(self, text: str, limit: int = 50) -> int:
        """How many identities have a name containing ``text`` (stops past ``limit``)."""
        return len(self.containing(text, limit))

    def closest(self, text: str, cutoff: float, limit: int = 3) -> list[tuple[str, float]]:
        """The normalized names most similar to ``text`` (Indel ratio 0-100, at least
        ``cutoff``), best first; ties by name.

        Only names whose length (and, for an ASCII ``text``, count of ASCII characters) allows
        the cutoff are scored (:meth:`.ScanLayout.shortlist`): the same result, as a property
        test shows against scoring every name (``tests/reference/name_index.py``)."""
        query = normalize_for_match(text)
        found = process.extract(
            query,
            self._layout().shortlist(query, cutoff),
            scorer=fuzz.ratio,
            score_cutoff=cutoff,
            limit=None,
        )
        ranked = sorted(((name, float(score)) for name, score, _ in found), key=_by_score)
        return ranked[:limit]


def _by_score(item: tuple[str, float]) -> tuple[float, str]:
    return (-item[1], item[0])


def index_sha256(sources: Mapping[str, str]) -> str:
    """The index's hash: :data:`INDEX_FORMAT` and the pinned sha256 of every source file."""
    payload = json.dumps({"format": INDEX_FORMAT, "sources": dict(sorted(sources.items()))})
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def build_name_index(
    names: Iterable[IndexedName],
    quest_givers: Iterable[int],
    sources: Mapping[str, str],
    bosses: Iterable[int] = (),
    non_creature: Iterable[str] = (),
) -> NameIndex:
    """The index of ``names`` (empty names and repeated entries are skipped; the result does not
    depend on the order of ``names``). ``non_creature``: the names of items and gameobjects and
    the quest titles, every locale (:meth:`NameIndex.only_non_creature` keeps those that name no
    creature)."""
    entries = sorted(
        {entry for entry in names if entry.name.strip()},
        key=lambda e: (e.locale, e.identity, e.name),
    )
    normalize = normalize_for_match.__wrapped__  # not the small shared cache: 200k names
    normalized: dict[str, str] = {}
    by_name: dict[str, list[IndexedName]] = {}
    by_identity: dict[int, list[IndexedName]] = {}
    for entry in entries:
        key = normalized.get(entry.name)
        if key is None:
            key = normalized[entry.name] = normalize(entry.name)
        by_name.setdefault(key, []).append(entry)
        by_identity.setdefault(entry.identity, []).append(entry)
    others = {key for key in map(normalize, non_creature) if key and "\n" not in key}
    return NameIndex(
        sha256=index_sha256(sources),
        by_name={key: tuple(value) for key, value in by_name.items()},
        by_identity={key: tuple(value) for key, value in by_identity.items()},
        quest_givers=frozenset(quest_givers),
        bosses=frozenset(bosses),
        non_creature="\n".join(sorted(others - by_name.keys())),
    )


def words_of(name: str) -> tuple[str, ...]:
    """The normalized word tokens of a name."""
    return tuple(tokenize(name))
