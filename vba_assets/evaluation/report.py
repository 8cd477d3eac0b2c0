"""The evaluation report: ``results.json``, ``results.md`` and the baseline comparison.

:class:`EvalReport` holds the run's labels (dataset sha256, provider, model, policy) and the scored
cases; :meth:`EvalReport.to_json` and :meth:`EvalReport.markdown` render it. A baseline
(``eval/baseline.heuristic.json``) is :func:`baseline_document` of a reviewed run;
:func:`compare_to_baseline` lists what regressed beyond the tolerance. No secret and no absolute path
is ever written: the run labels hold names and versions only.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vba_assets.domain.protocol import RULES
from vba_assets.errors import ErrorCode, InputError
from vba_assets.evaluation.aggregate import (
    RuleRate,
    by_language,
    by_tag,
    by_tracker,
    correction_rates,
    miss_counts,
    total,
)
from vba_assets.evaluation.metrics import (
    COST_FIGURES,
    HIGHER_IS_BETTER,
    LOWER_IS_BETTER,
    CaseResult,
    Counts,
)

RESULTS_SCHEMA_VERSION = 1
BASELINE_SCHEMA_VERSION = 1
#: Default allowed drop of a rate (or rise of a lower-is-better rate) against the baseline.
DEFAULT_RATE_TOLERANCE = 0.02
#: Digits kept when rates are written (and compared).
DIGITS = 6

_LABELS = {
    "mention_recall": "mention recall",
    "candidate_recall_at_k": "candidate recall at k",
    "candidate_recall_at_k_covered": "candidate recall at k (covered mentions)",
    "selection_precision": "selection precision",
    "selection_recall": "selection recall",
    "mention_accuracy": "mention accuracy (correct selection)",
    "wrong_selection_rate": "wrong-selection rate",
    "abstention_rate": "abstention rate",
    "unassessed_rate": "unassessed rate (pipeline stopped)",
    "missed_rate": "missed rate (no covering search)",
    "role_accuracy": "role accuracy",
    "null_gold_selection_rate": "null-gold selection rate",
    "search_precision": "search precision",
    "blocked_rate": "blocked rate",
    "scope_accuracy": "scope accuracy (decision and out-of-scope class)",
    "scope_decision_accuracy": "scope decision accuracy (in or out)",
    "date_accuracy": "date accuracy (gold dates resolved to the gold days)",
    "calls_per_case": "model calls per case",
    "tokens_per_case": "tokens per case",
    "correction_rounds_per_case": "correction rounds per case (rejected replies)",
    "cache_read_tokens_per_case": "cache-read tokens per case",
    "cache_write_tokens_per_case": "cache-write tokens per case",
    "cache_hit_share": "cache hit share (cache-read / prompt tokens)",
    "cost_per_case_usd": "cost per case (USD, from the price table)",
}


@dataclass(frozen=True)
class RunInfo:
    """What was measured, with what (names and versions only, never a secret)."""

    dataset: str
    dataset_sha256: str
    provider: str
    model: str
    entity_resolution: bool
    max_searches: int | None
    max_candidates: int | None
    catalogs: tuple[str, ...]
    snapshot_label: str
    database: str


@dataclass(frozen=True)
class EvalReport:
    """One evaluation run: labels, per-case results and their aggregates."""

    run: RunInfo
    cases: tuple[CaseResult, ...]
    aggregate: Counts = field(init=False)
    #: Where the prices of ``cost_per_case_usd`` came from (a ``--prices`` file name), if any.
    prices: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "aggregate", total(self.cases))

    @property
    def blocked(self) -> list[CaseResult]:
        """Cases whose import or pipeline raised an error (counted, never dropped)."""
        return [case for case in self.cases if case.error_code is not None]

    def rates(self) -> dict[str, float | None]:
        return _rounded(self.aggregate.rates())

    def rule_rates(self) -> list[RuleRate]:
        """The correction rate of every rule that rejected a reply (highest first)."""
        return correction_rates(self.cases, {code.value: r.stage for code, r in RULES.items()})

    def to_json(self) -> dict[str, Any]:
        """The content of ``results.json``."""
        return {
            "schema_version": RESULTS_SCHEMA_VERSION,
            "run": {**asdict(self.run), "catalogs": list(self.run.catalogs)},
            "aggregate": _summary(self.aggregate),
            "by_tag": {tag: _summary(counts) for tag, counts in by_tag(self.cases).items()},
            "by_language": {k: _summary(c) for k, c in by_language(self.cases).items()},
            "by_tracker": {k: _summary(c) for k, c in by_tracker(self.cases).items()},
            "miss_reasons": miss_counts(self.cases),
            "prices": self.prices,
            "correction_rates": [
                {
                    "code": r.code,
                    "stage": r.stage,
                    "rejected_replies": r.rejected,
                    "replies": r.replies,
                    "rate": None if r.rate is None else round(r.rate, DIGITS),
                }
                for r in self.rule_rates()
            ],
            "blocked": [
                {"case_id": c.case_id, "code": c.error_code, "message": c.error_message}
                for c in self.blocked
            ],
            "cases": [_case_json(case) for case in self.cases],
        }

    def markdown(self) -> str:
        """The content of ``results.md``: short tables for people."""
        run, counts = self.run, self.aggregate
        k = run.max_candidates if run.max_candidates is not None else "n/a"
        lines = [
            "# Entity-resolution evaluation",
            "",
            f"Dataset `{run.dataset}` (sha256 `{run.dataset_sha256[:16]}…`): {counts.cases} "
            f"cases, {counts.mentions} mentions ({counts.gold_mentions} with a gold entry). "
            f"Provider `{run.provider}`, model `{run.model}`; k = max_candidates = {k}, "
            f"max_searches = {run.max_searches if run.max_searches is not None else 'n/a'}, "
            f"snapshot `{run.snapshot_label}`.",
            "",
            "| metric | value | fraction |",
            "|---|---:|---:|",
        ]
        for name, (numerator, denominator) in counts.fractions().items():
            value = numerator / denominator if denominator else None
            lines.append(f"| {_LABELS[name]} | {_fmt(value)} | {numerator}/{denominator} |")
        lines += [
            "",
            "## By tag",
            "",
            "| tag | cases | mentions | mention recall | cand. recall@k | accuracy | wrong "
            "| abstained |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for tag, group in by_tag(self.cases).items():
            rates = group.rates()
            lines.append(
                f"| {tag} | {group.cases} | {group.mentions} | {_fmt(rates['mention_recall'])} "
                f"| {_fmt(rates['candidate_recall_at_k'])} | {_fmt(rates['mention_accuracy'])} "
                f"| {_fmt(rates['wrong_selection_rate'])} | {_fmt(rates['abstention_rate'])} |"
            )
        lines += _group_table("By language", "language", by_language(self.cases))
        lines += _group_table("By tracker", "tracker", by_tracker(self.cases))
        lines += _missed_section(self.cases)
        lines += [
            "",
            "## Corrections per rule",
            "",
            "Replies rejected for each rule (finding code) over the replies of its stage; a",
            "correction round follows each rejected reply. Prices: "
            + (f"`{self.prices}`." if self.prices else "none given (`--prices`), cost n/a."),
            "",
            "| rule | stage | rejected replies | rate |",
            "|---|---|---:|---:|",
        ]
        rule_rates = self.rule_rates()
        lines += [
            f"| `{r.code}` | {r.stage} | {r.rejected}/{r.replies} | {_fmt(r.rate)} |"
            for r in rule_rates
        ]
        if not rule_rates:
            lines.append("| none | | 0 | |")
        lines += ["", f"## Blocked cases ({len(self.blocked)})", ""]
        lines += [f"- `{c.case_id}`: `{c.error_code}`: {c.error_message}" for c in self.blocked]
        if not self.blocked:
            lines.append("None.")
        lines += [
            "",
            "## Cases",
            "",
            "| case | covered | correct | wrong | abstained | missed | extra searches | calls |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for case in self.cases:
            c = case.counts
            lines.append(
                f"| {case.case_id}{' (blocked)' if case.error_code else ''} "
                f"| {c.covered}/{c.mentions} | {c.correct} | {c.wrong} | {c.abstained} "
                f"| {c.missed} | {c.searches - c.matched_searches} | {c.calls} |"
            )
        return "\n".join(lines) + "\n"


def _group_table(title: str, label: str, groups: Mapping[str, Counts]) -> list[str]:
    """A table of the headline rates per group (language, tracker)."""
    lines = [
        "",
        f"## {title}",
        "",
        f"| {label} | cases | mentions | cand. recall@k | sel. precision | sel. recall "
        "| wrong | role accuracy |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, group in groups.items():
        rates = group.rates()
        lines.append(
            f"| {name} | {group.cases} | {group.mentions} "
            f"| {_fmt(rates['candidate_recall_at_k'])} | {_fmt(rates['selection_precision'])} "
            f"| {_fmt(rates['selection_recall'])} | {_fmt(rates['wrong_selection_rate'])} "
            f"| {_fmt(rates['role_accuracy'])} |"
        )
    return lines


def _missed_section(cases: Sequence[CaseResult]) -> list[str]:
    """Every mention that was not resolved, with the reason (:data:`MISS_REASONS`)."""
    counts = miss_counts(cases)
    lines = [
        "",
        "## Mentions not resolved, and why",
        "",
        ", ".join(f"{reason}: {count}" for reason, count in counts.items()) + ".",
        "",
        "| case | mention | gold | reason | selected | role (gold / plan) |",
        "|---|---|---:|---|---:|---|",
    ]
    found = False
    for case in cases:
        for m in case.mentions:
            if m.reason is None:
                continue
            found = True
            lines.append(
                f"| {case.case_id} | {_cell(m.surface)} | {m.gold_entry} | {m.reason} "
                f"| {m.selected if m.selected is not None else ''} "
                f"| {m.gold_role} / {m.predicted_role or '-'} |"
            )
    if not found:
        lines.append("| none | | | | | |")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _rounded(rates: Mapping[str, float | None]) -> dict[str, float | None]:
    return {name: None if v is None else round(v, DIGITS) for name, v in rates.items()}


def _summary(counts: Counts) -> dict[str, Any]:
    return {"rates": _rounded(counts.rates()), "counts": counts.to_json()}


def _case_json(case: CaseResult) -> dict[str, Any]:
    error = None
    if case.error_code is not None:
        error = {"code": case.error_code, "message": case.error_message}
    return {
        "case_id": case.case_id,
        "tags": list(case.tags),
        "error": error,
        **_summary(case.counts),
        "calls_by_stage": case.calls_by_stage,
        "selected_entries": list(case.selected_entries),
        "unmatched_terms": list(case.unmatched_terms),
        "mentions": [asdict(mention) for mention in case.mentions],
    }


def write_results(report: EvalReport, out_dir: Path) -> tuple[Path, Path]:
    """Write ``results.json`` and ``results.md`` into ``out_dir`` (replacing earlier ones)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "results.json", out_dir / "results.md"
    _write_text(json_path, _dumps(report.to_json()))
    _write_text(md_path, report.markdown())
    return json_path, md_path


