"""The heuristic interpretation past the limits of protocol v5 (pure logic; issue 30).

Protocol v5 bounds every rule that requires listing things (:mod:`vba_assets.domain.limits`);
the heuristic writes a reply that meets them for any number of names:

* the clarification names exactly the subjects the rule requires
  (:func:`~vba_assets.domain.interpretation.rules_v4.clarification_targets`), in full words when
  that fits the question, else as a compact listing (the unmatched words and the candidates' ids,
  with names when the rule asks for them), and says how many more subjects there are;
* every ``N`` alias is listed: affected subjects past their cap become context entities;
* the restatement names the selected affected subjects the rule requires, by their labels when
  they fit, else by their shortest words;
* ``unknowns`` lists every ``D`` alias, then the unresolved dates, then the other open points, up
  to :data:`~vba_assets.domain.limits.MAX_UNKNOWNS`.
"""

from collections.abc import Sequence

from vba_assets.domain.interpretation.models import EntityReference
from vba_assets.domain.interpretation.rules import clarification_needs_names
from vba_assets.domain.interpretation.rules_v4 import (
    clarification_targets,
    restatement_targets,
    subject_words,
)
from vba_assets.domain.limits import (
    CLARIFICATION_MAX_CANDIDATES,
    MAX_AFFECTED_SUBJECTS,
    MAX_CLARIFICATION_CHARS,
    MAX_CONTEXT_ENTITIES,
)
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.aliases import (
    ResolutionContext,
    SelectedEntityAlias,
    UnresolvedIdentityAlias,
)
from vba_assets.domain.stage_context import InterpretationStageContext

_ASK = " (answer with the id or the exact name)?"


def bounded_references(
    affected: Sequence[EntityReference],
    context: Sequence[EntityReference],
    resolution: ResolutionContext,
) -> tuple[list[EntityReference], list[EntityReference]]:
    """``affected`` and ``context`` (uncut) within their caps, every ``N`` alias kept: the
    affected subjects past :data:`MAX_AFFECTED_SUBJECTS` move to the context entities, and
    ``N`` aliases come first there (:data:`MAX_CONTEXT_ENTITIES` holds all of them)."""
    selected = {n.alias for n in resolution.selected}
    kept, moved = list(affected[:MAX_AFFECTED_SUBJECTS]), list(affected[MAX_AFFECTED_SUBJECTS:])
    rest = [*moved, *context]
    ordered = [e for e in rest if e.ref in selected] + [e for e in rest if e.ref not in selected]
    return kept, ordered[:MAX_CONTEXT_ENTITIES]


def bounded(context: InterpretationStageContext) -> bool:
    """Whether ``context``'s protocol bounds its lists (v5 on)."""
    return context.protocol_version is not None and protocol(context.protocol_version).bounded_lists


def _compact(d: UnresolvedIdentityAlias, labels: dict[int | str, str]) -> str:
    if d.status == "no_match" or not d.candidate_identities:
        return f"'{d.term}'"
    shown = d.candidate_identities[:CLARIFICATION_MAX_CANDIDATES]
    return ", ".join(f"{i} '{labels[i]}'" if i in labels else str(i) for i in shown)


def bounded_clarification(
    context: InterpretationStageContext,
    affected: Sequence[EntityReference],
    full: str,
) -> str:
    """The question of a bounded reply: ``full`` (the v4 wording) when it names every required
    subject within the question's length, else the compact listing of the required ones."""
    listed = [e.ref for e in affected if e.ref is not None]
    targets = clarification_targets(context, listed, bounded=True)
    resolution = context.resolution
    every = [
        d for d in (resolution.unresolved if resolution else []) if d.role == "affected_subject"
    ]
    if len(full) <= MAX_CLARIFICATION_CHARS and len(targets) == len(every):
        return full
    names = context.candidate_names or {}
    with_names = clarification_needs_names(context)
    parts = [
        _compact(d, {c.identity: c.name for c in names.get(d.alias, [])} if with_names else {})
        for d in targets
    ]
    more = len(listed or every) - len(targets)
    rest = f"; and {more} more subjects listed in unknowns" if more > 0 else ""
    return f"Which entries does the report mean: {'; '.join(parts)}{rest}{_ASK}"


def restatement_subjects(
    context: InterpretationStageContext, affected: Sequence[EntityReference]
) -> list[SelectedEntityAlias]:
    """The selected subjects the restatement must name
    (:func:`~vba_assets.domain.interpretation.rules_v4.restatement_targets`)."""
    return [n for _, n in restatement_targets(affected, context, bounded=True)]


def shortest_names(subjects: Sequence[SelectedEntityAlias]) -> str:
    """``subjects`` by their shortest words, the listing the rule's budget counts."""
    return "; ".join(min(subject_words(n), key=len) for n in subjects)
