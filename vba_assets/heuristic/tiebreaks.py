"""The heuristic's grounded tie-breaks (protocol v6, issue 29 item 4).

When several candidates of a search carry exactly the searched name, :func:`find_tiebreak` looks
for a grounded fact in the report that tells exactly one of them apart, in this order:

1. ``link``: the report links one of their identities (``npc=<id>``) and no other of them, or
   writes its digits as a number of their own ("ID of the NPC: 21140");
2. ``quest``: the report writes the title (any locale) of a quest that exactly one of them starts
   or ends, according to the quest relations the controller captured for the search;
3. ``data_column``: the report writes the subname of exactly one of them, or the word "boss"
   (any reporter language) while exactly one of them has the boss rank (3);
4. ``zone``: the report writes (whole words, any case and apostrophe) a name of a zone that
   exactly one of them has spawn markers in, according to the zone markers the controller
   captured; a level-1 row (a script dummy or encounter copy) is never chosen by a zone;
5. ``level``: exactly one of them is above level 1 and the others are level-1 script copies
   (the capture's ``maxlevel``); the span is the selection's own mention.

A fact that is found for two or more of the tied entities breaks nothing; a helper entry is never
chosen. Every tie-break returned passes the controller's own check
(:func:`~vba_assets.domain.resolution.tiebreaks.tiebreak_problem`), so a selection it grounds is
never rejected for it.

Cost: one pass per source for the links, and one bounded regex search per source for each
distinct captured title and zone name (at most ``RELATION_ROW_LIMIT`` / ``ZONE_ROW_LIMIT`` rows)
and each tied subname, and only for
the searches with a tie: linear in the report's size.
"""

import re
from collections.abc import Iterator, Mapping, Sequence

from vba_assets.domain.case.text import has_format_control
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.catalog.world import Scalar
from vba_assets.domain.resolution.models import (
    GroundedTiebreak,
    MentionCitation,
    SearchAssessmentOutput,
)
from vba_assets.domain.resolution.tiebreaks import (
    BOSS_RANK,
    BOSS_WORD,
    TEXT_COLUMNS,
    is_script_copy,
    linked_identities,
    tiebreak_problem,
    tied_identities,
)
from vba_assets.domain.resolution.zone_facts import zone_holders
from vba_assets.domain.stage_context import CandidateView, SearchView
from vba_assets.heuristic.candidate_names import (
    MIN_SPELLING,
    SPELLING_MARGIN,
    is_helper,
    spelling_similarity,
)
from vba_assets.heuristic.markup import read_markup

#: Shortest title or subname (letters and digits, after normalization) the heuristic looks for.
MIN_FACT_CHARS = 4
#: Fewest digits of a written identity the heuristic cites (:mod:`~vba_assets.domain.resolution.
#: written_ids`).
MIN_WRITTEN_DIGITS = 3
_LINK = re.compile(r"\S*npc(?:=|/)[0-9]+\S*", re.IGNORECASE)
_APOSTROPHES = "'’`´‘"


def _phrase_pattern(text: str) -> re.Pattern[str] | None:
    """``text`` as a whole-word, case-insensitive pattern (any run of spaces, any apostrophe)."""
    words = text.split()
    if not words:
        return None
    parts = [
        "".join(f"[{_APOSTROPHES}]" if ch in _APOSTROPHES else re.escape(ch) for ch in word)
        for word in words
    ]
    return re.compile(r"(?<!\w)" + r"\s+".join(parts) + r"(?!\w)", re.IGNORECASE)


def _spans(text: str, sources: Mapping[str, str]) -> Iterator[MentionCitation]:
    pattern = _phrase_pattern(text)
    if pattern is None:
        return
    for alias, source in sources.items():
        for match in pattern.finditer(source):
            yield MentionCitation(
                source=alias, quote=match.group(0), start=match.start(), end=match.end()
            )


def _long_enough(text: str) -> bool:
    return sum(ch.isalnum() for ch in normalize_for_match(text)) >= MIN_FACT_CHARS


