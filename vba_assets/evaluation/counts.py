"""The additive counters of an evaluation and the rates computed from them (pure: stdlib only).

:class:`Counts` is what :func:`vba_assets.evaluation.metrics.score_case` returns for one case;
counts are summed over cases before :meth:`Counts.rates`. Every rate is defined once, in
``eval/README.md`` ("Metrics").
"""

from dataclasses import asdict, dataclass, fields

#: Rates where a higher value is better (the regression check guards drops).
HIGHER_IS_BETTER = (
    "mention_recall",
    "candidate_recall_at_k",
    "candidate_recall_at_k_covered",
    "selection_precision",
    "selection_recall",
    "mention_accuracy",
    "role_accuracy",
    "search_precision",
    "scope_accuracy",
    "scope_decision_accuracy",
    "date_accuracy",
)
#: Rates where a lower value is better (the regression check guards rises).
LOWER_IS_BETTER = (
    "wrong_selection_rate",
    "abstention_rate",
    "unassessed_rate",
    "missed_rate",
    "null_gold_selection_rate",
    "blocked_rate",
)
#: Bounds of the dataset and the run's budget, not results of the pipeline (reported, never
#: compared with a baseline).
BOUNDS = ("candidate_recall_ceiling",)
#: Cost figures (the regression check wants them unchanged).
COST_FIGURES = ("calls_per_case", "tokens_per_case")
#: Cache, correction and price figures, reported but not compared with a baseline (they depend on
#: the provider's caching and a price table, not on the pipeline).
CACHE_AND_PRICE_FIGURES = (
    "correction_rounds_per_case",
    "cache_read_tokens_per_case",
    "cache_write_tokens_per_case",
    "cache_hit_share",
    "cost_per_case_usd",
)


@dataclass(frozen=True)
class Counts:
    """Additive counters; :meth:`rates` turns them into the metrics of ``eval/README.md``."""

    cases: int = 0
    blocked: int = 0
    mentions: int = 0
    covered: int = 0
    gold_mentions: int = 0
    covered_gold_mentions: int = 0
    candidate_hits: int = 0
    correct: int = 0
    wrong: int = 0
    abstained: int = 0
    unassessed: int = 0
    missed: int = 0
    role_correct: int = 0
    null_gold_covered: int = 0
    null_gold_selected: int = 0
    selected_entries: int = 0
    gold_entries: int = 0
    true_positive_entries: int = 0
    searches: int = 0
    matched_searches: int = 0
    calls: int = 0
    rejected_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usage_missing: int = 0
    prompt_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_microusd: int = 0
    priced_calls: int = 0
    scope_cases: int = 0
    scope_correct: int = 0
    scope_decision_correct: int = 0
    gold_dates: int = 0
    dates_correct: int = 0
    #: Gold mentions of the ``max_searches`` most mentioned gold entries of each case: what a plan
    #: could cover if every search found one gold entry (see ``candidate_recall_ceiling``).
    within_budget: int = 0

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )

    def fractions(self) -> dict[str, tuple[int, int]]:
        """Every metric of ``eval/README.md`` as ``(numerator, denominator)``."""
        gold = self.gold_mentions
        return {
            "mention_recall": (self.covered, self.mentions),
            "candidate_recall_at_k": (self.candidate_hits, gold),
            "candidate_recall_at_k_covered": (self.candidate_hits, self.covered_gold_mentions),
            "candidate_recall_ceiling": (self.within_budget, gold),
            "selection_precision": (self.true_positive_entries, self.selected_entries),
            "selection_recall": (self.true_positive_entries, self.gold_entries),
            "mention_accuracy": (self.correct, gold),
            "wrong_selection_rate": (self.wrong, gold),
            "abstention_rate": (self.abstained, gold),
            "unassessed_rate": (self.unassessed, gold),
            "missed_rate": (self.missed, gold),
            "role_accuracy": (self.role_correct, self.covered),
            "null_gold_selection_rate": (self.null_gold_selected, self.null_gold_covered),
            "search_precision": (self.matched_searches, self.searches),
            "blocked_rate": (self.blocked, self.cases),
            "scope_accuracy": (self.scope_correct, self.scope_cases),
            "scope_decision_accuracy": (self.scope_decision_correct, self.scope_cases),
            "date_accuracy": (self.dates_correct, self.gold_dates),
            "calls_per_case": (self.calls, self.cases),
            "tokens_per_case": (self.input_tokens + self.output_tokens, self.cases),
            "correction_rounds_per_case": (self.rejected_calls, self.cases),
            "cache_read_tokens_per_case": (self.cache_read_tokens, self.cases),
            "cache_write_tokens_per_case": (self.cache_write_tokens, self.cases),
            "cache_hit_share": (self.cache_read_tokens, self.prompt_tokens),
            # micro-dollars per case; undefined unless every call had a price
            "cost_per_case_usd": (
                self.cost_microusd,
                self.cases if self.calls and self.priced_calls == self.calls else 0,
            ),
        }

    def rates(self) -> dict[str, float | None]:
        """Every metric as a number (None when its denominator is 0)."""
        rates = {
            name: numerator / denominator if denominator else None
            for name, (numerator, denominator) in self.fractions().items()
        }
        cost = rates.get("cost_per_case_usd")
        rates["cost_per_case_usd"] = None if cost is None else cost / 1_000_000
        return rates

    def to_json(self) -> dict[str, int]:
        return asdict(self)
