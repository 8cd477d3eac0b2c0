"""``vba eval``: run every dataset report through the pipeline and score it (the IO part).

Each line becomes a case (case id = the line's ``id``) in a scratch workspace: a temporary folder,
or ``<out>/workspace`` with ``--out``. The case is imported like any report
(:func:`~vba_assets.intake.import_report`) and run up to ``interpretation`` in revision ``0001``
against the project's world DB (the embedded demo DB by default), by the chosen
:class:`~vba_assets.evaluation.via.EvalPath`: :func:`~vba_assets.pipeline.trial.run_trial` (``--via
cli``, the default) or the ``interpret_cases`` Dagster job in process (``--via dagster``).
The accepted artifacts (plan, candidate index, assessment, dispatch records) are then read back and
scored (:mod:`vba_assets.evaluation.metrics`). A case whose import or pipeline raises is scored
with whatever it accepted before, and listed with its error code; it is never dropped.

Re-running with the same ``--out`` reuses every accepted artifact (no model call, no query); an
``--out`` made with another dataset, provider, model or policy is refused
(``EVAL_OUTPUT_CONFLICT``) rather than mixed.
"""

import argparse
import dataclasses
import json
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vba_assets.config import (
    EntityResolutionConfig,
    ProjectConfig,
    embedded_project_config,
    load_project_config,
    read_toml,
)
from vba_assets.errors import (
    ConfigError,
    ErrorCode,
    InputError,
    VbaError,
    exit_code,
)
from vba_assets.evaluation.code_version import eval_code_version
from vba_assets.evaluation.comparison import (
    compare_markdown,
    compare_results,
    compare_to_baseline,
    load_baseline,
    load_results,
    write_baseline,
)
from vba_assets.evaluation.dataset import Dataset, EvalCase, load_dataset
from vba_assets.evaluation.metrics import CaseResult, score_case
from vba_assets.evaluation.observations import (
    CaseObservation,
    Price,
)
from vba_assets.evaluation.observing import observe_case
from vba_assets.evaluation.report import DEFAULT_RATE_TOLERANCE, EvalReport, RunInfo, write_results
from vba_assets.evaluation.via import (
    CLI_PATHS,
    DEFAULT_VIA,
    CaseRunner,
    EvalPath,
    EvalPaths,
    TrialPath,
)
from vba_assets.intake import import_report
from vba_assets.llm_config import LlmConfig, load_llm_config, model_name
from vba_assets.store import Workspace

#: Every evaluated case runs in this revision of its scratch package.
EVAL_REVISION = "0001"
#: Written into ``<out>/``: what the workspace there was made with.
RUN_MARKER = "eval-run.json"
#: Exit code of :func:`main` when a run falls below its baseline.
EXIT_REGRESSION = 7

Progress = Callable[[str], None]


