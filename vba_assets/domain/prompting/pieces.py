"""Request text as pieces, and the case data rendered into them (ARCHITECTURE 7-8).

A :class:`Piece` is a run of request text: a labelled
:class:`~vba_assets.domain.prompting.items.ContextItem`, or template glue when it has no item. This
module holds the piece toolkit (:func:`glue`, :func:`part`, :func:`joined`, :func:`text_of`,
:func:`items_of`) and the renderers of case data, which carry no fixed text of their own: the
delimited source blocks, a search with its mentions and candidates, the F/N/D alias lines and the
per-case check rules. :mod:`.stage_render` assembles them, with its fixed notices and legends, into
the three stage documents and the system prompt.
"""

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

from vba_assets.domain.catalog.matching import MatchTier
from vba_assets.domain.interpretation.rules_v4 import clarification_needs_names
from vba_assets.domain.limits import CLARIFICATION_LISTING_BUDGET
from vba_assets.domain.prompting.items import ContextItem, Lifecycle
from vba_assets.domain.protocol import resolved
from vba_assets.domain.resolution.models import (
    FactAlias,
    MentionCitation,
    ResolutionContext,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
)
from vba_assets.domain.resolution.tiebreaks import relation_lines, tiebreak_fact_lines
from vba_assets.domain.stage_context import (
    CandidateView,
    InterpretationStageContext,
    SearchView,
    SourceView,
)

CASE = "case.json"
REVISION_INPUT = "input.json"
ER_INPUT = "entity-resolution/input.json"
PLAN = "entity-resolution/plan.json"
CANDIDATES = "entity-resolution/candidates.json"
RESOLUTION_CONTEXT = "entity-resolution/context.json"


# --- pieces ---------------------------------------------------------------------------------------


class Piece(NamedTuple):
    """A run of request text: a labelled item, or template glue when ``item`` is None."""

    text: str
    item: ContextItem | None = None


Pieces = list[Piece]


def glue(text: str) -> Pieces:
    return [Piece(text)]


def part(
    name: str, lifecycle: Lifecycle, source: str, text: str, sha256: str | None = None
) -> Pieces:
    """One labelled item whose text is ``text``."""
    item = ContextItem(
        name=name, lifecycle=lifecycle, source=source, source_sha256=sha256, text=text
    )
    return [Piece(text, item)]


def joined(separator: str, parts: Iterable[Pieces]) -> Pieces:
    """``separator.join`` for pieces: the separators are glue."""
    out: Pieces = []
    for number, pieces in enumerate(parts):
        if number:
            out.append(Piece(separator))
        out += pieces
    return out


def text_of(pieces: Sequence[Piece]) -> str:
    return "".join(piece.text for piece in pieces)


def items_of(pieces: Sequence[Piece], slot: str) -> list[ContextItem]:
    """The labelled pieces as items placed in ``slot``, in order (one per insertion)."""
    return [p.item.model_copy(update={"slot": slot}) for p in pieces if p.item is not None]


def json_text(value: Any) -> str:
    """A value as compact JSON with sorted keys (names, identities and data in the text)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def case_id_pieces(case_id: str) -> Pieces:
    return part("case_id", "per_case", f"{CASE}#/case_id", case_id)


def _mention(mention: MentionCitation, *, offsets: bool) -> str:
    data = mention.model_dump(mode="json", include=None if offsets else {"source", "quote"})
    return json.dumps(data, ensure_ascii=False)  # field order: source, quote, start, end


def _distinct_mentions(mentions: Sequence[MentionCitation]) -> str:
    return "; ".join(dict.fromkeys(_mention(m, offsets=False) for m in mentions))


# --- sources --------------------------------------------------------------------------------------


def source_pieces(sources: Sequence[SourceView]) -> Pieces:
    """Readable sources as delimited blocks; unreadable ones as one line that forbids quoting."""
    parts = []
    for index, source in enumerate(sources):
        label = f"{source.alias} | kind {source.kind} | name {json_text(source.name)}"
        if not source.readable or source.text is None:
            reason = source.unreadable_reason or "no text"
            text = f"- {label}: UNREADABLE ({reason}); it cannot be quoted"
        else:
            # The marker derives from the text itself, so the text cannot contain its own END line.
            marker = hashlib.sha256(source.text.encode("utf-8")).hexdigest()[:16]
            text = (
                f"<<<BEGIN SOURCE {label} | {len(source.text)} characters | marker {marker}>>>\n"
                f"{source.text}\n<<<END SOURCE {source.alias} | marker {marker}>>>"
            )
        parts.append(part(f"source:{source.alias}", "per_case", f"{CASE}#/sources/{index}", text))
    return joined("\n\n", parts)


def render_sources(sources: Sequence[SourceView]) -> str:
    """The sources section's blocks as text."""
    return text_of(source_pieces(sources))


