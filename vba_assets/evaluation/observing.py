"""Reading what an evaluated revision accepted into a :class:`~.observations.CaseObservation` (IO:
reads the case package, never the world DB or a model): the accepted plan's searches with their
captured candidates and verdicts, every dispatch record's tokens and cost, the interpretation's
scope and dates."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from vba_assets.domain.case.text import fold
from vba_assets.domain.llm.contract import DispatchRecord, TokenUsage
from vba_assets.domain.resolution.aliases import ResolutionContext
from vba_assets.domain.resolution.batched import batched_origins, planned_searches
from vba_assets.evaluation.observations import (
    CaseObservation,
    ObservedCall,
    ObservedDate,
    ObservedInterpretation,
    ObservedSearch,
    Price,
    SearchStatus,
    prompt_tokens,
)
from vba_assets.evaluation.pricing import CallTokens, call_cost
from vba_assets.pipeline.artifacts import (
    accepted_doc,
    load_assessment,
    load_candidate_index,
    load_plan,
    load_resolution_context,
)
from vba_assets.pipeline.frozen_revision import FrozenRevision, load_frozen
from vba_assets.pipeline.recorder import revision_records
from vba_assets.pipeline.usage import attempt_times
from vba_assets.provider_registry import PROVIDERS
from vba_assets.store import CasePackage


def observe_case(
    package: CasePackage, revision: str, prices: Mapping[str, Price] | None = None
) -> CaseObservation:
    """The searches, candidates, verdicts and dispatches a revision has accepted so far."""
    rev = load_frozen(package, revision)
    times = attempt_times(package.read_events(revision))
    calls = tuple(
        observe_call(r, rev.interpretation.provider, prices, times.get((r.stage, r.attempt)))
        for r in revision_records(package, rev.layout)
    )
    interpretation = observe_interpretation(accepted_doc(rev, rev.layout.interpretation))
    plan = load_plan(rev)
    if plan is None:
        return CaseObservation(package.case_id, calls=calls, interpretation=interpretation)
    index = load_candidate_index(rev)
    by_search = {s.search_id: s for s in index.searches} if index else {}
    assessment = load_assessment(rev)
    verdicts = {v.search_id: v for v in assessment.assessments} if assessment else {}
    merged = merged_roles(rev)
    searches = []
    looked_up = set(batched_origins(plan, rev.spec.batched_exact_names).values())
    for search_id, proposed in planned_searches(plan, rev.spec.batched_exact_names):
        indexed = by_search.get(search_id)
        verdict = verdicts.get(search_id)
        status: SearchStatus = verdict.status if verdict else "unassessed"
        selected = None
        if verdict and verdict.status == "selected" and indexed and verdict.candidate_id:
            candidate = indexed.candidate(verdict.candidate_id)
            selected = candidate.identity if candidate is not None else None
        searches.append(
            ObservedSearch(
                search_id=search_id,
                term=proposed.term,
                role=merged.get(search_id, proposed.role),
                candidates=tuple(c.identity for c in indexed.candidates) if indexed else (),
                truncated=indexed.truncated if indexed else False,
                status=status,
                selected=selected,
                linked=(
                    (proposed.reference.identity, proposed.reference.link.quote)
                    if proposed.reference is not None
                    else None
                ),
                corrected=(
                    tuple(
                        m.quote
                        for m in proposed.mentions
                        if fold(proposed.term) not in fold(m.quote)
                    )
                    if proposed.corrected_from is not None
                    else ()
                ),
            )
        )
    return CaseObservation(
        package.case_id,
        searches=tuple(searches),
        unsearched=tuple(
            name.term for position, name in enumerate(plan.unsearched) if position not in looked_up
        ),
        calls=calls,
        interpretation=interpretation,
    )


def merged_roles(rev: FrozenRevision) -> dict[str, str]:
    """Search id -> the role of the one N alias that merged its selection with others' (protocol
    v6, ``merged_entities``): a mention is scored by its own search's verdict, and by the role the
    interpretation context gives the entity, the strongest of the merged searches' roles. Empty
    when no alias was merged (every protocol before v6), so a search keeps its plan role."""
    return roles_of_merged(load_resolution_context(rev))


def roles_of_merged(context: ResolutionContext | None) -> dict[str, str]:
    """:func:`merged_roles` of a resolution context."""
    if context is None:
        return {}
    return {
        search_id: alias.role
        for alias in context.selected
        if alias.merged_search_ids
        for search_id in (alias.search_id, *alias.merged_search_ids)
    }


def observe_call(
    record: DispatchRecord,
    frozen_provider: str,
    prices: Mapping[str, Price] | None = None,
    requested_at: datetime | None = None,
) -> ObservedCall:
    """One dispatch record's tokens (cache reads and writes, prompt tokens counted the way its
    provider reports them), its cost and, when rejected, its finding codes.

    The cost is the ``prices`` row of the record's model, else genai-prices' list price for its
    provider at ``requested_at`` (when it was sent; a protocol v1/v2 record holds it itself),
    else none (:mod:`vba_assets.evaluation.pricing`); ``price_source`` says which.
    """
    usage = record.usage or TokenUsage()
    provider = frozen_provider if record.provider == "replay" else record.provider
    spec = PROVIDERS.get(provider)
    prompt = prompt_tokens(
        usage.input,
        usage.cache_creation,
        usage.cache_read,
        input_includes_cached=spec.input_includes_cached if spec else True,
    )
    tokens = CallTokens(prompt, usage.cache_creation or 0, usage.cache_read or 0, usage.output or 0)
    cost = call_cost(
        record.model,
        tokens,
        prices,
        spec.genai_prices_provider if spec else None,
        requested_at or record.started_at,
    )
    return ObservedCall(
        stage=record.stage,
        outcome=record.outcome,
        input_tokens=usage.input,
        output_tokens=usage.output,
        prompt_tokens=prompt,
        cache_read_tokens=usage.cache_read or 0,
        cache_write_tokens=usage.cache_creation or 0,
        cost_microusd=cost.microusd if cost else None,
        price_source=cost.source if cost else None,
        codes=tuple(issue.code.value for issue in record.issues),
    )


def observe_interpretation(doc: dict[str, Any] | None) -> ObservedInterpretation | None:
    """The scope decision and the time references of an accepted interpretation artifact."""
    if doc is None or not isinstance(doc.get("interpretation"), dict):
        return None
    output = doc["interpretation"]
    scope = output.get("scope") or {}
    return ObservedInterpretation(
        in_scope=bool(scope.get("in_scope")),
        scope_class=scope.get("out_of_scope_class"),
        dates=tuple(
            ObservedDate(
                quote=str(t.get("quote", "")),
                start=t.get("resolved_start"),
                end=t.get("resolved_end"),
            )
            for t in output.get("time_references") or ()
        ),
    )
