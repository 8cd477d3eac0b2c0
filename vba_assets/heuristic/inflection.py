"""Inflected names: a name the report writes with a case or plural ending ("Грубобрюха", "Wilden
Wolpertinger") found through the gazetteer by comparing word stems.

German and Russian inflect names (genitive, dative, adjective endings), so the report's words
often differ from the catalog's in their last letters. :func:`stem` strips the longest ending of a
small per-language list (the stem keeps at least :data:`MIN_STEM` letters); a run of one to
:data:`~.gazetteer.MAX_NAME_WORDS` words of the report whose stems equal those of a seen catalog
name is an inflected mention of it. The plan must cite text the report contains, so the span is
the longest common prefix of the report's words and the catalog name:

* one word: only when the catalog name is a prefix of it ("Грубобрюха" -> "Грубобрюх"), so the
  term equals the name and can be selected;
* several words: the common prefix, at least the first word's stem ("Wilden Wolpertinger" ->
  "Wilde", a literal part of "Wilder Wolpertinger"), which a contains search finds; it can never
  be selected (no name equals it), but it is searched and its candidates are captured.

A name whose own form ends like an ending ("Тенелов", kept under "тенел") is still found when
the report inflects it ("Тенелову" stems to "тенелов"): when a run's stems match no name, its words
are tried stemmed once more (:func:`_deeper_keys`).

The span keeps the end of the whole run (``extent_end``) so its role cues read the words after
the name, and spans inside the run give way to it. The gazetteer searches such words by their
stem (:func:`stem_form`), a superset of every inflected form.

What it cannot do: endings are a short list, not a grammar; irregular forms, vowel changes
("Wölfe") and prefixes are not recognised; two different names with the same stems are both
matched.
"""

import functools
import hashlib
import itertools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.heuristic.lexicon import is_stopword
from vba_assets.heuristic.spans import SourceText, Span, name_gap

MIN_STEM = 3
MAX_WORDS = 6
MIN_PREFIX = 5
#: Case, number and adjective endings, longest first where it matters.
ENDINGS: dict[str, tuple[str, ...]] = {
    "de": ("en", "er", "es", "em", "e", "n", "s"),
    "ru": (
        "ами", "ями", "ого", "его", "ому", "ему", "ой", "ей", "ом", "ем", "ам", "ям", "ах", "ях",
        "ов", "ев", "ую", "юю", "ая", "яя", "ые", "ие", "ый", "ий", "а", "я", "у", "ю", "е",
        "и", "ы", "о",
    ),
}  # fmt: skip
_WORD = re.compile(r"[^\W_]+(?:['’ʼ‘-][^\W_]+)*")


def inflects(language: str) -> bool:
    """True when names of ``language`` are compared by stem here."""
    return language in ENDINGS


#: ENDINGS as sets, with the length of the longest: :func:`_ending` tries each suffix length once.
_ENDING_SETS = {language: frozenset(endings) for language, endings in ENDINGS.items()}
_LONGEST = {language: max(map(len, endings)) for language, endings in ENDINGS.items()}


def _ending(folded: str, language: str) -> int:
    """Length of the longest known ending of ``folded`` that leaves a stem of MIN_STEM or more."""
    endings = _ENDING_SETS.get(language)
    if not endings:
        return 0
    for length in range(min(_LONGEST[language], len(folded) - MIN_STEM), 0, -1):
        if folded[-length:] in endings:
            return length
    return 0


@functools.lru_cache(maxsize=1 << 17)
def stem(word: str, language: str) -> str:
    """``word`` case-folded without its longest known ending ("Wilden" -> "wild")."""
    folded = word.casefold()
    cut = _ending(folded, language)
    return folded[: len(folded) - cut] if cut else folded


def stem_form(word: str, language: str) -> str:
    """``word`` as written without its ending: the search form of an inflected word."""
    folded = word.casefold()
    cut = _ending(folded, language)
    if not cut or len(folded) != len(word):
        return word
    return word[: len(word) - cut]


def _key(text: str, language: str) -> tuple[str, ...]:
    return tuple(stem(word, language) for word in _WORD.findall(text))


