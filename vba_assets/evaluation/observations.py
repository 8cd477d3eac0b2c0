"""What the pipeline produced for one eval case, as the metrics read it (pure: stdlib only).

:mod:`vba_assets.evaluation.runner` reads an accepted revision into a :class:`CaseObservation`
(searches with their candidates and verdicts, every model call with its usage and cost, the
interpretation's scope and dates); :func:`~vba_assets.evaluation.metrics.score_case` compares it
with the gold case. Token and cost definitions are in the metrics module's docstring.
"""

from dataclasses import dataclass
from typing import Literal

SearchStatus = Literal["selected", "ambiguous", "no_match", "unassessed"]
Identity = int | str


@dataclass(frozen=True)
class ObservedSearch:
    """One accepted search of a case, what it captured and how it was assessed."""

    search_id: str
    term: str
    #: The plan role; for a search whose selection was merged into one N alias with others'
    #: (protocol v6), that alias's role (:func:`.observing.merged_roles`).
    role: str
    candidates: tuple[Identity, ...] = ()
    truncated: bool = False
    status: SearchStatus = "unassessed"
    selected: Identity | None = None
    #: An identity-reference search's linked id and the link as the report writes it (protocol 4).
    linked: tuple[Identity, str] | None = None
    #: A corrected search's misspelled mentions as the report writes them (protocol 6).
    corrected: tuple[str, ...] = ()


@dataclass(frozen=True)
class ObservedCall:
    """One dispatch record: a model request and its token usage (None: not reported)."""

    stage: str
    outcome: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    #: Every input token the provider read, cached ones included (see the metrics module).
    prompt_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    #: None without a price for the model.
    cost_microusd: int | None = None
    #: Which source priced it (:mod:`~vba_assets.evaluation.pricing`): ``config`` or
    #: ``genai-prices <release>``; None when unpriced.
    price_source: str | None = None
    #: The finding codes of a rejected reply.
    codes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Price:
    """USD per million tokens of one model (a row of the ``vba eval --prices`` table)."""

    input: float
    output: float
    cache_write: float = 0.0
    cache_read: float = 0.0

    def cost_microusd(self, prompt: int, cache_write: int, cache_read: int, output: int) -> int:
        """One call's cost in micro-dollars: uncached prompt, cache writes, reads and output."""
        uncached = max(0, prompt - cache_write - cache_read)
        # tokens x (USD per 1e6 tokens) = micro-dollars
        return round(
            uncached * self.input
            + cache_write * self.cache_write
            + cache_read * self.cache_read
            + output * self.output
        )


def prompt_tokens(
    input_tokens: int | None,
    cache_write: int | None,
    cache_read: int | None,
    *,
    input_includes_cached: bool,
) -> int:
    """Every input token of a call from its reported usage (see the metrics module)."""
    if input_tokens is None:
        return 0
    if input_includes_cached:
        return input_tokens
    return input_tokens + (cache_write or 0) + (cache_read or 0)


@dataclass(frozen=True)
class ObservedDate:
    """One time reference of the accepted interpretation."""

    quote: str
    start: str | None
    end: str | None


@dataclass(frozen=True)
class ObservedInterpretation:
    """The scope and dates of the accepted interpretation."""

    in_scope: bool
    scope_class: str | None = None
    dates: tuple[ObservedDate, ...] = ()


@dataclass(frozen=True)
class CaseObservation:
    """What the pipeline produced for one case (``error_code`` set when it was blocked)."""

    case_id: str
    searches: tuple[ObservedSearch, ...] = ()
    #: The names the accepted plan left out because ``max_searches`` was reached (protocol v4).
    unsearched: tuple[str, ...] = ()
    calls: tuple[ObservedCall, ...] = ()
    interpretation: ObservedInterpretation | None = None
    error_code: str | None = None
    error_message: str | None = None