def _link_facts(tied: Sequence[int], sources: Mapping[str, str]) -> dict[int, GroundedTiebreak]:
    """The links to tied identities, then their digits written as numbers of their own ("ID of
    the NPC: 21140"): the standalone numbers :mod:`.markup` finds outside URLs and hidden
    template text (each a written identity the controller accepts,
    :mod:`~vba_assets.domain.resolution.written_ids`), from :data:`MIN_WRITTEN_DIGITS` digits: a
    short number is too often a level or a count."""
    found: dict[int, GroundedTiebreak] = {}
    wanted = set(tied)
    for alias, text in sources.items():
        for match in _LINK.finditer(text):
            for identity in sorted(linked_identities(match.group(0)) & wanted):
                span = MentionCitation(
                    source=alias, quote=match.group(0), start=match.start(), end=match.end()
                )
                found.setdefault(identity, GroundedTiebreak(fact="link", span=span))
    for alias, text in sources.items():  # the report's standalone numbers, as references read them
        for number in read_markup(text).numbers:
            start, end = number.start, number.end
            if number.value in wanted and end - start >= MIN_WRITTEN_DIGITS:
                span = MentionCitation(source=alias, quote=text[start:end], start=start, end=end)
                found.setdefault(number.value, GroundedTiebreak(fact="link", span=span))
    return found


def _quest_facts(
    search: SearchView, sources: Mapping[str, str], names: Sequence[str]
) -> dict[int, GroundedTiebreak]:
    relations = search.quest_relations
    if relations is None or relations.truncated:
        return {}
    term = {normalize_for_match(name) for name in (search.term, *names)}
    titles = dict.fromkeys(row.title.strip() for row in relations.rows)
    found: dict[int, GroundedTiebreak] = {}
    for title in titles:
        if not _long_enough(title) or normalize_for_match(title) in term:
            continue
        span = next(_spans(title, sources), None)
        if span is None:
            continue
        key = normalize_for_match(title)
        for row_index, row in enumerate(relations.rows):
            if normalize_for_match(row.title.strip()) == key and isinstance(row.identity, int):
                found.setdefault(
                    row.identity,
                    GroundedTiebreak(fact="quest", span=span, relation_row=row_index),
                )
    return found


def _zone_facts(
    search: SearchView, tied: Sequence[int], sources: Mapping[str, str], names: Sequence[str]
) -> dict[int, GroundedTiebreak]:
    """The tied identity each zone name the report writes (whole words) belongs to alone; a name
    whose zones several tied identities have markers in gives nothing."""
    zones = search.zone_markers
    if zones is None or zones.truncated:
        return {}
    term = {normalize_for_match(name) for name in (search.term, *names)}
    zone_names = dict.fromkeys(row.name.strip() for row in zones.rows if row.name is not None)
    found: dict[int, GroundedTiebreak] = {}
    for name in zone_names:
        if not _long_enough(name) or normalize_for_match(name) in term:
            continue
        span = next(_spans(name, sources), None)
        holders = zone_holders(zones, name) & set(tied)
        if span is None or len(holders) != 1:
            continue
        (holder,) = holders
        key = normalize_for_match(name)
        row_index = next(
            i
            for i, row in enumerate(zones.rows)
            if row.identity == holder
            and row.name is not None
            and normalize_for_match(row.name.strip()) == key
        )
        if isinstance(holder, int):
            found.setdefault(holder, GroundedTiebreak(fact="zone", span=span, zone_row=row_index))
    return found


def _level_facts(
    search: SearchView, tied: Mapping[int, CandidateView], sources: Mapping[str, str]
) -> dict[int, GroundedTiebreak]:
    """The one tied identity above level 1 when every other one is a level-1 script copy; its
    span is the search's first readable mention (the caller cites the selection's own)."""
    real = [i for i, c in tied.items() if not is_script_copy(c.data)]
    mention = next((m for m in search.mentions if m.source in sources), None)
    if len(real) != 1 or mention is None:
        return {}
    return {real[0]: GroundedTiebreak(fact="level", span=mention)}


def _boss_word(sources: Mapping[str, str]) -> MentionCitation | None:
    """The first word "boss" of the report (any reporter language)."""
    for alias, text in sources.items():
        match = BOSS_WORD.search(text)
        if match is not None:
            return MentionCitation(
                source=alias, quote=match.group(0), start=match.start(), end=match.end()
            )
    return None


