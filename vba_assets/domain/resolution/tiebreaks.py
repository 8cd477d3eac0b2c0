"""Grounded tie-breaks of same-name rows (protocol v6, issue 29 item 4; ARCHITECTURE 15). Pure.

Several rows of one capture can carry exactly the searched name: the same creature in several
instances or phases, a boss and its encounter helper. Name equality cannot tell them apart, so
the heuristic used to answer ``ambiguous``. A report often says which one it means; this module
decides when such a statement is a **grounded fact** that tells exactly one of them apart:

* ``quest``: the report names a quest (the exact title, any locale, after
  :func:`~vba_assets.domain.catalog.names.normalize_for_match`) that the selected entity starts or
  ends and none of the other same-name entities does. The quest relations are a capture, not
  packaged data: the controller records them in the search's capture
  (``CaptureArtifact.quest_relations``, one literal parameterized query over the allowlisted
  ``creature_queststarter``/``creature_questender``/``quest_template``/``quest_template_locale``),
  so a replay without the database re-derives the decision, and the verdict cites the relation
  row and the report span;
* ``link``: the cited span links the selected identity (``npc=<id>``, ``npc/<id>``), or writes its
  digits as a number of their own ("ID of the NPC: 21140", :mod:`.written_ids`), and no other
  same-name identity;
* ``data_column``: the cited span is the value of a text data column (a subname such as
  ``Flight Master``) that the selected entity has and no other same-name entity shares, or the
  word "boss" (any reporter language, :data:`BOSS_WORD`) when the selected entity alone has the
  boss rank (``rank`` 3: a raid boss and its same-name encounter copies).

* ``zone``: the report names a zone that the selected entity alone has spawn markers in
  (:mod:`.zone_facts`; the capture records the markers with every zone name).

The same facts break a tie inside the exact-name capture that completes a truncated search: that
capture records its own quest relations and zone markers (:func:`exact_tie_member`).

The tie need not be of the term: a short or partial term ("Hearthsinger", the planner's
"el'thuzad" of "Khel'thuzad") finds several rows of one full name. A complete capture records the
facts of every same-name group it holds (:func:`capture_ties`), and a selection of a candidate whose
name other candidates of the search share is checked against the others of that name
(:func:`name_ties`), whatever the term; a candidate with a unique name is unaffected.

* ``level``: the selected entity is the only one of that name above level 1 (``maxlevel``); every
  other one is a level-1 script copy (an encounter dummy or cosmetic double that carries the boss's
  name: four ``Sindragosa`` rows, three of them level 1). The fact is the capture's data column
  alone; the span is the selection's own mention (the report names the creature a player meets),
  so no other report text is claimed.

Each check returns None when the fact holds, else the reason it does not. No fact keeps the search
ambiguous. What it cannot do: a level the report writes is never compared (reporters state their
own level as often as a creature's).

**Why the relations live in the contains capture** (the smallest sound shape): the query is
keyed by the tied identities that capture already holds, not by report text, so it needs no
second plan item, no new artifact kind and no change to how captures are named, accounted for and
replayed; it is one more recorded query, with its own SQL, parameters, row limit, truncation and
coverage notes, in the content-addressed file of the search it serves.
"""

import re
from collections.abc import Iterable, Mapping, Sequence

from vba_assets.domain.catalog.matching import RankedCandidate
from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.catalog.world import RelationResult, Scalar, ZoneResult
from vba_assets.domain.findings import Finding
from vba_assets.domain.resolution.citations import check_mention, rule_issue
from vba_assets.domain.resolution.models import (
    ExactCoverage,
    GroundedTiebreak,
    SearchAssessmentOutput,
    SearchCandidates,
)
from vba_assets.domain.resolution.same_names import name_ties
from vba_assets.domain.resolution.written_ids import written_identity, written_span_problem
from vba_assets.domain.resolution.zone_facts import zone_fact, zone_span_problem
from vba_assets.errors import ErrorCode