def _dumps(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def _write_text(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    temp.replace(path)


# --- baseline ---------------------------------------------------------------------------------


def baseline_document(report: EvalReport) -> dict[str, Any]:
    """The committed baseline: run labels, aggregate rates and counts (no per-case detail)."""
    return {
        "schema_version": BASELINE_SCHEMA_VERSION,
        "dataset": report.run.dataset,
        "dataset_sha256": report.run.dataset_sha256,
        "provider": report.run.provider,
        "model": report.run.model,
        "max_searches": report.run.max_searches,
        "max_candidates": report.run.max_candidates,
        "rates": report.rates(),
        "counts": report.aggregate.to_json(),
        "blocked": [c.case_id for c in report.blocked],
    }


def write_baseline(report: EvalReport, path: Path) -> None:
    _write_text(path, _dumps(baseline_document(report)))


def load_baseline(path: Path | str) -> dict[str, Any]:
    """Read a baseline file (``EVAL_BASELINE_INVALID`` when it is missing or malformed)."""
    path = Path(path)

    def invalid(reason: str) -> InputError:
        return InputError(
            ErrorCode.EVAL_BASELINE_INVALID, f"baseline {path.name}: {reason}", source=path.name
        )

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise invalid(f"cannot be read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise invalid(f"not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema_version") != BASELINE_SCHEMA_VERSION:
        raise invalid(f"expected an object with schema_version {BASELINE_SCHEMA_VERSION}")
    rates = doc.get("rates")
    if not isinstance(rates, dict) or not all(
        v is None or isinstance(v, int | float) for v in rates.values()
    ):
        raise invalid("'rates' must map metric names to numbers or null")
    for key in ("dataset_sha256", "provider", "model"):
        if not isinstance(doc.get(key), str):
            raise invalid(f"{key!r} must be a string")
    return doc


@dataclass(frozen=True)
class BaselineComparison:
    """Regressions fail the check; improvements beyond the tolerance suggest a baseline update."""

    regressions: tuple[str, ...]
    improvements: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.regressions


def compare_to_baseline(
    report: EvalReport,
    baseline: Mapping[str, Any],
    tolerance: float = DEFAULT_RATE_TOLERANCE,
) -> BaselineComparison:
    """Compare a run with a baseline document.

    Rules: the dataset sha256, provider and model must be the baseline's; a higher-is-better rate
    may not drop by more than ``tolerance`` and a lower-is-better rate may not rise by more; calls
    and tokens per case must be exactly equal (at :data:`DIGITS` digits); a rate that had a value
    may not become undefined.
    """
    regressions: list[str] = []
    improvements: list[str] = []
    run = report.run
    for key, current in (
        ("dataset_sha256", run.dataset_sha256),
        ("provider", run.provider),
        ("model", run.model),
    ):
        if baseline.get(key) != current:
            regressions.append(
                f"{key} is {current!r}, the baseline's is {baseline.get(key)!r}: regenerate the "
                "baseline and have the change reviewed"
            )
    if regressions:
        return BaselineComparison(tuple(regressions), ())
    now = report.rates()
    base: Mapping[str, Any] = baseline["rates"]
    for name in (*HIGHER_IS_BETTER, *LOWER_IS_BETTER, *COST_FIGURES):
        old, new = base.get(name), now.get(name)
        if old is None:
            continue
        if new is None:
            regressions.append(f"{name}: was {old}, now undefined")
            continue
        if name in COST_FIGURES:
            if round(new - old, DIGITS) != 0:
                regressions.append(f"{name}: {new} != baseline {old} (must be equal)")
            continue
        change = new - old if name in HIGHER_IS_BETTER else old - new
        if change < -tolerance - 1e-9:
            regressions.append(f"{name}: {new} vs baseline {old} (tolerance {tolerance})")
        elif change > tolerance + 1e-9:
            improvements.append(f"{name}: {new} vs baseline {old}")
    return BaselineComparison(tuple(regressions), tuple(improvements))


# --- comparing two runs ------------------------------------------------------------------------


@dataclass(frozen=True)
class OutcomeChange:
    """A gold mention whose outcome differs between two runs."""

    case_id: str
    surface: str
    gold_entry: int | None
    before: str
    after: str
    reason_before: str | None
    reason_after: str | None


def _mentions_of(doc: Mapping[str, Any]) -> dict[tuple[str, str, int], Mapping[str, Any]]:
    found: dict[tuple[str, str, int], Mapping[str, Any]] = {}
    for case in doc.get("cases", []):
        seen: dict[str, int] = {}
        for mention in case.get("mentions", []):
            surface = str(mention.get("surface"))
            number = seen[surface] = seen.get(surface, -1) + 1
            found[(str(case.get("case_id")), surface, number)] = mention
    return found


def compare_results(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[list[OutcomeChange], dict[str, tuple[float | None, float | None]]]:
    """The mentions whose outcome (or predicted role) changed from ``before`` to ``after`` (two
    ``results.json`` documents), and every aggregate rate as ``(before, after)``."""
    old, new = _mentions_of(before), _mentions_of(after)
    changes = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key, {}), new.get(key, {})
        left = f"{a.get('outcome', 'absent')}/{a.get('predicted_role') or '-'}"
        right = f"{b.get('outcome', 'absent')}/{b.get('predicted_role') or '-'}"
        if left != right:
            gold = b.get("gold_entry", a.get("gold_entry"))
            changes.append(
                OutcomeChange(key[0], key[1], gold, left, right, a.get("reason"), b.get("reason"))
            )
    rates_a = before.get("aggregate", {}).get("rates", {})
    rates_b = after.get("aggregate", {}).get("rates", {})
    rates = {name: (rates_a.get(name), rates_b.get(name)) for name in {**rates_a, **rates_b}}
    return changes, dict(sorted(rates.items()))


def load_results(path: Path | str) -> dict[str, Any]:
    """A ``results.json`` (``EVAL_DATASET_INVALID`` when it cannot be read as one)."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            ErrorCode.EVAL_DATASET_INVALID,
            f"{path.name}: not a readable results.json ({exc})",
            source=path.name,
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        raise InputError(
            ErrorCode.EVAL_DATASET_INVALID,
            f"{path.name}: not a results.json (no 'cases' list)",
            source=path.name,
        )
    return doc


def compare_markdown(
    changes: Sequence[OutcomeChange], rates: Mapping[str, tuple[float | None, float | None]]
) -> str:
    """``vba eval --compare``'s output: the changed mentions, then the rates that moved."""
    lines = [
        f"## Mentions whose outcome changed ({len(changes)})",
        "",
        "| case | mention | gold | before (outcome/role) | after (outcome/role) | reason after |",
        "|---|---|---:|---|---|---|",
    ]
    lines += [
        f"| {c.case_id} | {_cell(c.surface)} | {c.gold_entry} | {c.before} | {c.after} "
        f"| {c.reason_after or ''} |"
        for c in changes
    ]
    if not changes:
        lines.append("| none | | | | | |")
    lines += ["", "## Rates", "", "| metric | before | after |", "|---|---:|---:|"]
    for name, (a, b) in rates.items():
        if a != b:
            lines.append(f"| {name} | {_fmt(a)} | {_fmt(b)} |")
    return "\n".join(lines) + "\n"
