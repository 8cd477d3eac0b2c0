"""Comparing evaluation runs: the committed baseline and ``vba eval --compare``.

A baseline (``eval/baseline.heuristic.json``) is :func:`baseline_document` of a reviewed run;
:func:`compare_to_baseline` lists what regressed beyond the tolerance (``vba eval --baseline``, the
CI guard). :func:`compare_results` and :func:`compare_markdown` list the mentions whose outcome or
role changed between two ``results.json`` files, and the rates that moved.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vba_assets.errors import ErrorCode, InputError
from vba_assets.evaluation.counts import COST_FIGURES, HIGHER_IS_BETTER, LOWER_IS_BETTER
from vba_assets.evaluation.report import (
    BASELINE_SCHEMA_VERSION,
    DEFAULT_RATE_TOLERANCE,
    DIGITS,
    EvalReport,
    dumps_json,
    format_rate,
    table_cell,
    write_text,
)


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
    write_text(path, dumps_json(baseline_document(report)))


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
    compared: int = 0  # rates and cost figures compared (0 when the labels already differ)
    tolerance: float = DEFAULT_RATE_TOLERANCE

    @property
    def ok(self) -> bool:
        return not self.regressions

    def summary(self, baseline: str) -> str:
        """One line: passed or failed against ``baseline``, with the counts."""
        verdict = "passed" if self.ok else "FAILED"
        return (
            f"baseline {baseline}: {verdict}: {self.compared} figures compared, "
            f"{len(self.regressions)} regression(s), {len(self.improvements)} improvement(s) "
            f"beyond tolerance {self.tolerance}"
        )


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
        return BaselineComparison(tuple(regressions), (), tolerance=tolerance)
    now = report.rates()
    base: Mapping[str, Any] = baseline["rates"]
    compared = 0
    for name in (*HIGHER_IS_BETTER, *LOWER_IS_BETTER, *COST_FIGURES):
        old, new = base.get(name), now.get(name)
        if old is None:
            continue
        compared += 1
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
    return BaselineComparison(tuple(regressions), tuple(improvements), compared, tolerance)


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
        f"| {c.case_id} | {table_cell(c.surface)} | {c.gold_entry} | {c.before} | {c.after} "
        f"| {c.reason_after or ''} |"
        for c in changes
    ]
    if not changes:
        lines.append("| none | | | | | |")
    lines += ["", "## Rates", "", "| metric | before | after |", "|---|---:|---:|"]
    for name, (a, b) in rates.items():
        if a != b:
            lines.append(f"| {name} | {format_rate(a)} | {format_rate(b)} |")
    return "\n".join(lines) + "\n"