#: Data columns whose value a report may state to tell same-name entities apart.
TEXT_COLUMNS = ("subname", "Title")
#: ``creature_template.rank`` of a boss (3, the client's "Boss" skull).
BOSS_RANK = 3
#: The word "boss" in the reporters' languages: what a report says of a rank-3 creature.
BOSS_WORD = re.compile(
    r"(?<!\w)(?:boss|bosses|bosse|bossen|endboss|jefe|jefes|chefe|chefes|"
    r"босс|босса|боссу|боссом|боссе|боссы|боссов|首领|首領)(?!\w)",
    re.IGNORECASE,
)
#: A creature link: ``npc=123`` / ``npc/123`` (the whole digit run).
_LINK = re.compile(r"npc(?:=|/)([0-9]+)(?![0-9])", re.IGNORECASE)


def _key(text: str) -> str:
    return normalize_for_match(text.strip(" \t\n\"'«»“”‘’[]()<>"))


def tied_identities(term: str, named: Iterable[tuple[int | str, str]]) -> list[int]:
    """The integer identities of ``named`` (identity, name) pairs whose name equals ``term``
    (sorted), when there are at least two; else none (nothing to break)."""
    key = normalize_for_match(term)
    found = sorted(
        {
            identity
            for identity, name in named
            if isinstance(identity, int) and name and normalize_for_match(name) == key
        }
    )
    return found if len(found) >= 2 else []


def search_ties(search: SearchCandidates | ExactCoverage, term: str) -> list[int]:
    """:func:`tied_identities` of a search's candidates, or of its exact-name capture's (every
    captured name of each); none when that capture is truncated."""
    if search.truncated:
        return []
    return tied_identities(
        term,
        (
            (candidate.identity, name)
            for candidate in search.candidates
            for name in (candidate.name, *(ref.name for ref in candidate.also_matched))
        ),
    )


def exact_tie_member(search: SearchCandidates, candidate_id: str | None) -> bool:
    """Whether ``candidate_id`` is one of several entities named exactly the term in the search's
    complete exact-name capture (a tie that a grounded tie-break may break, protocol v6)."""
    exact = search.exact
    if exact is None or candidate_id not in exact.candidate_ids:
        return False
    chosen = exact.candidates[exact.candidate_ids.index(candidate_id)]
    return chosen.identity in search_ties(exact, search.term)


def linked_identities(text: str) -> set[int]:
    """Every creature identity ``text`` links (``npc=<id>``, ``npc/<id>``)."""
    return {int(match.group(1)) for match in _LINK.finditer(text) if len(match.group(1)) <= 9}


def quest_fact(
    tiebreak: GroundedTiebreak,
    relations: RelationResult | None,
    selected: int | str,
    tied: Sequence[int],
    term: str,
    names: Sequence[str] = (),
) -> str | None:
    """None when the span names a quest that relation row ``tiebreak.relation_row`` gives to
    ``selected`` and to no other identity of ``tied``; else why not. A title that is the searched
    term or one of the tied ``names`` names no quest apart."""
    if relations is None:
        return "this search's capture holds no quest relations"
    if relations.truncated:
        return "this search's quest relations are truncated: they cannot tell entities apart"
    row_index = tiebreak.relation_row
    if row_index is None or not 0 <= row_index < len(relations.rows):
        return f"relation_row must be a row of the quest relations (0-{len(relations.rows) - 1})"
    row = relations.rows[row_index]
    if row.identity != selected:
        return f"relation row {row_index} belongs to identity {row.identity}, not {selected}"
    key = _key(row.title)
    if _key(tiebreak.span.quote) != key:
        return f"the span {tiebreak.span.quote!r} is not the quest title {row.title!r}"
    if key in {_key(name) for name in (term, *names)}:
        return "the quest title is the searched name itself, which names no quest apart"
    also = sorted(
        {str(r.identity) for r in relations.rows if _key(r.title) == key and r.identity != selected}
        & {str(i) for i in tied}
    )
    if also:
        return f"a quest titled {row.title!r} is also started or ended by {', '.join(also)}"
    return None