# --- model call 2: one search ---------------------------------------------------------------------


def search_pieces(search: SearchView, index: int) -> Pieces:
    """One search of the plan: its capture, the mentions it answers and its candidates."""
    capture = (
        f"- Capture {search.capture_alias}: TRUNCATED (more rows matched than were captured): "
        "this search cannot have a unique selection."
        if search.truncated
        else f"- Capture {search.capture_alias}: complete (every matching row was captured)."
    )
    header = (
        f"### {search.search_id}: {json_text(search.term)} in {search.catalog} (role {search.role})"
    )
    if search.reference is not None:  # protocol v4: an identity reference
        header += (
            f"\n- Identity reference: the report links identity {search.reference.identity} at "
            f"{_mention(search.reference.link, offsets=True)}; the capture fetched that identity. "
            "Select it only when the report's words for it agree with one of its names."
        )
    if search.unsearched is not None:  # protocol v6: a batched name
        header += (
            "\n- Exact-name lookup of a name the plan left unsearched: the capture holds only "
            "the rows named exactly the term (no misspelled, partial or longer name)."
        )
    candidates = _candidate_lines(search.candidates)
    mentions = "\n".join(f"  - {_mention(m, offsets=True)}" for m in search.mentions)
    sid, where = search.search_id, f"{CANDIDATES}#/searches/{index}"
    lines = [
        part(f"search:{sid}", "per_stage", where, f"{header}\n{capture}"),
        glue("- Mentions (a selection cites one of them exactly):"),
    ]
    if search.mentions:
        mentions_source = (
            f"{PLAN}#/plan/searches/{index}/mentions"
            if search.unsearched is None
            else f"{PLAN}#/plan/unsearched/{search.unsearched}/mentions"
        )
        lines.append(part(f"mentions:{sid}", "per_stage", mentions_source, mentions))
    lines.append(glue("- Candidates, best match first:"))
    if candidates:
        lines.append(
            part(f"candidates:{sid}", "per_stage", f"{where}/candidates", "\n".join(candidates))
        )
    else:
        lines.append(glue("  - none: no row matched in this catalog and snapshot"))
    if search.quest_relations is not None:  # protocol v6: grounded tie-break facts
        lines.append(glue(_RELATIONS_HEADING))
        body = relation_lines(search.quest_relations) or ["  - none"]
        if search.quest_relations.truncated:
            body.append("  - TRUNCATED: these relations cannot tell the candidates apart")
        lines.append(
            part(f"relations:{sid}", "per_stage", f"{where}/quest_relations", "\n".join(body))
        )
    if search.zone_markers is not None:  # protocol v6: grounded zone tie-break facts
        body = tiebreak_fact_lines(search.zone_markers)
        lines.append(glue(_ZONES_HEADING))
        lines.append(part(f"zones:{sid}", "per_stage", f"{where}/zone_markers", "\n".join(body)))
    if search.exact is not None:  # protocol v6: the exact-name capture that completes it
        lines.append(part(f"exact:{sid}", "per_stage", f"{where}/exact", _exact_text(search)))
    return joined("\n", lines)


_RELATIONS_HEADING = (
    "- Quest relations of the candidates named exactly the term (same capture; a selection "
    "among them needs a tiebreak: a quest the report names by its title that only the chosen "
    "one starts or ends, cited with its relation row, or its link, or its subname):"
)


_ZONES_HEADING = (
    "- Spawn-marker zones of the candidates named exactly the term (same capture; a selection "
    "among them may cite a zone the report names that only the chosen one has markers in, with "
    "its zone row, as tiebreak fact 'zone'):"
)


def _candidate_lines(candidates: Sequence[CandidateView]) -> list[str]:
    return [
        f"  - {c.candidate_id}: identity {json_text(c.identity)}, name {json_text(c.name)}, tier "
        f"{MatchTier(c.tier).label}, catalog {c.catalog} ({c.catalog_kind}), capture row "
        f"{c.capture_row}, data {json_text(c.data)}"
        + (f", other matching names {json_text(c.other_names)}" if c.other_names else "")
        for c in candidates
    ]


