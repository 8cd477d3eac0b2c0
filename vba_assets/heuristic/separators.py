"""Names written with other separators (pure logic; protocol v6 corrected terms, issue 29).

A reporter writes "Yogg Saron" or "yogg saron" for Yogg-Saron, "Kel Thuzad" for Kel'Thuzad,
"zul jin" for Zul'jin, "Kelthuzad" without the apostrophe. No catalog name equals what they
wrote, and a literal contains search can only take a stretch of it that the name also holds
("Saron", "Thuzad": a truncated capture, so nothing can be selected), or nothing at all
(lower-case words are no span of :mod:`.spans`).

:func:`separator_variants` reads every run of one to :data:`MAX_WINDOW` words of each source
(joined as a catalog name may be: :func:`~.source_words.name_gap`) and compares its
letters-and-digits form (:func:`~vba_assets.domain.resolution.corrections.correction_form`: case,
accents, spaces, hyphens and apostrophes dropped) with the same form of every name of the index,
any locale (:func:`compact_names`, built once per index). A run matches a name when the forms
are equal (also without a possessive "'s" or a plural "s" of its last word) and the run, as
written, is not already that name (:func:`~vba_assets.domain.catalog.names.normalize_for_match`
equal: the gazetteer finds it). Longer runs win over the runs inside them ("Guardian of Yogg
Saron" is the guardian, not Yogg-Saron), and a run that is exactly a name as written takes its
place too. In an English report, a run that is only a localized name as written ("Edwin Van
Cleef", the Spanish and German rows) is searched by the primary name of that form ("Edwin
VanCleef"): a localized match is weak evidence in an English report.

A match is kept when:

* its form holds at least :data:`~vba_assets.domain.resolution.corrections.MIN_LETTERS` letters,
  and one word of the run is no common word of English or the report's language ("Van Cleef"
  yes, "Sea Wolf" no);
* the matched forms name one creature (the same identities), or several sharing one name;
* the run has at least as many words as the name has space-separated words: a reporter splits
  a name or drops its apostrophes and hyphens, while words of a name written as one are another
  word ("Netherstorm", the zone, is not the creature Nether Storm); only a boss's name of
  several words may be written with two of them joined ("Hexlord Malacrass");
* no capitalized word is glued to the run by spaces (it would be part of a longer name:
  "Kil'ruk the Wind-Reaver", a later expansion's boss, is not the creature The Windreaver);
* a run written in lower case only names a boss (the catalog's rank), as a correction does;
* it is not inside an identity the report links (the link's own search decides it).

The term is the creature's primary name (its localized name when only that matches), searched in
that catalog with ``corrected_from`` the first mention: the controller accepts a distance 0
correction (:func:`~vba_assets.domain.resolution.corrections.correction_refusal`) and the
assessment decides it as the exact name it is (an exact unique name, or a same-name tie broken by
a grounded fact). :func:`with_separator_variants` puts the search in place of the literal
stretch that cited only those mentions ("Saron" of "Yogg Saron"), else beside a search of the
same name, else into a free search slot.

What it cannot do: a run that also misspells a letter ("Yog Saron") is left to
:mod:`.corrections`; a short form written with other separators ("Van Cleef" of Edwin VanCleef)
is no whole name and is not corrected here.
"""

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vba_assets.domain.case.text import fold
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.resolution.corrections import (
    MIN_LETTERS,
    correction_form,
    correction_refusal,
)
from vba_assets.domain.resolution.models import (
    MentionCitation,
    ProposedSearch,
    SearchRole,
    UnsearchedName,
)
from vba_assets.domain.stage_context import CatalogView, catalog_of_kind
from vba_assets.domain.text_budget import check_budget
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.lexicon import is_stopword
from vba_assets.heuristic.name_index import IndexedName, NameIndex
from vba_assets.heuristic.source_words import APOSTROPHES, SourceText, name_gap, plain_gap
from vba_assets.heuristic.spans import Span

#: Most words of a run compared with the names.
MAX_WINDOW = 4
#: Most mentions one corrected search cites.
MAX_MENTIONS = 8


@dataclass(frozen=True)
class Variant:
    """A creature name the report writes with other separators, and where."""

    name: str
    primary: bool
    identities: frozenset[int]
    spans: tuple[Span, ...]


_NOT_ALNUM = re.compile(r"[\W_]+")


