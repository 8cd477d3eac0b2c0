"""Counters summed over eval cases: totals, per tag, language and tracker, miss reasons and
correction rates per rule (pure: stdlib only)."""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from vba_assets.evaluation.counts import Counts
from vba_assets.evaluation.metrics import MISS_REASONS, CaseResult


def total(results: Iterable[CaseResult]) -> Counts:
    """The summed counters of ``results``."""
    counts = Counts()
    for result in results:
        counts = counts + result.counts
    return counts


def by_tag(results: Sequence[CaseResult]) -> dict[str, Counts]:
    """Summed counters per tag (a case with several tags counts in each)."""
    tags = sorted({tag for result in results for tag in result.tags})
    return {tag: total(r for r in results if tag in r.tags) for tag in tags}


def by_language(results: Sequence[CaseResult]) -> dict[str, Counts]:
    """Summed counters per report language label (``"?"`` when a line gives none)."""
    return _grouped(results, lambda r: r.language or "?")


def by_tracker(results: Sequence[CaseResult]) -> dict[str, Counts]:
    """Summed counters per tracker (``"?"`` when a line gives none)."""
    return _grouped(results, lambda r: r.tracker or "?")


def _grouped(results: Sequence[CaseResult], key: Callable[[CaseResult], str]) -> dict[str, Counts]:
    keys = sorted({key(result) for result in results})
    return {name: total(r for r in results if key(r) == name) for name in keys}


def miss_counts(results: Sequence[CaseResult]) -> dict[str, int]:
    """How many mentions failed for each of :data:`MISS_REASONS` (every reason listed)."""
    counts = dict.fromkeys(MISS_REASONS, 0)
    for result in results:
        for mention in result.mentions:
            if mention.reason is not None:
                counts[mention.reason] += 1
    return counts


@dataclass(frozen=True)
class RuleRate:
    """How often replies were rejected for one rule (finding code) over a set of cases."""

    code: str
    stage: str
    rejected: int
    replies: int

    @property
    def rate(self) -> float | None:
        return self.rejected / self.replies if self.replies else None


def correction_rates(
    results: Iterable[CaseResult], stage_of: dict[str, str] | None = None
) -> list[RuleRate]:
    """The correction rate of every rule that rejected a reply, highest first.

    ``stage_of`` maps a code to its stage (``vba_assets.domain.protocol.RULES``); a code of no
    single stage (citations, the schema, invalid JSON, an unfinished reply) is rated over every
    reply.
    """
    replies: dict[str, int] = {}
    rejected: dict[str, int] = {}
    for result in results:
        for stage, count in result.replies_by_stage.items():
            replies[stage] = replies.get(stage, 0) + count
        for code, count in result.rejections_by_code.items():
            rejected[code] = rejected.get(code, 0) + count
    stages = stage_of or {}
    rates = []
    for code, count in rejected.items():
        stage = stages.get(code, "any")
        if stage not in replies:
            stage = "any"
        total = sum(replies.values()) if stage == "any" else replies[stage]
        rates.append(RuleRate(code, stage, count, total))
    return sorted(rates, key=lambda r: (-(r.rate or 0.0), -r.rejected, r.code))