def _column_facts(
    tied: Mapping[int, CandidateView], sources: Mapping[str, str]
) -> dict[int, GroundedTiebreak]:
    found: dict[int, GroundedTiebreak] = {}
    bosses = [i for i, c in tied.items() if c.data.get("rank") == BOSS_RANK]
    if len(bosses) == 1:
        span = _boss_word(sources)
        if span is not None:
            found[bosses[0]] = GroundedTiebreak(fact="data_column", span=span, column="rank")
    for identity, candidate in tied.items():
        for column in TEXT_COLUMNS:
            value = candidate.data.get(column)
            if not isinstance(value, str) or not _long_enough(value):
                continue
            span = next(_spans(value.strip(), sources), None)
            if span is not None:
                found.setdefault(
                    identity, GroundedTiebreak(fact="data_column", span=span, column=column)
                )
    return found


#: Every kind of fact, in the order they are tried.
ALL_FACTS = ("link", "quest", "data_column", "zone", "level")
#: The facts that break a tie inside an exact-name capture: the report names the entity's quest
#: or zone (or links it). The word "boss" is left out: in a truncated search it named another
#: boss of the same encounter (dev2, Akama and Illidan).
EXACT_FACTS = ("link", "quest", "zone", "level")


def find_tiebreak(
    search: SearchView,
    sources: Mapping[str, str],
    patterns: dict[str, list[re.Pattern[str]]],
    kinds: Sequence[str] = ALL_FACTS,
    group: CandidateView | None = None,
) -> tuple[CandidateView, GroundedTiebreak] | None:
    """The one tied candidate a grounded fact of ``kinds`` tells apart, with that fact; None when
    no fact (or a fact shared by several of them) is found. The tie is the candidates named
    exactly the term, or with ``group`` (protocol v6) the candidates that share a name with
    ``group`` (:func:`view_name_ties`: the full name a short or partial term found)."""
    if group is None:
        names: list[str] = []
        tied_ids = tied_identities(
            search.term,
            ((c.identity, name) for c in search.candidates for name in (c.name, *c.other_names)),
        )
    else:
        tied_ids, names = view_name_ties(search, group)
    if search.truncated or not tied_ids:
        return None
    tied = {c.identity: c for c in search.candidates if isinstance(c.identity, int)}
    tied = {identity: tied[identity] for identity in tied_ids if identity in tied}
    data: dict[int | str, Mapping[str, Scalar]] = {i: c.data for i, c in tied.items()}
    for kind in kinds:
        if kind == "link":
            found = _link_facts(tied_ids, sources)
        elif kind == "quest":
            found = _quest_facts(search, sources, names)
        elif kind == "data_column":
            found = _column_facts(tied, sources)
        elif kind == "zone":
            found = _zone_facts(search, tied_ids, sources, names)
        else:
            found = _level_facts(search, tied, sources)
        # A span crossing a zero-width or bidi character is never a grounded citation
        # (CITATION_INVISIBLE_CHARACTER); dropping only that fact could leave another identity
        # looking unique, so a kind with such a span breaks no tie.
        if len(found) != 1 or any(has_format_control(t.span.quote) for t in found.values()):
            continue
        ((identity, tiebreak),) = found.items()
        chosen = tied.get(identity)
        if chosen is None or is_helper(chosen, patterns):
            continue
        if (kind == "zone" or group is not None) and is_script_copy(chosen.data):
            continue
        problem = tiebreak_problem(
            tiebreak,
            selected=identity,
            tied=tied_ids,
            relations=search.quest_relations,
            data=data,
            term=search.term,
            zones=search.zone_markers,
            names=names,
        )
        if problem is None:
            return chosen, tiebreak
    return None


def describe_tiebreak(search: SearchView, chosen: CandidateView, tiebreak: GroundedTiebreak) -> str:
    """The rationale of a selection grounded by ``tiebreak``."""
    fact = {
        "quest": "the report names a quest that only this entity starts or ends (quest "
        f"relations row {tiebreak.relation_row} of {search.capture_alias})",
        "link": "the report links this identity and no other of them",
        "zone": "the report names a zone that only this entity has spawn markers in (zone "
        f"markers row {tiebreak.zone_row} of {search.capture_alias})",
        "level": "it alone is above level 1; every other one of that name is a level-1 "
        "script copy (an encounter dummy or cosmetic double)",
        "data_column": "the report calls it a boss and it alone has the boss rank"
        if tiebreak.column == "rank"
        else f"the report writes its {tiebreak.column}, which no other of them has",
    }[tiebreak.fact]
    span = tiebreak.span
    return (
        f"grounded tie-break. Several candidates are named {chosen.name!r}; {fact}: "
        f"{span.quote!r} at {span.source}[{span.start}:{span.end}] -> {chosen.candidate_id} "
        f"(identity {chosen.identity})."
    )


