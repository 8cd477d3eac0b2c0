"""Misspelled names: a grounded sub-span term that still finds the creature (pure logic).

A reporter writes "Ancient Core Hount", "Corporate Keeshan", "Ice Touched Earthragers",
"Hellen Puentecanto". No catalog name equals or contains what they wrote, so a literal contains
search for the mention finds nothing, and the plan may not correct the spelling (a term must be a
literal part of the cited text). :func:`misspelled_term` asks the name index for the closest
names (RapidFuzz Indel ratio at least :data:`MIN_SCORE`, any locale) and searches the stretch
of the mention, as written, that the closest name also holds and the fewest other names
contain (:func:`best_part`): "Ancient Core Houn",
"Keeshan", "Touched Earthrager", "ellen Puentecanto". The mentions stay whole, so the assessment
can compare what the reporter wrote with each candidate's name.

A sub-span is used only when it is at least :data:`MIN_PART` letters long, covers at least
:data:`MIN_COVER` of the mention, and the names of at most :data:`MAX_ENTITIES` entities contain
it (a contains search for it then captures every candidate), or, for a primary catalog name, the
contains search still places the named entity among its first :data:`MAX_ENTITIES` rows (the
controller orders shorter names first: "Sind" of "Sindagosa" is in 12 entities' names, and
Sindragosa is the fifth row); the closest name must beat the next different entity's by
:data:`MIN_MARGIN` points.

What it cannot do: a misspelling that changes most letters, or a name the index does not hold, is
not found; a transposed first letter leaves only the rest of the name to search; accents are
not folded ("Sköll" for "Skoll" is not searchable literally on a backend that does not fold them).

The planner asks this module twice: :func:`misspellings` picks the mentions worth a lookup (the
capitalized ones no catalog name equals or contains, at most :data:`MAX_MISSPELLING_LOOKUPS`,
and the rare last word of a run (:mod:`.rare_words`), a boss's only), and :func:`sharpened` searches an inflected name
that too many names contain by the rarer part it shares with the closest name.

A single word close to no whole name may be a misspelled short form of a longer one: it is
compared with the rare words of primary names (:func:`short_form_term`, :mod:`.name_index_words`:
"Kaelthas" ~ "kael'thas", searched by "Kael"), a boss's only.
"""

from collections.abc import Sequence
from dataclasses import replace

from rapidfuzz.distance import Levenshtein

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.heuristic.admission import common_noun
from vba_assets.heuristic.literal_terms import common_stretches
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.name_index_words import name_words
from vba_assets.heuristic.rare_words import last_word
from vba_assets.heuristic.roles import zone_like
from vba_assets.heuristic.spans import SourceText, Span
from vba_assets.heuristic.terms import Misspelling, ReportFacts, Term

#: Lowest Indel ratio (0-100) of a misspelled mention and the name it stands for; a mention
#: one edit (Levenshtein) from the name may be as low as :data:`MIN_SHORT_SCORE` (short names).
MIN_SCORE = 84.0
MIN_SHORT_SCORE = 78.0
#: The best name must beat the next different entity's by this many points.
MIN_MARGIN = 3.0
#: Shortest searched part, in letters.
MIN_PART = 4
#: Smallest share of the mention's letters the searched part must cover.
MIN_COVER = 0.4
#: Most entities whose names may contain the searched part.
MAX_ENTITIES = 8


def _letters(text: str) -> int:
    return sum(1 for char in text if char.isalnum())


def _lower(text: str) -> str:
    """``text`` lower-cased character by character (the same length, so offsets carry over)."""
    return "".join(low if len(low := char.lower()) == 1 else char for char in text)


def misspelled_term(term: Term, index: NameIndex, boss: bool = False) -> Term | None:
    """The sub-span term of a misspelled mention, or None (see the module docstring): by the
    closest whole name, else, for one word, by the closest rare word of a name
    (:func:`short_form_term`); with ``boss``, only when the named entities include a boss."""
    written = term.text
    if _letters(written) < MIN_PART + 1 or term.exact:
        return None
    if boss and not name_words(index).near_boss(written, MIN_SHORT_SCORE):
        return None  # no boss's name or name word is close: nothing a lookup could accept
    found = index.closest(written, MIN_SHORT_SCORE, limit=6)
    if not found:
        return short_form_term(term, index)
    best_name, best_score = found[0]
    one_edit = Levenshtein.distance(normalize_for_match(written), best_name) <= 1
    if best_score < MIN_SCORE and not one_edit:
        return short_form_term(term, index)  # a short name is close when one letter differs
    entries = index.by_name[best_name]
    identities = {entry.identity for entry in entries}
    rival = next((score for name, score in found[1:] if _others(index, name, identities)), None)
    if rival is not None and best_score - rival < MIN_MARGIN:
        return None
    if boss and not any(index.boss(identity) for identity in identities):
        return None
    primary = next((e for e in entries if e.primary), None)
    part = best_part(written, best_name, identities, index, primary is not None)
    if part is None:
        return short_form_term(term, index)
    chosen = primary or entries[0]
    return _narrowed(term, part, chosen.name, chosen.identity, best_score, chosen.primary)