def compact(key: str) -> str:
    """The letters-and-digits form of a normalized name: ``correction_form`` of it (the
    decomposition's combining marks are no word characters, so one substitution drops them with
    the spaces and punctuation; equal on every name of the packaged index, and five times
    faster over its two hundred thousand names)."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKD", key))


@dataclass(frozen=True)
class CompactNames:
    """Every normalized name of an index by its letters-and-digits form: the one name of a form,
    and the few forms several names share (built once per index: one pass over the names)."""

    single: dict[str, str]
    shared: dict[str, tuple[str, ...]]

    def get(self, form: str) -> tuple[str, ...] | None:
        """The names of ``form``, or None."""
        found = self.shared.get(form)
        if found is not None:
            return found
        key = self.single.get(form)
        return None if key is None else (key,)


def _build(index: NameIndex) -> CompactNames:
    single: dict[str, str] = {}
    shared: dict[str, list[str]] = {}
    for key in index.by_name:
        form = compact(key)
        if len(form) < MIN_LETTERS:
            continue
        first = single.setdefault(form, key)
        if first != key:
            shared.setdefault(form, [first]).append(key)
    return CompactNames(single, {form: tuple(sorted(keys)) for form, keys in shared.items()})


def compact_names(index: NameIndex) -> CompactNames:
    """The :class:`CompactNames` of ``index`` (built once per index)."""
    return index.derived(("separator-forms",), lambda: _build(index))


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", normalize_for_match(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(frozen=True)
class _Match:
    source: SourceText
    first: int
    last: int
    end: int
    keys: tuple[str, ...]
    exact: bool

    @property
    def start(self) -> int:
        return self.source.tokens[self.first].start


def _forms(source: SourceText, first: int, last: int) -> list[tuple[int, str]]:
    """(end, form) of the run: as written, then without a possessive or a plural "s"."""
    token = source.tokens[last]
    text = source.text[source.tokens[first].start : token.end]
    form = correction_form(text)
    found = [(token.end, form)]
    if len(token.text) > 3 and token.text[-2] in APOSTROPHES and token.text[-1] in "sS":
        found.append((token.end - 2, form[:-1]))
    elif token.text[-1:] in "sS" and len(token.text) >= 4:
        found.append((token.end - 1, form[:-1]))
    return found


def _matches(
    source: SourceText, forms: CompactNames, index: NameIndex, english: bool
) -> list[_Match]:
    tokens = source.tokens
    found: list[_Match] = []
    for first in range(len(tokens)):
        check_budget()
        if tokens[first].enclosed:
            continue
        for last in range(first, min(first + MAX_WINDOW, len(tokens))):
            if last > first and (
                tokens[last].enclosed or not name_gap(source.text, tokens[last - 1], tokens[last])
            ):
                break
            for end, form in _forms(source, first, last):
                keys = forms.get(form)
                if keys is None:
                    continue
                written = source.text[tokens[first].start : end]
                exact = _exact(written, keys, index, english)
                found.append(_Match(source, first, last, end, keys, exact))
                break
    return found


def _exact(written: str, keys: Sequence[str], index: NameIndex, english: bool) -> bool:
    """Whether ``written`` is already one of the names ``keys`` as written; in an English
    report a localized name only ("Edwin Van Cleef", the Spanish and German rows) is not, when
    a primary name of the same form is there ("Edwin VanCleef"): the plan would search it in
    the localized catalog, weak evidence in an English report."""
    same = [k for k in keys if k == normalize_for_match(written) or _plain(k) == _plain(written)]
    if not same:
        return False
    if not english or any(e.primary for k in same for e in index.by_name[k]):
        return True
    return not any(e.primary for k in keys if k not in same for e in index.by_name[k])


def _outermost(found: Sequence[_Match]) -> list[_Match]:
    """The matches not inside a longer one (a longer one first, then the earlier)."""
    ordered = sorted(found, key=lambda m: (-(m.end - m.start), m.start))
    kept: list[_Match] = []
    for match in ordered:
        if not any(k.start <= match.start and match.end <= k.end for k in kept):
            kept.append(match)
    return kept


def _entries(index: NameIndex, keys: Sequence[str]) -> list[IndexedName]:
    return [entry for key in keys for entry in index.by_name[key]]


def _worded(match: _Match, language: str) -> bool:
    """One word of the run is no common word of English or ``language``."""
    words = [t.text.casefold() for t in match.source.tokens[match.first : match.last + 1]]
    return any(not common_word(w, "en") and not common_word(w, language) for w in words)


def _glued(match: _Match) -> bool:
    """A capitalized word (no stop word) is glued to the run by spaces on either side: the run
    is part of a longer name ("Kil'ruk the Wind-Reaver" is not "The Windreaver")."""
    tokens, text = match.source.tokens, match.source.text
    pairs = []
    if match.first > 0:
        pairs.append((tokens[match.first - 1], tokens[match.first - 1], tokens[match.first]))
    if match.last + 1 < len(tokens):
        pairs.append((tokens[match.last + 1], tokens[match.last], tokens[match.last + 1]))
    return any(
        other.capitalized
        and not other.enclosed
        and not is_stopword(other.text)
        and plain_gap(text, left, right)
        for other, left, right in pairs
    )


def _variant(match: _Match, index: NameIndex, language: str) -> Variant | None:
    entries = _entries(index, match.keys)
    identities = frozenset(entry.identity for entry in entries)
    by_key = {key: frozenset(e.identity for e in index.by_name[key]) for key in match.keys}
    if len(set(by_key.values())) > 1:
        return None  # two names of this form, of different creatures
    if not _worded(match, language) or _glued(match):
        return None
    joined = any(len(key.split()) > match.last - match.first + 1 for key in match.keys)
    if joined and not (match.last > match.first and any(index.boss(i) for i in identities)):
        return None  # words of the name written as one ("Netherstorm", not "Nether Storm")
    written = match.source.text[match.start : match.end]
    if written == written.lower() and not any(index.boss(i) for i in identities):
        return None
    entry = next((e for e in entries if e.primary), entries[0])
    if correction_refusal(entry.name, written) is not None:
        return None  # the controller's own bound ("Jr." holds a period: no corrected term)
    span = Span(
        match.source.alias,
        match.source.order,
        match.start,
        match.end,
        written,
        "separator",
        match.last - match.first + 1,
    )
    return Variant(entry.name, entry.primary, identities, (span,))


def separator_variants(
    sources: Sequence[SourceText],
    index: NameIndex,
    language: str,
    linked: Sequence[Span] = (),
) -> list[Variant]:
    """The names the report writes with other separators (see the module docstring), first
    mention first, one per name, its mentions in text order; ``linked``: the mentions of the
    identities the report links (never corrected)."""
    forms = compact_names(index)
    variants: dict[str, Variant] = {}
    for source in sources:
        for match in sorted(
            _outermost(_matches(source, forms, index, language == "en")), key=lambda m: m.start
        ):
            if match.exact or any(
                s.source == source.alias and s.start < match.end and match.start < s.extent
                for s in linked
            ):
                continue
            found = _variant(match, index, language)
            if found is None:
                continue
            key = fold(found.name)
            same = variants.get(key)
            spans = found.spans if same is None else (*same.spans, *found.spans)
            variants[key] = Variant(found.name, found.primary, found.identities, spans)
    return sorted(variants.values(), key=lambda v: v.spans[0].position)


def _inside(mention: MentionCitation, spans: Sequence[Span]) -> bool:
    return any(
        s.source == mention.source and s.start <= mention.start and mention.end <= s.end
        for s in spans
    )


def with_separator_variants(
    searches: Sequence[ProposedSearch],
    unsearched: Sequence[UnsearchedName],
    variants: Sequence[Variant],
    catalogs: Sequence[CatalogView],
    max_searches: int,
    roles: Mapping[str, SearchRole],
) -> tuple[list[ProposedSearch], list[UnsearchedName]]:
    """``searches`` with a corrected search for each variant (see the module docstring); the
    unsearched names whose mentions a variant cites are dropped. ``roles``: the role of each
    variant's name (folded) when a new search is added."""
    result = list(searches)
    left = list(unsearched)
    for variant in variants:
        check_budget()
        kind = "name" if variant.primary else "localized_name"
        catalog = catalog_of_kind(kind, catalogs)
        if catalog is None:
            continue
        mentions = [span.citation() for span in variant.spans[:MAX_MENTIONS]]
        if join_same_name(result, variant.name, catalog, mentions):
            continue
        literal = [
            n
            for n, s in enumerate(result)
            if s.reference is None
            and s.corrected_from is None
            and all(_inside(m, variant.spans) for m in s.mentions)
        ]
        role = roles.get(fold(variant.name), "affected_subject")
        if literal:
            role = result[literal[0]].role
        corrected = ProposedSearch(
            term=variant.name,
            catalog=catalog,
            role=role,
            mentions=mentions,
            corrected_from=mentions[0],
        )
        if literal:
            result[literal[0]] = corrected
            result = [s for n, s in enumerate(result) if n not in literal[1:]]
        elif len(result) < max_searches:
            result.append(corrected)
        else:
            continue
        left = [u for u in left if not all(_inside(m, variant.spans) for m in u.mentions)]
    return result, left


def join_same_name(
    result: list[ProposedSearch], name: str, catalog: str, mentions: list[MentionCitation]
) -> bool:
    """When ``result`` already searches ``name`` in ``catalog``: add the corrected ``mentions``
    to it (up to :data:`MAX_MENTIONS`) with the first as its ``corrected_from`` (unless it is an
    identity reference or already corrects a span) and return True; else False."""
    same = next(
        (n for n, s in enumerate(result) if fold(s.term) == fold(name) and s.catalog == catalog),
        None,
    )
    if same is None:
        return False
    search = result[same]
    if search.reference is None and search.corrected_from is None:
        cited = [*search.mentions, *(m for m in mentions if m not in search.mentions)]
        cited = cited[:MAX_MENTIONS]
        if mentions[0] in cited:
            update = {"mentions": cited, "corrected_from": mentions[0]}
            result[same] = search.model_copy(update=update)
    return True
