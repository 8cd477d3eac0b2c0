"""Quality and cost metrics of entity resolution against a gold dataset (pure: stdlib only).

:func:`score_case` compares what the pipeline produced for one case (:class:`CaseObservation`: the
accepted plan's searches with their candidates and verdicts, every model dispatch) with the case's
gold (:class:`~vba_assets.evaluation.dataset.EvalCase`) as additive :class:`Counts`, summed over
cases before :meth:`Counts.rates` (:mod:`vba_assets.evaluation.counts`). Every metric is defined once, in ``eval/README.md`` ("Metrics");
a change to the scoring here changes that section too.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from vba_assets.domain.case.text import fold
from vba_assets.domain.catalog.identity_digits import holds_identity
from vba_assets.evaluation.counts import Counts
from vba_assets.evaluation.dataset import EvalCase, GoldMention
from vba_assets.evaluation.observations import (
    CaseObservation,
    Identity,
    ObservedInterpretation,
    ObservedSearch,
)

#: ``selected`` is the outcome of a null-gold mention whose primary search selected an entry.
MentionOutcome = Literal["correct", "wrong", "abstained", "unassessed", "missed", "selected"]


@dataclass(frozen=True)
class MentionResult:
    """How one gold mention fared."""

    surface: str
    gold_role: str
    gold_entry: int | None
    outcome: MentionOutcome
    covered_by: str | None = None
    predicted_role: str | None = None
    candidate_hit: bool | None = None
    selected: Identity | None = None
    #: For a mention no search covers: whether the plan named it among the names it left out
    #: because ``max_searches`` was reached.
    over_budget: bool = False
    #: Why a gold mention was not resolved (:data:`MISS_REASONS`), None when it was (or when a
    #: null-gold mention was rightly left unselected).
    reason: str | None = None


#: Why a mention was not resolved, in pipeline order: no search covers it and the plan did not
#: name it either; the plan named it but left it out because ``max_searches`` was reached
#: (``over_budget``, protocol v4 plans); a search covers it but the gold entry is not among its
#: captured candidates; the gold entry was captured but
#: the assessment selected nothing (ambiguous, no_match, or the case stopped before it); another
#: entry was selected; and, for a null-gold mention, some entry was selected although none fits.
MISS_REASONS = (
    "not_searched",
    "over_budget",
    "not_captured",
    "not_selected",
    "wrongly_selected",
    "selected_without_gold",
)


def miss_reason(result: "MentionResult") -> str | None:
    """The :data:`MISS_REASONS` entry of one mention result (None: resolved as it should be)."""
    if result.gold_entry is None:
        return "selected_without_gold" if result.outcome == "selected" else None
    if result.outcome == "correct":
        return None
    if result.outcome == "missed":
        return "over_budget" if result.over_budget else "not_searched"
    if result.outcome == "wrong":
        return "wrongly_selected"
    return "not_selected" if result.candidate_hit else "not_captured"


@dataclass(frozen=True)
class CaseResult:
    """The metrics of one case."""

    case_id: str
    tags: tuple[str, ...]
    mentions: tuple[MentionResult, ...]
    counts: Counts
    calls_by_stage: dict[str, int] = field(default_factory=dict)
    #: Replies (accepted or rejected) per stage, and rejected replies per finding code.
    replies_by_stage: dict[str, int] = field(default_factory=dict)
    rejections_by_code: dict[str, int] = field(default_factory=dict)
    selected_entries: tuple[Identity, ...] = ()
    unmatched_terms: tuple[str, ...] = ()
    error_code: str | None = None
    error_message: str | None = None
    #: The report's language and tracker labels (for the per-language and per-tracker tables).
    language: str | None = None
    tracker: str | None = None
    #: Which sources priced its calls (``config``, ``genai-prices <release>``), sorted.
    price_sources: tuple[str, ...] = ()


def normalize_identity(identity: Identity) -> Identity:
    """Catalog identities may come back as digit strings; compare them as integers."""
    if isinstance(identity, str) and identity.isascii() and identity.isdigit():
        return int(identity)
    return identity


def covers(term: str, surface: str) -> bool:
    """Whether a search term covers a mention surface (see "covers" in ``eval/README.md``)."""
    folded_term, folded_surface = fold(term), fold(surface)
    if not folded_term or not folded_surface:
        return False
    return folded_term in folded_surface or folded_surface in folded_term


def links_to(search: ObservedSearch, surface: str) -> bool:
    """Whether ``search`` is the identity-reference search of a link that ``surface`` is the id
    part of (a link-only mention ``npc=2911`` of ``[Quest-NPC](...?npc=2911)``: the search's term
    is the link text, its identity the id the surface writes)."""
    if search.linked is None:
        return False
    identity, link = search.linked
    folded = fold(surface)
    return (
        bool(folded)
        and folded in fold(link)
        and isinstance(identity, int)
        and holds_identity(surface, identity)
    )


def covers_mention(search: ObservedSearch, surface: str) -> bool:
    """Whether ``search`` covers a mention (see "covers" in ``eval/README.md``)."""
    return (
        covers(search.term, surface)
        or links_to(search, surface)
        or any(covers(quote, surface) for quote in search.corrected)
    )


def primary_search(
    searches: Sequence[ObservedSearch], surface: str
) -> tuple[ObservedSearch | None, list[ObservedSearch]]:
    """The primary covering search of ``surface`` and every covering search."""
    covering = [search for search in searches if covers_mention(search, surface)]
    if not covering:
        return None, []
    size = len(fold(surface))
    ranked = sorted(
        enumerate(covering), key=lambda item: (abs(len(fold(item[1].term)) - size), item[0])
    )
    return ranked[0][1], covering


def gold_role_of(plan_role: str) -> str:
    """A plan role in the gold vocabulary (``location_context`` is other context)."""
    return "other_context" if plan_role == "location_context" else plan_role


def _mention_result(
    mention: GoldMention, searches: Sequence[ObservedSearch], unsearched: Sequence[str] = ()
) -> MentionResult:
    primary, covering = primary_search(searches, mention.surface)
    if primary is None:
        over = any(covers(term, mention.surface) for term in unsearched)
        return MentionResult(
            mention.surface, mention.role, mention.gold_entry, "missed", over_budget=over
        )
    gold = mention.gold_entry
    selected = normalize_identity(primary.selected) if primary.selected is not None else None
    outcome: MentionOutcome
    if primary.status == "unassessed":
        outcome = "unassessed"
    elif primary.status in ("ambiguous", "no_match") or selected is None:
        outcome = "abstained"
    elif gold is None:
        outcome = "selected"
    else:
        outcome = "correct" if selected == gold else "wrong"
    hit = None
    if gold is not None:
        hit = any(gold in {normalize_identity(c) for c in s.candidates} for s in covering)
    return MentionResult(
        surface=mention.surface,
        gold_role=mention.role,
        gold_entry=gold,
        outcome=outcome,
        covered_by=primary.search_id,
        predicted_role=gold_role_of(primary.role),
        candidate_hit=hit,
        selected=selected,
    )


def _scope_counts(case: EvalCase, observed: ObservedInterpretation | None) -> tuple[int, int, int]:
    """(cases, correct, decision correct) of the scope metrics for one case."""
    if case.in_scope is None:
        return 0, 0, 0
    if observed is None:
        return 1, 0, 0
    decision = observed.in_scope == case.in_scope
    same_class = case.in_scope or observed.scope_class == case.scope_class
    return 1, int(decision and same_class), int(decision)


def _date_counts(case: EvalCase, observed: ObservedInterpretation | None) -> tuple[int, int]:
    """(gold dates, matched) of the date metric for one case."""
    found = observed.dates if observed is not None else ()
    correct = 0
    for gold in case.dates:
        wanted = (gold.start.isoformat(), gold.last.isoformat())
        quote = fold(gold.quote)
        if any(
            (quote in fold(d.quote) or fold(d.quote) in quote) and (d.start, d.end) == wanted
            for d in found
        ):
            correct += 1
    return len(case.dates), correct


def within_budget(case: EvalCase, max_searches: int | None) -> int:
    """The gold mentions of the case's ``max_searches`` most mentioned gold entries (all of them
    without a budget): the most a plan can cover when each search finds one entry."""
    mentions = Counter(m.gold_entry for m in case.mentions if m.gold_entry is not None)
    ranked = sorted(mentions.values(), reverse=True)
    return sum(ranked if max_searches is None else ranked[:max_searches])


def score_case(
    case: EvalCase, observation: CaseObservation, max_searches: int | None = None
) -> CaseResult:
    """Metrics of one case from its gold mentions and what the pipeline produced
    (``max_searches``: the run's search budget, for the candidate recall ceiling)."""
    searches = observation.searches
    results = tuple(
        replace(found, reason=miss_reason(found))
        for found in (
            _mention_result(mention, searches, observation.unsearched) for mention in case.mentions
        )
    )
    gold_results = [r for r in results if r.gold_entry is not None]
    null_results = [r for r in results if r.gold_entry is None and r.covered_by is not None]
    selected = {
        normalize_identity(s.selected)
        for s in searches
        if s.status == "selected" and s.selected is not None
    }
    gold_entries = {m.gold_entry for m in case.mentions if m.gold_entry is not None}
    matched = [s for s in searches if any(covers_mention(s, m.surface) for m in case.mentions)]
    by_stage: dict[str, int] = {}
    replies: dict[str, int] = {}
    rejections: dict[str, int] = {}
    for call in observation.calls:
        by_stage[call.stage] = by_stage.get(call.stage, 0) + 1
        if call.outcome in ("accepted", "rejected"):
            replies[call.stage] = replies.get(call.stage, 0) + 1
        if call.outcome == "rejected":
            for code in dict.fromkeys(call.codes):
                rejections[code] = rejections.get(code, 0) + 1
    priced = [c for c in observation.calls if c.cost_microusd is not None]

    def outcomes(name: str) -> int:
        return sum(1 for r in gold_results if r.outcome == name)

    scope = _scope_counts(case, observation.interpretation)
    dates = _date_counts(case, observation.interpretation)

    counts = Counts(
        cases=1,
        blocked=1 if observation.error_code else 0,
        mentions=len(results),
        covered=sum(1 for r in results if r.covered_by is not None),
        gold_mentions=len(gold_results),
        covered_gold_mentions=sum(1 for r in gold_results if r.covered_by is not None),
        candidate_hits=sum(1 for r in gold_results if r.candidate_hit),
        correct=outcomes("correct"),
        wrong=outcomes("wrong"),
        abstained=outcomes("abstained"),
        unassessed=outcomes("unassessed"),
        missed=outcomes("missed"),
        role_correct=sum(
            1 for r in results if r.covered_by is not None and r.predicted_role == r.gold_role
        ),
        null_gold_covered=len(null_results),
        null_gold_selected=sum(1 for r in null_results if r.outcome == "selected"),
        selected_entries=len(selected),
        gold_entries=len(gold_entries),
        true_positive_entries=len(selected & gold_entries),
        searches=len(searches),
        matched_searches=len(matched),
        calls=len(observation.calls),
        rejected_calls=sum(1 for c in observation.calls if c.outcome == "rejected"),
        input_tokens=sum(c.input_tokens or 0 for c in observation.calls),
        output_tokens=sum(c.output_tokens or 0 for c in observation.calls),
        usage_missing=sum(
            1 for c in observation.calls if c.input_tokens is None or c.output_tokens is None
        ),
        prompt_tokens=sum(c.prompt_tokens for c in observation.calls),
        cache_read_tokens=sum(c.cache_read_tokens for c in observation.calls),
        cache_write_tokens=sum(c.cache_write_tokens for c in observation.calls),
        cost_microusd=sum(c.cost_microusd or 0 for c in priced),
        priced_calls=len(priced),
        scope_cases=scope[0],
        scope_correct=scope[1],
        scope_decision_correct=scope[2],
        gold_dates=dates[0],
        dates_correct=dates[1],
        within_budget=within_budget(case, max_searches),
    )
    return CaseResult(
        case_id=case.id,
        tags=case.tags,
        mentions=results,
        counts=counts,
        calls_by_stage=dict(sorted(by_stage.items())),
        replies_by_stage=dict(sorted(replies.items())),
        rejections_by_code=dict(sorted(rejections.items())),
        selected_entries=tuple(sorted(selected, key=str)),
        unmatched_terms=tuple(s.term for s in searches if s not in matched),
        error_code=observation.error_code,
        error_message=observation.error_message,
        language=case.language,
        tracker=case.tracker,
        price_sources=tuple(sorted({c.price_source for c in priced if c.price_source})),
    )