def without_ungrounded_tie(
    search: SearchView, verdict: SearchAssessmentOutput
) -> SearchAssessmentOutput:
    """Protocol v6: a selection of one of several same-name candidates without a grounded
    tie-break (e.g. a near spelling of a name two entities carry) becomes ``ambiguous``; the
    same-name candidates are those sharing a name with the selected one (the controller's own
    rule, :func:`~vba_assets.domain.resolution.tiebreaks.name_ties`)."""
    if verdict.status != "selected" or verdict.tiebreak is not None:
        return verdict
    chosen = next((c for c in search.candidates if c.candidate_id == verdict.candidate_id), None)
    if chosen is None:  # the unique row of an exact capture
        return verdict
    tied, names = view_name_ties(search, chosen)
    if chosen.identity not in tied:
        return verdict
    return SearchAssessmentOutput(
        search_id=search.search_id,
        status="ambiguous",
        competing_candidate_ids=[c.candidate_id for c in search.candidates if c.identity in tied],
        rationale=f"heuristic: {len(tied)} candidates carry the name {names[0]!r} and the "
        "report states no grounded fact (a quest only one of them starts or ends, a link, a "
        "subname) that tells them apart",
    )


def view_name_ties(search: SearchView, chosen: CandidateView) -> tuple[list[int], list[str]]:
    """The integer identities of a complete search's candidates that share a name (any of their
    names) with ``chosen``, sorted, with ``chosen``'s names, when there are at least two; else
    none (the view of :func:`~vba_assets.domain.resolution.tiebreaks.name_ties`)."""
    if search.truncated:
        return [], []
    names = {normalize_for_match(n): n for n in (chosen.name, *chosen.other_names) if n}
    tied = sorted(
        {
            c.identity
            for c in search.candidates
            if isinstance(c.identity, int)
            and any(normalize_for_match(n) in names for n in (c.name, *c.other_names) if n)
        }
    )
    if len(tied) < 2 or chosen.identity not in tied:
        return [], []
    return tied, list(names.values())


#: A trailing parenthesized part of a name: ``Kel'Thuzad (1)`` is a numbered script copy of
#: ``Kel'Thuzad``.
_COPY_SUFFIX = re.compile(r"\s*\([^()]{0,20}\)\s*$")


def _numbered_copy(candidate: CandidateView, shared: set[str]) -> bool:
    """Whether every name of ``candidate`` is one of the ``shared`` names with a parenthesized
    suffix (a script copy of the same creature, which is no other name the report could mean)."""
    return all(
        _COPY_SUFFIX.search(name) is not None
        and normalize_for_match(_COPY_SUFFIX.sub("", name)) in shared
        for name in (candidate.name, *candidate.other_names)
    )


def spelling_group(search: SearchView) -> CandidateView | None:
    """Protocol v6: a candidate of the one name that the report's words are a near spelling or
    whole-word beginning of (the ranking of
    :func:`~vba_assets.heuristic.candidate_names.closest_spelling`), when that name is carried by
    several identities and every other entity is clearly behind (a numbered copy of that name,
    ``Kel'Thuzad (1)``, is no other entity); None otherwise. The caller
    breaks the tie inside that same-name group by a grounded fact, or stays ambiguous."""
    best: dict[int | str, tuple[float, CandidateView]] = {}
    for candidate in search.candidates:
        score = max(
            (
                spelling_similarity(mention.quote, name)
                for mention in search.mentions
                for name in (candidate.name, *candidate.other_names)
            ),
            default=0.0,
        )
        if candidate.identity not in best or score > best[candidate.identity][0]:
            best[candidate.identity] = (score, candidate)
    if not best:
        return None
    top_score, top = max(best.values(), key=lambda item: item[0])
    if top_score < MIN_SPELLING:
        return None
    tied, names = view_name_ties(search, top)
    if not tied:
        return None
    shared = {normalize_for_match(name) for name in names}
    rest = [
        score
        for identity, (score, candidate) in best.items()
        if identity not in tied and not _numbered_copy(candidate, shared)
    ]
    if rest and top_score - max(rest) < SPELLING_MARGIN:
        return None
    return top
