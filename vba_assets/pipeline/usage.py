"""What the model requests of one stage of a revision used: tokens, requests, corrections, latency.

Read from the case package only: each attempt's ``dispatched``/``rejected`` event in
``events.jsonl`` (its ``attempt`` and ``elapsed_ms``) and its dispatch record (the provider's own
token counts, :class:`~vba_assets.domain.llm.replies.TokenUsage`). ``after_seq`` selects the
attempts logged after an event (those of one run: the caller notes the last ``seq`` before the
stage runs); 0 means every attempt of the revision. Nothing is estimated: a provider that reports
no token count adds 0, and a recovered attempt (no timing recorded) adds no latency.
:func:`attempt_times` says when each attempt was sent (what its list price is looked up at).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from vba_assets.domain.llm.records import DispatchRecord
from vba_assets.domain.stages import Stage
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.store import CasePackage
from vba_assets.store.layout import RevisionLayout

#: The events the recorder writes for one attempt (:mod:`vba_assets.pipeline.recorder`).
ATTEMPT_EVENTS = frozenset({"dispatched", "rejected"})


@dataclass(frozen=True)
class StageUsage:
    """The sums over some attempts of one stage; ``records`` are those attempts' records."""

    requests: int
    corrections: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    latency_ms: float
    records: tuple[DispatchRecord, ...]
    #: When each of ``records`` was sent (None: not recorded), in the same order.
    requested_at: tuple[datetime | None, ...]


def last_seq(package: CasePackage, revision: str) -> int:
    """The ``seq`` of the revision's last committed event (0 before the first)."""
    events = package.read_events(revision)
    return int(events[-1]["seq"]) if events else 0


def stage_usage(
    package: CasePackage, layout: RevisionLayout, stage: Stage, after_seq: int = 0
) -> StageUsage:
    """The usage of the attempts of ``stage`` logged after event ``after_seq``."""
    events = [
        e
        for e in package.read_events(layout.revision)
        if e["event"] in ATTEMPT_EVENTS and e.get("stage") == stage.value and e["seq"] > after_seq
    ]
    attempts = {int(e["attempt"]) for e in events}
    by_attempt = {r.attempt: r for r in PackageRecorder(package, layout, stage).records()}
    records = tuple(by_attempt[a] for a in sorted(attempts) if a in by_attempt)
    latency = sum(float(e.get("elapsed_ms", 0.0)) for e in events)
    times = attempt_times(events)
    sent = tuple(times.get((r.stage, r.attempt)) or r.started_at for r in records)
    return summarize(records, latency, sent)


def attempt_times(events: Sequence[Mapping[str, Any]]) -> dict[tuple[str, int], datetime]:
    """``(stage, attempt)`` -> when it was sent: its event's ``started_at``, else (a recovered
    attempt, whose timing was lost) when its event was logged."""
    times = {}
    for event in events:
        if event["event"] in ATTEMPT_EVENTS:
            moment = event.get("started_at") or event["at"]
            times[(str(event["stage"]), int(event["attempt"]))] = datetime.fromisoformat(moment)
    return times


def summarize(
    records: Sequence[DispatchRecord],
    latency_ms: float,
    requested_at: Sequence[datetime | None],
) -> StageUsage:
    """Sum the provider-reported token counts of ``records`` (sent at ``requested_at``)."""

    def total(field: str) -> int:
        return sum(getattr(r.usage, field) or 0 for r in records if r.usage is not None)

    return StageUsage(
        requests=len(records),
        corrections=sum(1 for r in records if r.outcome == "rejected"),
        input_tokens=total("input"),
        output_tokens=total("output"),
        cache_read_tokens=total("cache_read"),
        cache_write_tokens=total("cache_creation"),
        latency_ms=round(float(latency_ms), 3),
        records=tuple(records),
        requested_at=tuple(requested_at),
    )
