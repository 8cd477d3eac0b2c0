"""One search of model call 2's request: its capture, the mentions it answers, its candidates and
the grounded tie-break facts and exact-name capture that come with it (protocol v6). Split from
:mod:`.pieces`, whose toolkit (:func:`~.pieces.part`, :func:`~.pieces.glue`,
:func:`~.pieces.joined`) it uses; it carries no fixed text but the lines that label a search's
parts."""

from collections.abc import Sequence

from vba_assets.domain.catalog.matching import MatchTier
from vba_assets.domain.prompting.pieces import (
    CANDIDATES,
    PLAN,
    Pieces,
    glue,
    joined,
    json_text,
    mention_text,
    part,
)
from vba_assets.domain.resolution.relation_facts import relation_lines, tiebreak_fact_lines
from vba_assets.domain.stage_context import CandidateView, SearchView


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
            f"{mention_text(search.reference.link, offsets=True)}; the capture fetched that identity. "
            "Select it only when the report's words for it agree with one of its names."
        )
    if search.unsearched is not None:  # protocol v6: a batched name
        header += (
            "\n- Exact-name lookup of a name the plan left unsearched: the capture holds only "
            "the rows named exactly the term (no misspelled, partial or longer name)."
        )
    candidates = _candidate_lines(search.candidates)
    mentions = "\n".join(f"  - {mention_text(m, offsets=True)}" for m in search.mentions)
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