def link_fact(tiebreak: GroundedTiebreak, selected: int | str, tied: Sequence[int]) -> str | None:
    """None when the span links ``selected`` (``npc=<id>``) or is its identity written as a
    number of its own (:mod:`.written_ids`), and names no other identity of ``tied``."""
    written = written_identity(tiebreak.span.quote)
    linked = linked_identities(tiebreak.span.quote) | ({written} if written is not None else set())
    if selected not in linked:
        return f"the span does not link identity {selected} (npc=<id>) nor write it as a number"
    others = sorted(linked & (set(tied) - {selected}))
    if others:
        return f"the span also links {others}"
    return None


def column_fact(
    tiebreak: GroundedTiebreak,
    selected: int | str,
    data: Mapping[int | str, Mapping[str, Scalar]],
) -> str | None:
    """None when the span is the value of a text column the selected entity alone has among the
    same-name entities (``data``: their data columns by identity)."""
    column = tiebreak.column
    if column == "rank":
        return _rank_fact(tiebreak, selected, data)
    if column not in TEXT_COLUMNS:
        return f"column must be one of {[*TEXT_COLUMNS, 'rank']}"
    value = data.get(selected, {}).get(column)
    if not isinstance(value, str) or not value.strip():
        return f"identity {selected} has no {column}"
    key = _key(value)
    if _key(tiebreak.span.quote) != key:
        return f"the span {tiebreak.span.quote!r} is not its {column} {value!r}"
    others = sorted(
        str(identity)
        for identity, columns in data.items()
        if identity != selected
        and isinstance(columns.get(column), str)
        and _key(str(columns.get(column))) == key
    )
    if others:
        return f"{column} {value!r} is shared by {', '.join(others)}"
    return None


def _rank_fact(
    tiebreak: GroundedTiebreak,
    selected: int | str,
    data: Mapping[int | str, Mapping[str, Scalar]],
) -> str | None:
    """None when the span is the word "boss" and the selected entity alone has the boss rank."""
    if not BOSS_WORD.fullmatch(tiebreak.span.quote.strip()):
        return f"the span {tiebreak.span.quote!r} is not the word 'boss' (rank {BOSS_RANK})"
    if data.get(selected, {}).get("rank") != BOSS_RANK:
        return f"identity {selected} does not have the boss rank {BOSS_RANK}"
    others = sorted(
        str(i) for i, columns in data.items() if i != selected and columns.get("rank") == BOSS_RANK
    )
    if others:
        return f"the boss rank is shared by {', '.join(others)}"
    return None


#: ``creature_template.maxlevel`` of a script copy: the level-1 rows that carry a creature's name.
SCRIPT_COPY_LEVEL = 1


def is_script_copy(columns: Mapping[str, Scalar]) -> bool:
    """A level-1 row (``maxlevel`` 1): encounter copies and script dummies that carry a
    creature's name."""
    level = columns.get("maxlevel")
    return isinstance(level, int) and level <= SCRIPT_COPY_LEVEL


def level_fact(selected: int | str, data: Mapping[int | str, Mapping[str, Scalar]]) -> str | None:
    """None when ``selected`` alone of the same-name entities (``data``: their data columns by
    identity) is above level 1 and every other one is a level-1 script copy."""
    level = data.get(selected, {}).get("maxlevel")
    if not isinstance(level, int) or level <= SCRIPT_COPY_LEVEL:
        return f"identity {selected} has no level above {SCRIPT_COPY_LEVEL} (maxlevel {level})"
    above = sorted(
        str(identity)
        for identity, columns in data.items()
        if identity != selected and not is_script_copy(columns)
    )
    if above:
        return f"{', '.join(above)} of that name are not level-1 script copies"
    return None


