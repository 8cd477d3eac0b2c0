"""Protocol v6 corrected searches of a heuristic plan (pure logic, issue 29 item 5).

After the literal searches are chosen (:mod:`.planning`), two passes may search a name by the
catalog's spelling instead of the report's, each citing the written span in ``corrected_from``:

1. names written with other separators ("Yogg Saron", "zul jin", :mod:`.separators`): the
   corrected search takes the place of the literal stretch that cited only those mentions;
2. misspelled names (:mod:`.corrections`): into free search slots only.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from vba_assets.domain.case.text import fold
from vba_assets.domain.resolution.models import ProposedSearch, SearchRole, UnsearchedName
from vba_assets.domain.stage_context import CatalogView
from vba_assets.heuristic.corrections import corrections, with_corrections
from vba_assets.heuristic.gazetteer import Gazetteer
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.role_reader import RoleReader
from vba_assets.heuristic.separators import separator_variants, with_separator_variants
from vba_assets.heuristic.spans import SourceText
from vba_assets.heuristic.terms import ReportFacts, Term, group_terms


@dataclass(frozen=True)
class PlanParts:
    """What the planner read of one report, as the corrected passes need it."""

    grouped: Sequence[Term]
    kept: Sequence[Term]
    sources: Sequence[SourceText]
    facts: ReportFacts
    index: NameIndex
    gazetteer: Gazetteer
    catalogs: Sequence[CatalogView]
    roles: RoleReader


def corrected_searches(
    searches: Sequence[ProposedSearch],
    unsearched: Sequence[UnsearchedName],
    parts: PlanParts,
    max_searches: int,
) -> tuple[list[ProposedSearch], list[UnsearchedName]]:
    """``searches`` and ``unsearched`` with the corrected searches of both passes."""
    language = parts.facts.language
    linked = [s for t in [*parts.grouped, *parts.kept] if t.reference is not None for s in t.spans]
    variants = separator_variants(parts.sources, parts.index, language, linked)
    roles: dict[str, SearchRole] = {}
    for variant in variants:
        term = group_terms(list(variant.spans), parts.sources, parts.gazetteer, language)[0]
        role = parts.roles.role(term, term.cues)
        if role is not None:
            roles[fold(variant.name)] = role
    result, left = with_separator_variants(
        searches, unsearched, variants, parts.catalogs, max_searches, roles
    )
    found = corrections(parts.grouped, parts.kept, parts.index, parts.facts, parts.sources)
    return with_corrections(result, left, found, parts.catalogs, max_searches, parts.roles)