def short_form_term(term: Term, index: NameIndex) -> Term | None:
    """The sub-span term of one misspelled word of a longer name ("Kaelthas" of Kael'thas
    Sunstrider, searched by "Kael"; "ilidan" of Illidan Stormrage by "lidan"), or None: the
    closest rare word of a primary name (:mod:`.name_index_words`, the same score, one-edit and
    margin rules as a whole name, the word's entities as the named ones), searched by the
    part :func:`best_part` picks. A word written exactly is no misspelling (None)."""
    written = term.text
    if len(term.words) != 1:
        return None
    words = name_words(index)
    found = words.closest(written, MIN_SHORT_SCORE, limit=6)
    if not found:
        return None
    best_word, best_score = found[0]
    normalized = normalize_for_match(written)
    if normalized == best_word:
        return None
    one_edit = Levenshtein.distance(normalized, best_word) <= 1
    if best_score < MIN_SCORE and not one_edit:
        return None
    identities = set(words.entities[best_word])
    if not any(index.boss(identity) for identity in identities):
        return None  # a boss's short form, as :func:`~.admission.boss_short_form` reads it
    rival = next((s for w, s in found[1:] if not identities.issuperset(words.entities[w])), None)
    if rival is not None and best_score - rival < MIN_MARGIN:
        return None
    part = best_part(written, best_word, identities, index)
    if part is None:
        return None
    chosen = min(identities, key=lambda i: (not index.boss(i), len(index.names_of(i)[0].name), i))
    name = index.names_of(chosen)[0].name
    return _narrowed(term, part, name, chosen, best_score, primary=True)


def _narrowed(
    term: Term, part: str, name: str, identity: int, score: float, primary: bool
) -> Term | None:
    spans = [s for s in term.spans if _lower(part) in _lower(s.text)]
    if not spans:
        return None
    return Term(
        key=part.casefold(),
        spans=spans,
        cues=term.cues,
        narrow=part,
        misspelling=Misspelling(
            name=name,
            identity=identity,
            score=score,
            catalog_kind="name" if primary else "localized_name",
        ),
    )


def _common_parts(written: str, name: str) -> set[tuple[int, int]]:
    """Every maximal common stretch of ``written`` (lower-cased) and ``name``, as offsets into
    ``written``, trimmed to letters and digits at both ends."""
    return common_stretches(written, _lower(written), name)


def best_part(
    written: str, name: str, identities: set[int], index: NameIndex, primary: bool = True
) -> str | None:
    """The literal part of ``written`` to search for ``name``: of the stretches both share (at
    least :data:`MIN_PART` letters and :data:`MIN_COVER` of the mention, not the whole mention
    nor the whole name, not another creature's whole name), the one the fewest entities' names
    contain while the named entity's still do (a contains search then captures every
    candidate), the longest on a tie. When every shared stretch is in more names than that and
    ``name`` is a ``primary`` catalog name, the one whose contains search on the primary catalog
    still places the named entity earliest among its first :data:`MAX_ENTITIES` rows
    (:meth:`.NameIndex.capture_rank`: exact name first, then shorter names; "Sind" of
    "Sindagosa" is in 12 entities' names and reaches Sindragosa as the fifth row). Not for a
    localized name: its catalog holds a row per locale, and a report's word is often close to
    another language's name ("Revision" and the German "Rabenvision")."""
    whole = normalize_for_match(written)
    best: tuple[int, int, str] | None = None
    reachable: tuple[int, int, str] | None = None
    for start, end in _common_parts(written, name):
        part = written[start:end]
        letters = _letters(part)
        if letters < MIN_PART or letters < MIN_COVER * _letters(written):
            continue
        if normalize_for_match(part) in (whole, name):
            continue  # the whole mention, or a whole name inside a longer phrase
        if any(e.identity not in identities for e in index.exact(part)):
            continue  # another creature's whole name ("Wolpertinger" of "Wilden Wolpertinger")
        found = index.containing(part, MAX_ENTITIES)
        if found and len(found) <= MAX_ENTITIES and identities & set(found):
            rank = (len(found), -letters, part)
            best = rank if best is None or rank < best else best
            continue
        position = index.capture_rank(part, identities, primary=True) if primary else None
        if position is not None and position < MAX_ENTITIES:
            rank = (position, -letters, part)
            reachable = rank if reachable is None or rank < reachable else reachable
    chosen = best or reachable
    return None if chosen is None else chosen[2]