def _exact_text(search: SearchView) -> str:
    """Protocol v6: the exact-name capture of a truncated search and whether it may select."""
    exact = search.exact
    assert exact is not None
    if exact.unique:
        verdict = (
            "complete, one entity named exactly as the term: its candidate may be selected "
            f"(cite capture {exact.capture_alias} and its row) when the report's context "
            "supports it"
        )
    elif exact.truncated:
        verdict = "TRUNCATED (more rows matched than were captured): no unique selection"
    elif exact.quest_relations is not None or exact.zone_markers is not None:
        verdict = (
            "several entities named exactly as the term: one may be selected only with a "
            "grounded tiebreak from this capture's quest relations or zones"
        )
    else:
        verdict = "not unique (several entities, or none named exactly as the term): no selection"
    rows = _candidate_lines(exact.candidates) or ["  - none: no row has exactly this name"]
    for label, facts in (("Quest relations", exact.quest_relations), ("Zones", exact.zone_markers)):
        if facts is not None:
            rows += [f"  {label} of {exact.capture_alias}:", *tiebreak_fact_lines(facts)]
    return (
        f"- Exact-name capture {exact.capture_alias} (completes {search.capture_alias}: every "
        f"row named exactly {json_text(search.term)}): {verdict}. Its candidates:\n"
        + "\n".join(rows)
    )


# --- model call 3: the F/N/D aliases and the per-case rules ---------------------------------------


#: Names over the limit a request spells out (the rest are counted).
_NOT_EXAMINED_SHOWN = 20

_Alias = TypeVar("_Alias", FactAlias, SelectedEntityAlias, UnresolvedIdentityAlias)


def _alias_lines(
    collection: str, aliases: Sequence[_Alias], line: Callable[[_Alias], str]
) -> list[Pieces]:
    """One per-stage item per alias of ``collection`` (``facts``, ...), or ``- none``."""
    if not aliases:
        return [glue("- none")]
    return [
        part(f"alias:{a.alias}", "per_stage", f"{RESOLUTION_CONTEXT}#/{collection}/{i}", line(a))
        for i, a in enumerate(aliases)
    ]


def _fact_line(f: FactAlias) -> str:
    return (
        f"- {f.alias}: search {f.search_id} {json_text(f.term)} in {f.catalog}: {f.rows} "
        + ("row" if f.rows == 1 else "rows")
        + (", TRUNCATED (more rows matched than were captured)" if f.truncated else ", complete")
        + (f" (exact-name capture completing {f.completes})" if f.completes else "")
    )


def _selected_line(n: SelectedEntityAlias) -> str:
    searches = f"search {n.search_id}"
    if n.merged_search_ids:  # protocol v6: one alias for the searches that selected one entry
        searches = f"searches {', '.join([n.search_id, *n.merged_search_ids])}, one entry"
    return (
        f"- {n.alias}: {json_text(n.name)}, {n.entity_type} {json_text(n.identity)} from "
        f"{n.catalog}, role {n.role} ({searches}). Mentions: " + _distinct_mentions(n.mentions)
    )


def _unresolved_line(d: UnresolvedIdentityAlias) -> str:
    linked = ""
    if d.linked_identity is not None:  # protocol v4: an identity reference
        linked = f"; the report links identity {d.linked_identity}"
        if d.linked_names:
            linked += f", named {json_text(d.linked_names)}, which its words do not match"
    return (
        f"- {d.alias}: {json_text(d.term)}, role {d.role}, {d.status}; candidate identities "
        f"{json_text(d.candidate_identities)} (search {d.search_id}){linked}. Mentions: "
        + _distinct_mentions(d.mentions)
    )


def fact_lines(resolution: ResolutionContext) -> list[Pieces]:
    """One line per lookup fact (F alias), or ``- none``."""
    return _alias_lines("facts", resolution.facts, _fact_line)


def selected_lines(resolution: ResolutionContext) -> list[Pieces]:
    """One line per selected entity (N alias), or ``- none``."""
    return _alias_lines("selected", resolution.selected, _selected_line)


def unresolved_lines(resolution: ResolutionContext) -> list[Pieces]:
    """One line per unresolved identity (D alias), or ``- none``."""
    return _alias_lines("unresolved", resolution.unresolved, _unresolved_line)


def quote_rule(sources: Sequence[SourceView]) -> Pieces:
    """Which sources may be quoted (the readable ones) and which may not."""
    readable = [s.alias for s in sources if s.readable and s.text is not None]
    unreadable = [s.alias for s in sources if s.alias not in readable]
    rule = f"- Quote only the readable sources {', '.join(readable)}, copying text exactly" + (
        f"; {', '.join(unreadable)} cannot be quoted." if unreadable else "."
    )
    return part("quote_rule", "per_case", f"{CASE}#/sources", rule)


