"""The evaluation report: ``results.json`` and ``results.md``.

:class:`EvalReport` holds the run's labels (dataset sha256, provider, model, policy) and the scored
cases; :meth:`EvalReport.to_json` and :meth:`EvalReport.markdown` render it. Baselines and the
comparison of two runs are in :mod:`.comparison`. No secret and no absolute path is ever written:
the run labels hold names and versions only.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vba_assets.domain.protocol import RULES
from vba_assets.evaluation.aggregate import (
    RuleRate,
    by_language,
    by_tag,
    by_tracker,
    correction_rates,
    miss_counts,
    total,
)
from vba_assets.evaluation.counts import Counts
from vba_assets.evaluation.metrics import CaseResult

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
    "candidate_recall_ceiling": "candidate recall ceiling (max_searches entries per case)",
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
    "cost_per_case_usd": "cost per case (USD, price table or genai-prices)",
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
    #: The code that was measured (:func:`~vba_assets.evaluation.code_version.eval_code_version`).
    code_version: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "aggregate", total(self.cases))

    @property
    def price_sources(self) -> list[str]:
        """Every source that priced a call of the run (``config``, ``genai-prices <release>``)."""
        return sorted({source for case in self.cases for source in case.price_sources})

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
            "code_version": self.code_version,
            "run": {**asdict(self.run), "catalogs": list(self.run.catalogs)},
            "aggregate": _summary(self.aggregate),
            "by_tag": {tag: _summary(counts) for tag, counts in by_tag(self.cases).items()},
            "by_language": {k: _summary(c) for k, c in by_language(self.cases).items()},
            "by_tracker": {k: _summary(c) for k, c in by_tracker(self.cases).items()},
            "miss_reasons": miss_counts(self.cases),
            "prices": self.prices,
            "price_sources": self.price_sources,
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
            f"snapshot `{run.snapshot_label}`."
            + (f" Code version `{self.code_version}`." if self.code_version else ""),
            "",
            "| metric | value | fraction |",
            "|---|---:|---:|",
        ]
        for name, (numerator, denominator) in counts.fractions().items():
            value = numerator / denominator if denominator else None
            lines.append(f"| {_LABELS[name]} | {format_rate(value)} | {numerator}/{denominator} |")
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
                f"| {tag} | {group.cases} | {group.mentions} | {format_rate(rates['mention_recall'])} "
                f"| {format_rate(rates['candidate_recall_at_k'])} | {format_rate(rates['mention_accuracy'])} "
                f"| {format_rate(rates['wrong_selection_rate'])} | {format_rate(rates['abstention_rate'])} |"
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
            + (f"`{self.prices}`" if self.prices else "no table (`--prices`)")
            + "; calls priced by "
            + (", ".join(f"`{s}`" for s in self.price_sources) or "none (cost n/a)")
            + ".",
            "",
            "| rule | stage | rejected replies | rate |",
            "|---|---|---:|---:|",
        ]
        rule_rates = self.rule_rates()
        lines += [
            f"| `{r.code}` | {r.stage} | {r.rejected}/{r.replies} | {format_rate(r.rate)} |"
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
            f"| {format_rate(rates['candidate_recall_at_k'])} | {format_rate(rates['selection_precision'])} "
            f"| {format_rate(rates['selection_recall'])} | {format_rate(rates['wrong_selection_rate'])} "
            f"| {format_rate(rates['role_accuracy'])} |"
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
                f"| {case.case_id} | {table_cell(m.surface)} | {m.gold_entry} | {m.reason} "
                f"| {m.selected if m.selected is not None else ''} "
                f"| {m.gold_role} / {m.predicted_role or '-'} |"
            )
    if not found:
        lines.append("| none | | | | | |")
    return lines


def table_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def format_rate(value: float | None) -> str:
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
    write_text(json_path, dumps_json(report.to_json()))
    write_text(md_path, report.markdown())
    return json_path, md_path


def dumps_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def write_text(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    temp.replace(path)