def tiebreak_problem(
    tiebreak: GroundedTiebreak | None,
    *,
    selected: int | str,
    tied: Sequence[int],
    relations: RelationResult | None,
    data: Mapping[int | str, Mapping[str, Scalar]],
    term: str,
    zones: ZoneResult | None = None,
    names: Sequence[str] = (),
) -> str | None:
    """None when ``tiebreak`` tells ``selected`` apart from the other ``tied`` identities (the
    span itself is checked as a citation by the caller); else why it does not. ``names``: the
    name the tied identities share when it is not the searched ``term`` (protocol v6: a short or
    partial term that finds several rows of one full name)."""
    if tiebreak is None:
        shared = names[0] if names else term
        return (
            f"{len(tied)} entities ({', '.join(str(i) for i in tied)}) carry the name "
            f"{shared!r}: "
            "a selection among them cites a grounded tiebreak (a quest the report names that "
            "only this one starts or ends, its link, its subname, 'boss' for the only "
            "boss-rank one, a zone the report names that only this one has spawn markers "
            "in, or 'level' when it alone is above level 1); otherwise answer 'ambiguous'"
        )
    if tiebreak.fact == "quest":
        return quest_fact(tiebreak, relations, selected, tied, term, names)
    if tiebreak.fact == "zone":
        return zone_fact(tiebreak, zones, selected, tied, term, data, names)
    if tiebreak.fact == "link":
        return link_fact(tiebreak, selected, tied)
    if tiebreak.fact == "level":
        return level_fact(selected, data)
    return column_fact(tiebreak, selected, data)


def tiebreak_findings(
    verdict: SearchAssessmentOutput,
    search: SearchCandidates,
    sources: Mapping[str, str],
    path: str,
) -> list[Finding]:
    """The ``ASSESSMENT_TIEBREAK_UNGROUNDED`` rule (protocol v6) for one selection: when the
    selected candidate shares its name with other candidates of the (complete) search
    (:func:`name_ties`: the searched name, or the full name a short or partial term found on
    several rows), its ``tiebreak`` must be a visible span of a readable source and a fact that
    holds for it and for none of the others of that name (:func:`tiebreak_problem`)."""
    pool: SearchCandidates | ExactCoverage = search
    if search.exact is not None and search.in_exact(verdict.candidate_id):
        if verdict.tiebreak is None:  # the exact rule refuses it (ASSESSMENT_EXACT_NOT_UNIQUE)
            return []
        pool = search.exact  # protocol v6: a tie inside the exact-name capture
    by_id: dict[str, RankedCandidate] = dict(zip(pool.candidate_ids, pool.candidates, strict=True))
    chosen = by_id.get(verdict.candidate_id or "")
    tied, names = name_ties(pool, chosen) if chosen is not None else ([], [])
    if chosen is None or chosen.identity not in tied:
        return []
    sid = search.search_id
    if verdict.tiebreak is not None:
        found = check_mention(verdict.tiebreak.span, sources, f"{path}/tiebreak/span", [], sid)
        if found:
            return found
    problem = (
        None if verdict.tiebreak is None else _span_problem(verdict, sources)
    ) or tiebreak_problem(
        verdict.tiebreak,
        selected=chosen.identity,
        tied=tied,
        relations=pool.quest_relations,
        data={c.identity: c.data for c in pool.candidates if c.identity in tied},
        term=search.term,
        zones=pool.zone_markers,
        names=names,
    )
    if problem is None:
        return []
    return [rule_issue(ErrorCode.ASSESSMENT_TIEBREAK_UNGROUNDED, f"{path}/tiebreak", problem, sid)]


def _span_problem(verdict: SearchAssessmentOutput, sources: Mapping[str, str]) -> str | None:
    """A zone span must be whole words; a level fact's span must be the selection's mention; a
    link fact's span of digits must be a number of its own in its source (:mod:`.written_ids`:
    not part of a longer number, a word, a version or a URL)."""
    tiebreak = verdict.tiebreak
    assert tiebreak is not None
    if tiebreak.fact == "level" and tiebreak.span != verdict.mention:
        return "a 'level' tie-break cites the selection's own mention as its span"
    if tiebreak.fact == "link" and (problem := written_span_problem(tiebreak.span, sources)):
        return problem
    return zone_span_problem(tiebreak, sources)
