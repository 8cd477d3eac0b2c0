"""Batched exact names: the names a plan leaves unsearched, looked up by exact name (pure).

Protocol v6 (``ProtocolSpec.batched_exact_names``; issue 29 item 5, "let one search cover several
names"). A plan holds at most ``max_searches`` searches; a report that lists a dozen creatures
("these NPCs have no gossip: A, B, C ...") leaves most of them in the plan's ``unsearched`` list,
where they used to stay unknowns. Measured on the study splits, nearly all of those names are
written in full, as the catalog spells them: an exact-name lookup finds them without the
row-flooding of a contains search. So each of the first unsearched names becomes a search of its
own, numbered after the plan's (``Q<n+1>``...), on the catalog of the plan's first name search;
its capture is one literal, parameterized exact-name query (the query that completes a
truncated contains search, recorded with ``kind`` ``batched_exact_name``), and the assessment
assesses it like any other search. What a batched search cannot do is find a misspelled, partial or
inflected name: its miss is scoped to exact names (the capture's coverage notes say so).

Everything here derives from the accepted plan alone, so the searches of a revision are the same
in the capture stage, the candidate index, the assessment's rules, the resolution context, the
asset checks and the verification without the database.

Bounds: at most :data:`MAX_BATCHED_NAMES` names, and never more than
:data:`~vba_assets.domain.limits.MAX_SEARCHES` searches in all (so every N alias and every D alias
still fits the interpretation's lists). A name whose term could not be a search term (several
lines, outer whitespace, a zero-width or bidi control) or that repeats a search's term is skipped
and stays an unknown.
"""

from vba_assets.domain.case.text import fold, has_format_control
from vba_assets.domain.limits import MAX_SEARCHES
from vba_assets.domain.resolution.models import ProposedSearch, ResolutionPlanOutput

#: Unsearched names a plan's batch looks up, at most.
MAX_BATCHED_NAMES = 12


def batched_searches(plan: ResolutionPlanOutput) -> list[tuple[int, ProposedSearch]]:
    """``(position in plan.unsearched, search)`` of every unsearched name the batch looks up, in
    plan order (see the module docstring for which ones). A plan without searches has none."""
    if not plan.searches:
        return []
    names = [s for s in plan.searches if s.reference is None]
    catalog = (names or plan.searches)[0].catalog
    room = min(MAX_BATCHED_NAMES, MAX_SEARCHES - len(plan.searches))
    seen = {fold(s.term) for s in names if s.catalog == catalog}
    batched: list[tuple[int, ProposedSearch]] = []
    for position, name in enumerate(plan.unsearched):
        if len(batched) >= room:
            break
        term, key = name.term, fold(name.term)
        if not _searchable(term) or key in seen:
            continue
        seen.add(key)
        search = ProposedSearch(
            term=term, catalog=catalog, role=name.role, mentions=list(name.mentions)
        )
        batched.append((position, search))
    return batched


def planned_searches(plan: ResolutionPlanOutput, batched: bool) -> list[tuple[str, ProposedSearch]]:
    """``(search_id, search)`` of every search of a revision: the plan's own (``Q1..Qn``), then,
    when ``batched`` (the protocol's ``batched_exact_names``), the batched names
    (``Q<n+1>``...)."""
    own = [(f"Q{number}", search) for number, search in enumerate(plan.searches, start=1)]
    if not batched:
        return own
    first = len(own) + 1
    extra = [(f"Q{first + i}", search) for i, (_, search) in enumerate(batched_searches(plan))]
    return own + extra


def batched_origins(plan: ResolutionPlanOutput, batched: bool) -> dict[str, int]:
    """``search_id -> position in plan.unsearched`` of every batched name's search (none when
    not ``batched``)."""
    if not batched:
        return {}
    first = len(plan.searches) + 1
    return {f"Q{first + i}": position for i, (position, _) in enumerate(batched_searches(plan))}


def _searchable(term: str) -> bool:
    """The plan rules' shape of a search term: one line without outer whitespace, no zero-width
    or bidi control (``PLAN_TERM_MALFORMED``)."""
    one_line = not any(c in term for c in "\n\r\t")
    return bool(term.strip()) and term == term.strip() and one_line and not has_format_control(term)
