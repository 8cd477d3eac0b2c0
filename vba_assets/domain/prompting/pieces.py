"""Request text as pieces, and the case data rendered into them (ARCHITECTURE 7-8).

A :class:`Piece` is a run of request text: a labelled
:class:`~vba_assets.domain.prompting.items.ContextItem`, or template glue when it has no item. This
module holds the piece toolkit (:func:`glue`, :func:`part`, :func:`joined`, :func:`text_of`,
:func:`items_of`) and the renderers of case data, which carry no fixed text of their own: the
delimited source blocks, the F/N/D alias lines and the per-case check rules (a search with its
mentions and candidates: :mod:`.search_pieces`). :mod:`.stage_render` assembles them, with its fixed notices and legends, into
the three stage documents and the system prompt.
"""

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

from vba_assets.domain.interpretation.rules_v4 import clarification_needs_names
from vba_assets.domain.limits import CLARIFICATION_LISTING_BUDGET
from vba_assets.domain.prompting.items import ContextItem, Lifecycle
from vba_assets.domain.protocol import resolved
from vba_assets.domain.resolution.aliases import (
    FactAlias,
    ResolutionContext,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
)
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.domain.stage_context import (
    InterpretationStageContext,
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


def mention_text(mention: MentionCitation, *, offsets: bool) -> str:
    """A mention as JSON: source and quote, with ``offsets`` also start and end."""
    data = mention.model_dump(mode="json", include=None if offsets else {"source", "quote"})
    return json.dumps(data, ensure_ascii=False)  # field order: source, quote, start, end


def _distinct_mentions(mentions: Sequence[MentionCitation]) -> str:
    return "; ".join(dict.fromkeys(mention_text(m, offsets=False) for m in mentions))


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