def retain_rules(resolution: ResolutionContext) -> list[Pieces]:
    """One rule per N alias (keep it as an entity) and per D alias (keep it as an unknown)."""
    selected = [
        part(
            f"retain:{n.alias}",
            "per_stage",
            f"{RESOLUTION_CONTEXT}#/selected/{i}",
            f"- Keep {n.alias} ({json_text(n.name)}, role {n.role}) in affected_subjects or "
            "context_entities, citing one of its mentions.",
        )
        for i, n in enumerate(resolution.selected)
    ]
    unresolved = [
        part(
            f"retain:{d.alias}",
            "per_stage",
            f"{RESOLUTION_CONTEXT}#/unresolved/{i}",
            f"- Keep {d.alias} ({json_text(d.term)}) in unknowns with ref {json_text(d.alias)}.",
        )
        for i, d in enumerate(resolution.unresolved)
    ]
    return selected + unresolved + _not_examined_rule(resolution)


def _not_examined_rule(resolution: ResolutionContext) -> list[Pieces]:
    """Protocol v5: the names over the limit of D aliases, which need no unknown (the first
    :data:`_NOT_EXAMINED_SHOWN` by name)."""
    names = resolution.not_examined
    if not names:
        return []
    shown = ", ".join(json_text(n.term) for n in names[:_NOT_EXAMINED_SHOWN])
    more = (
        f" and {len(names) - _NOT_EXAMINED_SHOWN} more" if len(names) > _NOT_EXAMINED_SHOWN else ""
    )
    return [
        part(
            "not_examined",
            "per_stage",
            f"{RESOLUTION_CONTEXT}#/not_examined",
            f"- Not examined ({names[0].reason}): {shown}{more}. They have no alias; list no "
            "unknown for each (one unknown with ref null may say they were not examined).",
        )
    ]


def complete_rules(context: InterpretationStageContext) -> list[Pieces]:
    """Protocol v4's per-case checks: the restatement names each selected affected subject; a
    clarification about an unresolved identity names its competing candidates (with the names
    the candidate index gives, when they fit: :func:`~.rules_v4.clarification_needs_names`) or,
    with no candidate, the name the report used."""
    resolution = context.resolution
    if resolution is None:
        return []
    rules: list[Pieces] = []
    for i, n in enumerate(resolution.selected):
        if n.role != "affected_subject":
            continue
        words = [w for w in dict.fromkeys(m.quote for m in n.mentions) if w != n.name][:3]
        said = f" or the report's words {', '.join(json_text(w) for w in words)}" if words else ""
        rules.append(
            part(
                f"restate:{n.alias}",
                "per_stage",
                f"{RESOLUTION_CONTEXT}#/selected/{i}",
                f"- When {n.alias} is an affected subject, the restatement names it: "
                f"{json_text(n.name)}{said}, never the code {n.alias}.",
            )
        )
    names = (context.candidate_names or {}) if clarification_needs_names(context) else {}
    for i, d in enumerate(resolution.unresolved):
        if d.status == "no_match" or not d.candidate_identities:
            text = (
                f"- A clarification about {d.alias} names {json_text(d.term)} as the report "
                "wrote it (nothing matched)."
            )
            source = f"{RESOLUTION_CONTEXT}#/unresolved/{i}"
        else:
            known = {c.identity: c.name for c in names.get(d.alias, [])}
            listed = ", ".join(
                f"{json_text(identity)} {json_text(known[identity])}"
                if identity in known
                else json_text(identity)
                for identity in d.candidate_identities
            )
            text = (
                f"- A clarification about {d.alias} ({json_text(d.term)}) names its competing "
                f"candidates with ids and names: {listed}."
                if known
                else f"- A clarification about {d.alias} ({json_text(d.term)}) names its "
                f"competing candidates by id (every candidate's name would not fit): {listed}."
            )
            source = f"{RESOLUTION_CONTEXT}#/unresolved/{i}" + (
                "" if not known else f" + {CANDIDATES}#/searches"
            )
        rules.append(part(f"clarify:{d.alias}", "per_stage", source, text))
    if resolution.unresolved and resolved(context.protocol_version or 4).bounded_lists:
        rules.append(
            part(
                "clarify:limit",
                "per_stage",
                f"{RESOLUTION_CONTEXT}#/unresolved",
                "- A clarification must name only the first unresolved affected subjects (those "
                "you list, in order) whose listing fits "
                f"{CLARIFICATION_LISTING_BUDGET} characters; the first one always.",
            )
        )
    return rules
