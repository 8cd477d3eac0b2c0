"""``eval_quality``: the headline figures of ``vba eval`` runs as numbers Dagster plots.

An optional asset, outside ``interpret_cases`` (group ``evaluation``): materializing it reads
the ``results.json`` that ``vba eval --out DIR`` wrote (:mod:`vba_assets.evaluation.report`) for
each split named in its run config, e.g. in the launchpad::

    ops:
      eval_quality:
        config:
          results: {devset: out/devset, dev: out/dev/results.json}

and records every rate of each split's aggregate (``<split>.mention_recall``,
``<split>.selection_precision``, ``<split>.role_accuracy``, ... ``<split>.cost_per_case_usd``;
a rate without a denominator is left out) and its ``cases`` / ``mentions`` as numeric metadata,
the run's provider, model and dataset hash as text, and a table of the headline rates per split.
The asset's Plots tab then shows each figure's history.

Its ``code_version`` is the evaluated code's
(:func:`~vba_assets.evaluation.code_version.eval_code_version`: the stages, the heuristic
baseline, the metrics), so each point of that history is tied to the code that produced it. A
``results.json`` written by other code (or by a release that did not record its code version) is
refused (``EVAL_OUTPUT_CONFLICT``): run ``vba eval`` again with this code. The data version is
the sha256 of the results read.
"""

import hashlib
import re
from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field

from vba_assets.defs.assets import OWNERS
from vba_assets.defs.failures import as_dagster_failure
from vba_assets.errors import ErrorCode, InputError
from vba_assets.evaluation.code_version import eval_code_version
from vba_assets.evaluation.comparison import load_results

EVAL_QUALITY = "eval_quality"
#: The rates shown side by side in the per-split table (every rate is also its own entry).
HEADLINE = (
    "mention_recall",
    "candidate_recall_at_k",
    "selection_precision",
    "selection_recall",
    "mention_accuracy",
    "role_accuracy",
    "blocked_rate",
)
_SPLIT_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


class EvalQualityConfig(dg.Config):
    """Which ``vba eval`` results to record."""

    results: dict[str, str] = Field(
        description="Split name (lower case, e.g. `devset`, `dev`) -> its `results.json` or the "
        "`vba eval --out` folder holding it.",
    )


def results_file(path: str) -> Path:
    """``path`` itself, or ``results.json`` inside it when it is a folder."""
    given = Path(path).expanduser()
    return given / "results.json" if given.is_dir() else given


def split_metadata(split: str, doc: dict[str, Any]) -> dict[str, Any]:
    """The numeric and text entries of one split's results."""
    aggregate = doc.get("aggregate") or {}
    rates = aggregate.get("rates") or {}
    counts = aggregate.get("counts") or {}
    entries: dict[str, Any] = {
        f"{split}.cases": dg.MetadataValue.int(int(counts.get("cases", 0))),
        f"{split}.mentions": dg.MetadataValue.int(int(counts.get("mentions", 0))),
    }
    for name in sorted(rates):
        value = rates[name]
        if isinstance(value, int | float) and not isinstance(value, bool):
            entries[f"{split}.{name}"] = dg.MetadataValue.float(float(value))
    run = doc.get("run") or {}
    entries[f"{split}.run"] = dg.MetadataValue.text(
        f"{run.get('dataset')} (sha256 {str(run.get('dataset_sha256', ''))[:16]}), provider "
        f"{run.get('provider')}, model {run.get('model')}, snapshot {run.get('snapshot_label')}"
    )
    return entries


def headline_table(docs: dict[str, dict[str, Any]]) -> dg.TableMetadataValue:
    """One row per split: its case count and headline rates (empty: undefined)."""
    schema = dg.TableSchema(
        columns=[
            dg.TableColumn("split", "string"),
            dg.TableColumn("cases", "int"),
            *(dg.TableColumn(name, "float") for name in HEADLINE),
        ]
    )
    records = []
    for split, doc in docs.items():
        aggregate = doc.get("aggregate") or {}
        rates = aggregate.get("rates") or {}
        row: dict[str, str | int | float | bool | None] = {
            "split": split,
            "cases": int((aggregate.get("counts") or {}).get("cases", 0)),
        }
        row.update({name: rates.get(name) for name in HEADLINE})
        records.append(dg.TableRecord(row))
    return dg.MetadataValue.table(records, schema)


def read_split(split: str, path: str, code_version: str) -> tuple[dict[str, Any], bytes]:
    """One split's ``results.json`` and its bytes.

    Raises:
        InputError: a bad split name or an unreadable file (``EVAL_DATASET_INVALID``), or
            results of another code version (``EVAL_OUTPUT_CONFLICT``).
    """
    if not _SPLIT_NAME.match(split):
        raise InputError(
            ErrorCode.EVAL_DATASET_INVALID,
            f"split name {split!r}: use lower-case letters, digits, '_' or '-' (at most 40)",
            split=split,
        )
    file = results_file(path)
    doc = load_results(file)
    recorded = doc.get("code_version")
    if recorded != code_version:
        raise InputError(
            ErrorCode.EVAL_OUTPUT_CONFLICT,
            f"{split}: {file} was written by code version {recorded or 'unrecorded'}, this code "
            f"is {code_version}; run `vba eval` again with this code",
            split=split,
            recorded=recorded,
            expected=code_version,
        )
    return doc, file.read_bytes()


@dg.asset(
    name=EVAL_QUALITY,
    group_name="evaluation",
    owners=OWNERS,
    tags={"vba/kind": "evaluation"},
    code_version=eval_code_version(),
    description="The headline figures of `vba eval` runs (recall, precision, role accuracy, "
    "blocked rate, cost, ... per split) as numeric metadata, so the Plots tab shows their "
    "history across code versions. Materialize with run config `results: {<split>: <vba eval "
    "--out folder or results.json>}`; results of other code are refused. Not part of "
    "`interpret_cases`.",
)
def eval_quality(config: EvalQualityConfig) -> dg.MaterializeResult:
    code_version = eval_code_version()
    docs: dict[str, dict[str, Any]] = {}
    digest = hashlib.sha256()
    with as_dagster_failure():
        if not config.results:
            raise InputError(ErrorCode.EVAL_DATASET_INVALID, "no results given (config `results`)")
        for split in sorted(config.results):
            doc, data = read_split(split, config.results[split], code_version)
            docs[split] = doc
            digest.update(split.encode() + b"\0" + data + b"\0")
    metadata: dict[str, Any] = {"splits": dg.MetadataValue.text(", ".join(docs))}
    for split, doc in docs.items():
        metadata.update(split_metadata(split, doc))
    metadata["headline"] = headline_table(docs)
    return dg.MaterializeResult(metadata=metadata, data_version=dg.DataVersion(digest.hexdigest()))