def run_eval(
    dataset_path: Path | str,
    llm_config: LlmConfig | Path | str | None = None,
    project_config: ProjectConfig | Path | str | None = None,
    out_dir: Path | str | None = None,
    *,
    progress: Progress | None = None,
    jobs: int = 1,
    prices: Mapping[str, Price] | Path | str | None = None,
    via: EvalPath | None = None,
    max_searches: int | None = None,
) -> EvalReport:
    """Evaluate a dataset; with ``out_dir``, also write ``results.json`` and ``results.md`` there.

    Args:
        dataset_path: the JSONL dataset (``eval/devset.jsonl``).
        llm_config: a config, a TOML path, or None for the heuristic baseline.
        project_config: a config, a TOML path, or None for the embedded demo (its workspace setting
            is not used: cases always go to the scratch workspace).
        out_dir: keeps the scratch workspace (``<out>/workspace``) and the results; None runs in a
            temporary folder that is removed afterwards.
        progress: called with one line per finished case.
        jobs: cases run concurrently in this many threads (each case has its own package and
            lock; results keep the dataset order). With a network provider, mind its rate limits.
        prices: a price table (model name -> :class:`Price`) or a TOML file of one
            (:func:`load_prices`) for the cost per case; it overrides genai-prices' list
            prices (:mod:`vba_assets.evaluation.pricing`), the only ones used when None.
        via: how each case is run (:mod:`vba_assets.evaluation.via`); None is
            :class:`~vba_assets.evaluation.via.TrialPath`, what ``vba trial run`` runs.
        max_searches: overrides the project config's ``[entity_resolution] max_searches`` (the
            budget the figures are measured at, recorded in ``results.json``'s run block).

    Raises:
        InputError: a bad dataset (``EVAL_DATASET_INVALID``) or an ``out_dir`` made by another
            run (``EVAL_OUTPUT_CONFLICT``).
        ConfigError: a bad LLM or project config.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    dataset = load_dataset(dataset_path)
    llm = llm_config if isinstance(llm_config, LlmConfig) else load_llm_config(llm_config)
    project = (
        project_config
        if isinstance(project_config, ProjectConfig)
        else load_project_config(project_config)
        if project_config is not None
        else embedded_project_config()
    )
    if max_searches is not None:
        project = with_max_searches(project, max_searches)
    info = run_info(dataset, llm, project)
    label = Path(prices).name if isinstance(prices, Path | str) else None
    table = load_prices(prices) if isinstance(prices, Path | str) else prices
    if table is not None and label is None:
        label = "given in code"
    chosen = via if via is not None else TrialPath()
    if out_dir is None:
        with tempfile.TemporaryDirectory(prefix="vba-eval-") as scratch:
            report = _evaluate(
                dataset,
                info,
                llm,
                project,
                Path(scratch) / "workspace",
                progress,
                jobs,
                table,
                chosen,
            )
            return dataclasses.replace(report, prices=label, code_version=eval_code_version())
    out = Path(out_dir)
    _claim_out_dir(out, info)
    report = _evaluate(
        dataset, info, llm, project, out / "workspace", progress, jobs, table, chosen
    )
    report = dataclasses.replace(report, prices=label, code_version=eval_code_version())
    write_results(report, out)
    return report


def with_max_searches(project: ProjectConfig, max_searches: int) -> ProjectConfig:
    """``project`` with another search budget, validated as the TOML key is.

    Raises:
        ConfigError: the project has no ``[entity_resolution]`` block, or the value is out of
            range (``CONFIG_INVALID``, key ``entity_resolution.max_searches``).
    """
    key = "entity_resolution.max_searches"
    resolution = project.entity_resolution
    if resolution is None:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{key} cannot be set: the project config has no [entity_resolution] block",
            key=key,
        )
    try:
        changed = EntityResolutionConfig.model_validate(
            {**resolution.model_dump(), "max_searches": max_searches}
        )
    except ValueError as exc:
        raise ConfigError(ErrorCode.CONFIG_INVALID, f"{key}: {exc}", key=key) from exc
    return project.model_copy(update={"entity_resolution": changed})


def load_prices(path: Path | str) -> dict[str, Price]:
    """A price table: ``[models."<model>"]`` with ``input``, ``output`` and optional
    ``cache_write``, ``cache_read`` in USD per million tokens (``config/prices.example.toml``).

    Raises:
        ConfigError: a missing file, bad TOML, or a row without numeric ``input``/``output``.
    """
    path = Path(path)
    document = read_toml(path, what="price table")
    models = document.get("models")
    if not isinstance(models, dict) or set(document) - {"models"}:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID, f"{path}: a price table has one [models] table", key="models"
        )
    table: dict[str, Price] = {}
    for name, row in models.items():
        key = f"models.{name}"
        known = {"input", "output", "cache_write", "cache_read"}
        if not isinstance(row, dict) or set(row) - known or not {"input", "output"} <= set(row):
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                f"{path}: {key}: needs input and output (and optional cache_write, cache_read)",
                key=key,
            )
        if not all(
            isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in row.values()
        ):
            raise ConfigError(
                ErrorCode.CONFIG_INVALID, f"{path}: {key}: prices are numbers >= 0", key=key
            )
        table[str(name)] = Price(**{k: float(v) for k, v in row.items()})
    return table


def run_info(dataset: Dataset, llm: LlmConfig, project: ProjectConfig) -> RunInfo:
    """The labels of a run (names and versions; the DB URL only as its kind)."""
    resolution = project.entity_resolution
    database = project.database
    return RunInfo(
        dataset=Path(dataset.source).name,
        dataset_sha256=dataset.sha256,
        provider=llm.provider,
        model=model_name(llm),
        entity_resolution=resolution is not None,
        max_searches=resolution.max_searches if resolution else None,
        max_candidates=resolution.max_candidates if resolution else None,
        catalogs=tuple(catalog.name for catalog in project.catalogs),
        snapshot_label=database.snapshot_label,
        database=database.url if database.is_embedded else database.url.split("://", 1)[0],
    )


def _claim_out_dir(out: Path, info: RunInfo) -> None:
    marker = out / RUN_MARKER
    expected = json.loads(json.dumps(dataclasses.asdict(info)))
    if marker.exists():
        recorded = json.loads(marker.read_text(encoding="utf-8"))
        if recorded != expected:
            changed = sorted(k for k in expected if recorded.get(k) != expected[k])
            raise InputError(
                ErrorCode.EVAL_OUTPUT_CONFLICT,
                f"{out} holds an evaluation made with another {', '.join(changed)}; its cases "
                "are frozen to that run. Use a new --out folder",
                changed=changed,
            )
        return
    if (out / "workspace").exists():
        raise InputError(
            ErrorCode.EVAL_OUTPUT_CONFLICT,
            f"{out}/workspace exists but was not made by vba eval; use a new --out folder",
        )
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _evaluate(
    dataset: Dataset,
    info: RunInfo,
    llm: LlmConfig,
    project: ProjectConfig,
    workspace_root: Path,
    progress: Progress | None,
    jobs: int,
    prices: Mapping[str, Price] | None,
    via: EvalPath,
) -> EvalReport:
    workspace = Workspace(workspace_root)
    lock = threading.Lock()
    done = [0]

    def run_one(run_case: CaseRunner, case: EvalCase, reports_dir: Path) -> CaseResult:
        observation = evaluate_case(workspace, case, run_case, reports_dir, prices=prices)
        if progress is not None:
            state = f"blocked {observation.error_code}" if observation.error_code else "ok"
            with lock:
                done[0] += 1
                progress(f"[{done[0]}/{len(dataset)}] {case.id}: {state}")
        return score_case(case, observation, info.max_searches)

    with (
        via.open(workspace, project, llm) as run_case,
        tempfile.TemporaryDirectory(prefix="vba-eval-reports-") as scratch,
    ):
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="vba-eval")
        try:
            futures = [
                pool.submit(run_one, run_case, case, Path(scratch)) for case in dataset.cases
            ]
            results = tuple(future.result() for future in futures)  # dataset order
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # a config error stops the rest
    return EvalReport(run=info, cases=results)


def evaluate_case(
    workspace: Workspace,
    case: EvalCase,
    run_case: CaseRunner,
    reports_dir: Path,
    *,
    prices: Mapping[str, Price] | None = None,
) -> CaseObservation:
    """Import and run one case (``run_case``: the chosen path), then read back what it accepted
    (errors are recorded; a :class:`ConfigError` stops the evaluation)."""
    error: VbaError | None = None
    try:
        report_path = reports_dir / f"{case.id}.json"
        report_path.write_text(
            json.dumps(case.report_document(), ensure_ascii=False), encoding="utf-8"
        )
        import_report(workspace, report_path)
        run_case(case.id, EVAL_REVISION)
    except ConfigError:
        raise  # the operator's configuration, not this report: stop the run
    except VbaError as exc:
        error = exc
    observation = observe_case(workspace.case(case.id), EVAL_REVISION, prices)
    if error is None:
        return observation
    return dataclasses.replace(
        observation, error_code=error.code.value, error_message=error.message
    )


# --- command line -------------------------------------------------------------------------------


def build_parser(prog: str = "vba eval", paths: EvalPaths = CLI_PATHS) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Measure entity resolution on a gold dataset (quality and model cost).",
    )
    parser.add_argument("--dataset", help="JSONL dataset, e.g. eval/devset.jsonl")
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A.json", "B.json"),
        help="compare two results.json files (no run): the mentions whose outcome or role "
        "changed from A to B, and the rates that moved",
    )
    parser.add_argument("--llm-config", help="LLM config TOML (default: the heuristic baseline)")
    parser.add_argument("--project-config", help="project config TOML (default: embedded demo)")
    parser.add_argument(
        "--out", help="keep the workspace and write results.json/results.md here (default: temp)"
    )
    parser.add_argument(
        "--baseline", help=f"compare with this baseline; exit {EXIT_REGRESSION} on a regression"
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=DEFAULT_RATE_TOLERANCE,
        help=f"allowed rate drop against --baseline (default {DEFAULT_RATE_TOLERANCE})",
    )
    parser.add_argument(
        "--via",
        choices=sorted(paths),
        default=DEFAULT_VIA,
        help="how each case runs: cli = run_trial, what `vba trial run` runs (default); dagster = "
        "the interpret_cases job in process, one partition per case (the `vba` command only)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="cases run concurrently (default 1; mind rate limits)"
    )
    parser.add_argument(
        "--max-searches",
        type=int,
        help="the plan's search budget for this run, overriding the project config's "
        "[entity_resolution] max_searches (default 4)",
    )
    parser.add_argument("--write-baseline", help="write this run's baseline document here")
    parser.add_argument(
        "--prices",
        help="price table TOML (USD per million tokens per model, config/prices.example.toml) "
        "for the cost per case; it overrides genai-prices' list prices, which price known "
        "Anthropic models without it",
    )
    return parser


def main(argv: Sequence[str] | None = None, paths: EvalPaths = CLI_PATHS) -> int:
    """``vba eval``. Exit codes as ``vba`` (2 input, 3 config, ...) plus 7 below baseline.

    ``paths`` are the ``--via`` choices (:mod:`vba_assets.evaluation.via`); the ``vba`` entry
    point adds ``dagster``.
    """
    parser = build_parser(paths=paths)
    args = parser.parse_args(argv)
    if args.compare is None and args.dataset is None:
        parser.error("one of --dataset or --compare is required")
    try:
        if args.compare is not None:
            before, after = (load_results(path) for path in args.compare)
            print(compare_markdown(*compare_results(before, after)), end="")
            return 0
        report = run_eval(
            args.dataset,
            args.llm_config,
            args.project_config,
            args.out,
            progress=lambda line: print(line, file=sys.stderr),
            jobs=args.jobs,
            prices=args.prices,
            via=paths[args.via](),
            max_searches=args.max_searches,
        )
        print(report.markdown().split("\n## By tag")[0].rstrip())
        if report.blocked:
            print(
                f"\nblocked: {', '.join(f'{c.case_id} ({c.error_code})' for c in report.blocked)}"
            )
        if args.out:
            print(f"\nresults: {Path(args.out) / 'results.json'}, {Path(args.out) / 'results.md'}")
        if args.write_baseline:
            write_baseline(report, Path(args.write_baseline))
            print(f"baseline written: {args.write_baseline} (review the diff before committing)")
        if args.baseline:
            comparison = compare_to_baseline(report, load_baseline(args.baseline), args.tolerance)
            for line in comparison.improvements:
                print(f"improved: {line}")
            for line in comparison.regressions:
                print(f"REGRESSION: {line}")
            print(comparison.summary(args.baseline))
            if not comparison.ok:
                return EXIT_REGRESSION
        return 0
    except VbaError as exc:
        print(f"vba eval: error: {exc}", file=sys.stderr)
        return exit_code(exc)