def _deeper_keys(text: str, language: str) -> Iterator[tuple[str, ...]]:
    """The keys of ``text`` with some words stemmed once more, for a name whose own form ends
    like an ending: the dative "Тенелову" stems to "тенелов", while the name "Тенелов" is kept
    under "тенел" (its "-ов" reads as an ending). Only words whose stem has an ending left vary
    (at most 2**MAX_WORDS keys, in practice one or two)."""
    words = [stem(word, language) for word in _WORD.findall(text)]
    options = [(w,) if (deeper := stem(w, language)) == w else (w, deeper) for w in words]
    for combination in itertools.islice(itertools.product(*options), 1, None):
        yield tuple(combination)


def _prefix(written: str, name: str) -> int:
    """Length of the common prefix of ``written`` and ``name`` (case-insensitive)."""
    length = 0
    for left, right in zip(written, name, strict=False):
        if left.casefold() != right.casefold():
            break
        length += 1
    while length and not written[length - 1].isalnum():
        length -= 1
    return length


def _match(
    written: str, names: Sequence[tuple[str, str]], words: int, language: str
) -> tuple[int, tuple[str, ...]]:
    """The longest acceptable prefix of ``written`` shared with one of ``names`` (name, catalog)
    and the catalogs of the names that share it; ``(0, ())`` when none is acceptable."""
    best = 0
    catalogs: list[str] = []
    first_stem = len(stem(_WORD.findall(written)[0], language))
    for name, catalog in names:
        length = _prefix(written, name)
        if words == 1:
            if length != len(name) or length >= len(written):
                continue
        elif length < max(MIN_PREFIX, first_stem):
            continue
        if length > best:
            best, catalogs = length, []
        if length == best and catalog not in catalogs:
            catalogs.append(catalog)
    return best, tuple(catalogs)


@dataclass(frozen=True)
class InflectionIndex:
    """The seen catalog names of one language, ready for :func:`inflected_spans`."""

    #: ``stems of a name -> the seen (name, catalog) pairs with those stems`` (a dict when built,
    #: a :class:`StemTable` when read back from a kept document).
    stems: Mapping[tuple[str, ...], Sequence[tuple[str, str]]]
    #: Every seen name, normalized: a mention written exactly so is not an inflection.
    exact: frozenset[str]


def inflection_index(
    names: Sequence[tuple[str, str]], normalized: frozenset[str], language: str
) -> InflectionIndex:
    """The :class:`InflectionIndex` of ``names`` ((name, catalog) pairs) in ``language``;
    ``normalized`` is every one of those names normalized (the name index holds them)."""
    stems: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    keys: dict[str, tuple[str, ...]] = {}  # a name held by two catalogs is stemmed once
    for name, catalog in names:
        key = keys.get(name)
        if key is None:
            key = keys[name] = _key(name, language)
        if 0 < len(key) <= MAX_WORDS:
            stems.setdefault(key, []).append((name, catalog))
    return InflectionIndex(stems, normalized)


#: Bump when :func:`inflection_index`, the stemming or the document's layout changes in a way
#: :func:`rules_version` cannot see (it hashes the endings and limits, not the code). Format 2:
#: the stems are one JSON object keyed by the joined stems (format 1 had a list of pairs).
INFLECTION_FORMAT = 2
#: What joins a name's stems into one key of the document (no stem holds a space: ``_WORD``).
_STEM_JOIN = " "


@functools.cache
def rules_version() -> str:
    """A short hash of what an :class:`InflectionIndex` depends on besides its names: the
    format, the endings, the limits and the word pattern (part of the name it is kept under)."""
    rules = {
        "format": INFLECTION_FORMAT,
        "endings": ENDINGS,
        "limits": [MIN_STEM, MAX_WORDS],
        "word": _WORD.pattern,
    }
    return hashlib.sha256(json.dumps(rules, sort_keys=True).encode("utf-8")).hexdigest()[:12]