def _others(index: NameIndex, name: str, identities: set[int]) -> bool:
    return any(entry.identity not in identities for entry in index.by_name[name])


#: Most mentions of one report that are compared with the whole index for a misspelling.
MAX_MISSPELLING_LOOKUPS = 8


def _covered(span: Span, others: Sequence[Span]) -> bool:
    """True when ``span`` lies inside (or equals) one of ``others`` of its source."""
    return any(
        o.source == span.source and o.start <= span.start and span.end <= o.extent for o in others
    )


def misspellings(
    grouped: Sequence[Term],
    kept: Sequence[Term],
    index: NameIndex,
    facts: ReportFacts,
) -> list[Term]:
    """Sub-span terms for capitalized mentions that no catalog name equals or contains
    (:mod:`.misspellings`): whole runs or quoted strings, not common nouns, places (zone words,
    or only locative cues: "around the Argent Vanguard") or possessive parts of other names, not
    inside the mention of a kept term that finds something (a kept term that finds nothing,
    "Kel Thuzad" for Kel'Thuzad, is looked up too: :func:`without_dead_terms`), first mentions
    first; a run of several words that is no misspelling is looked up once more by its last word
    ("Naxxramas Thaddous"). Mentions whose misspellings are searched by the same part make one
    term."""
    taken = [span for term in kept if not term.finds_nothing for span in term.spans]
    found: list[Term] = []
    looked = 0
    for term in grouped:
        if looked >= MAX_MISSPELLING_LOOKUPS:
            break
        if (
            term.reference is not None
            or term.exact
            or term.containing
            or term.weak
            or not term.proper
            or not any(span.kind in ("run", "quoted", "subrun") for span in term.spans)
            or all(span.compound for span in term.spans)
            or common_noun(term, facts)
            or zone_like(term.text)
            or (term.cues.location > 0 and not term.cues.any_subject_cue)  # a place
            or any(_covered(span, taken) for span in term.spans)
        ):
            continue
        looked += 1
        narrowed = misspelled_term(term, index)
        if narrowed is None and len(term.words) > 1:
            last = last_word(term, facts.language)
            narrowed = None if last is None else misspelled_term(last, index, boss=True)
        if narrowed is not None:
            _add(found, narrowed)
    return found


def _add(found: list[Term], narrowed: Term) -> None:
    same = next((t for t in found if t.key == narrowed.key), None)
    if same is None:
        found.append(narrowed)
    else:  # two spellings searched by one part ("Sind" of "Sindagoza" and "Sindagosa")
        spans = {(s.source, s.start, s.end): s for s in [*same.spans, *narrowed.spans]}
        same.spans = sorted(spans.values(), key=lambda s: s.position)
        same.cues = same.cues + narrowed.cues


def without_dead_terms(terms: Sequence[Term], found: Sequence[Term]) -> list[Term]:
    """``terms`` without the ones that find nothing and whose every mention a misspelling term of
    ``found`` cites ("Kel Thuzad", searched by "Thuzad" instead), then ``found``."""
    cited = {(s.source, s.start, s.end) for term in found for s in term.spans}
    kept = [
        term
        for term in terms
        if not (term.finds_nothing and all((s.source, s.start, s.end) in cited for s in term.spans))
    ]
    return [*kept, *found]


def sharpened(term: Term, sources: Sequence[SourceText], index: NameIndex) -> Term:
    """An inflected name whose searched beginning many names contain ("Дракончик" of
    "Дракончики Ониксии": a truncated capture) is searched by the rarer literal part it shares
    with the closest name instead ("Ониксии", :func:`~.misspellings.best_part`); the mention
    becomes the whole name as written. Any other term is returned unchanged."""
    if not term.spans or any(span.kind != "inflected" for span in term.spans):
        return term
    if index.containing_count(term.search_text, MAX_ENTITIES) <= MAX_ENTITIES:
        return term
    texts = {source.alias: source.text for source in sources}
    whole = [
        replace(s, end=s.extent, text=texts[s.source][s.start : s.extent], kind="run")
        for s in term.spans
    ]
    better = misspelled_term(Term(term.key, whole, cues=term.cues), index)
    return better if better is not None else term