def inflection_document(index: InflectionIndex) -> dict[str, Any]:
    """``index`` as JSON data for :func:`inflection_from_document`: the stems as one object (in
    index order) from the space-joined stems of a name to its (name, catalog) pairs, flattened,
    so the JSON parser builds the whole mapping and reading needs no Python loop over it."""
    return {
        "rules": rules_version(),
        "stems": {
            _STEM_JOIN.join(key): [part for pair in pairs for part in pair]
            for key, pairs in index.stems.items()
        },
        "exact": sorted(index.exact),
    }


def inflection_from_document(document: Any) -> InflectionIndex:
    """The index :func:`inflection_document` wrote (``ValueError`` for one of other rules or
    shape); its stems become pairs when first looked up (:class:`StemTable`)."""
    if document.get("rules") != rules_version():
        raise ValueError("an inflection index of other rules")
    rows = document["stems"]
    if not isinstance(rows, dict) or any(len(flat) % 2 or not flat for flat in rows.values()):
        raise ValueError("an inflection index's names are (name, catalog) pairs")
    return InflectionIndex(StemTable(rows), frozenset(document["exact"]))


class StemTable(Mapping[tuple[str, ...], Sequence[tuple[str, str]]]):
    """The stems of a read-back :class:`InflectionIndex`: the document's object of flat rows by
    joined stems, whose rows become (name, catalog) pairs on first access (then kept)."""

    __slots__ = ("_built", "_rows")

    def __init__(self, rows: dict[str, list[str]]) -> None:
        self._rows = rows
        self._built: dict[str, list[tuple[str, str]]] = {}

    def get(self, key: tuple[str, ...], default: Any = None) -> Any:
        """The pairs of ``key`` (a tuple of stems), or ``default`` (one join, no exception)."""
        joined = _STEM_JOIN.join(key)
        found = self._built.get(joined)
        if found is None:
            flat = self._rows.get(joined)
            if flat is None:
                return default
            found = self._built[joined] = list(zip(flat[0::2], flat[1::2]))  # noqa: B905
        return found

    def __getitem__(self, key: tuple[str, ...]) -> Sequence[tuple[str, str]]:
        found: Sequence[tuple[str, str]] | None = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and self.get(key) is not None

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return (tuple(joined.split(_STEM_JOIN)) for joined in self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def inflected_spans(
    sources: Sequence[SourceText], index: InflectionIndex, language: str
) -> list[Span]:
    """Spans of inflected mentions of the seen catalog names of ``index`` (see the module
    docstring); each span records the catalogs of the names it matched."""
    if not inflects(language):
        return []
    found: list[Span] = []
    for source in sources:
        tokens = source.tokens
        for first in range(len(tokens)):
            if tokens[first].enclosed:
                continue
            for last in range(first, min(first + MAX_WORDS, len(tokens))):
                window = tokens[first : last + 1]
                if last > first and (
                    window[-1].enclosed or not name_gap(source.text, window[-2], window[-1])
                ):
                    break
                if all(is_stopword(t.text) for t in window) or any(t.has_digit for t in window):
                    continue
                written = source.text[window[0].start : window[-1].end]
                matched = index.stems.get(_key(written, language))
                if not matched:
                    matched = next(
                        (m for k in _deeper_keys(written, language) if (m := index.stems.get(k))),
                        None,
                    )
                if not matched or normalize_for_match(written) in index.exact:
                    continue
                length, catalogs = _match(written, matched, len(window), language)
                if length:
                    start = window[0].start
                    capitalized = any(t.capitalized or not t.cased for t in window)
                    found.append(
                        Span(
                            source.alias,
                            source.order,
                            start,
                            start + length,
                            written[:length],
                            "inflected" if len(window) > 1 else "inflected_word",
                            len(_WORD.findall(written[:length])),
                            weak=not capitalized,
                            initial=window[0].sentence_initial,
                            extent_end=window[-1].end,
                            found_in=catalogs,
                        )
                    )
    found.sort(key=lambda s: (-(s.extent - s.start), s.position))
    kept: list[Span] = []
    for span in found:
        if not any(
            k.source == span.source and k.start <= span.start and span.extent <= k.extent
            for k in kept
        ):
            kept.append(span)
    return sorted(kept, key=lambda s: s.position)
