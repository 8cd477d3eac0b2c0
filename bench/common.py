"""Shared helpers of the pipeline benchmarks (``controller``, ``dagster_overhead``, ``batch``).

No Dagster import here: the controller benchmark measures the pipeline without Dagster.

How a benchmark gets "no model work" (ARCHITECTURE 8, the ``replay`` provider):

1. **Record** (setup, never timed): import each report into a recording workspace and run revision
   ``0001`` with the deterministic ``heuristic`` provider (:func:`record_reports`). That writes real
   dispatch records, exactly like a live model would.
2. **Seed** a fresh, never-run revision of the same case in another workspace (:func:`seed_revision`):
   copy the recorded frozen ``input.json`` (provider, model and parameters of the recording; its
   ``revision`` field rewritten) and, in ``reuse`` mode, the recorded dispatch records. Nothing else:
   no plan, no capture, no candidate index, no assessment, no interpretation.
3. **Replay**: run the revision with a ``replay`` LLM config, so every model call is answered from the
   recorded replies and every other step (case build, validation, captures on the real SQLite demo
   DB, candidate index, context, checks, store writes) really runs.

No shim: since protocol v3 a capture holds no query time (it is in the ``captured`` event), so a
fresh capture hashes exactly like the recorded one and the recorded replies are found by their keys.
Stages and checks are timed by wrapping the functions the stage registry
(``vba_assets/pipeline/registry.py``) holds, so a benchmark always times every stage and check there
is, and reports any it could not wrap (``unpatched``).
"""

import dataclasses
import json
import multiprocessing
import os
import platform
import resource
import sqlite3
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import wraps
from importlib import metadata
from pathlib import Path
from typing import Any

from resources.world_db import WorldDatabase
from vba_assets.config import DEMO_ALLOWLIST, DEMO_CATALOGS, ProjectConfig, load_project_config
from vba_assets.domain.stages import MODEL_STAGES, Stage
from vba_assets.intake import import_report
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.registry import STAGE_SPECS, check_specs
from vba_assets.pipeline.trial import run_trial
from vba_assets.samples import sample_report_paths
from vba_assets.store import CasePackage, RevisionLayout, Workspace

RECORDED_REVISION = "0001"
HEURISTIC = LlmConfig(provider="heuristic")
REPLAY = LlmConfig(provider="replay")
MAX_DISPATCHES = 12
#: What :class:`CallTimer` wraps: ``(module, class or registry entry, attribute name, label)``.
Target = tuple[object, str, str]


# --- numbers and the machine ------------------------------------------------------------------


def percentiles(samples: Sequence[float]) -> dict[str, float | int]:
    """n, p50, p95 (nearest rank), max and mean of ``samples`` in milliseconds."""
    if not samples:
        return {"n": 0}
    ordered = sorted(samples)
    rank95 = max(0, min(len(ordered) - 1, round(0.95 * len(ordered) + 0.5) - 1))
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[rank95], 3),
        "max_ms": round(ordered[-1], 3),
        "mean_ms": round(statistics.fmean(ordered), 3),
    }


def median(samples: Sequence[float]) -> float:
    return round(statistics.median(samples), 3) if samples else 0.0


def machine_info() -> dict[str, Any]:
    """CPU count, Python, SQLite and Dagster versions (Dagster is read from its metadata)."""
    try:
        dagster_version: str | None = metadata.version("dagster")
    except metadata.PackageNotFoundError:
        dagster_version = None
    return {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "sqlite_version": sqlite3.sqlite_version,
        "dagster_version": dagster_version,
        "load_average_1_5_15m": [round(x, 2) for x in os.getloadavg()],
    }


def peak_rss_mb() -> dict[str, float]:
    """Peak resident set size (``getrusage`` max RSS) of this process and of its waited children."""
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / scale / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / scale / 1024
    return {"self_mb": round(own, 1), "children_mb": round(children, 1)}


def current_rss_mb() -> float | None:
    """The current resident set size of this process (Linux ``/proc``), or None elsewhere."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024), 1)


def emit(output: dict[str, Any]) -> None:
    json.dump(output, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


# --- configuration files -------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    """A TOML literal for a string, number or list of them (JSON escapes are valid TOML escapes)."""
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)


def write_project_toml(path: Path, workspace: Path) -> ProjectConfig:
    """A project config file: the embedded demo DB and catalogs, with ``workspace`` as root."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        f"workspace = {_toml_value(str(workspace))}",
        "",
        "[database]",
        'url = "embedded:demo"',
        f"allowlist = {_toml_value(DEMO_ALLOWLIST)}",
        'snapshot_label = "demo-wotlk-3.3.5"',
        "",
        "[entity_resolution]",
    ]
    for catalog in DEMO_CATALOGS:
        lines += ["", "[[entity_resolution.catalogs]]"]
        lines += [f"{key} = {_toml_value(value)}" for key, value in catalog.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_project_config(path)


def write_replay_llm_toml(path: Path) -> Path:
    path.write_text('provider = "replay"\n', encoding="utf-8")
    return path


# --- recording (setup, never timed) ----------------------------------------------------------------


@dataclass
class Recording:
    """Cases run once with the heuristic provider: the source of replayed replies and timings."""

    workspace: Workspace
    case_ids: list[str]
    seconds: float
    report_paths: dict[str, Path] = field(default_factory=dict)

    def package(self, case_id: str) -> CasePackage:
        return self.workspace.case(case_id)


def _record_one(job: tuple[str, str]) -> str:
    project_toml, report = job
    project = load_project_config(Path(project_toml))
    workspace = Workspace(project.workspace)
    case_id = import_report(workspace, Path(report)).case_id
    run_trial(
        workspace,
        case_id,
        RECORDED_REVISION,
        project,
        HEURISTIC,
        stop_after="interpretation",
        max_dispatches=MAX_DISPATCHES,
    )
    return case_id


def record_reports(root: Path, report_paths: Sequence[Path], jobs: int = 1) -> Recording:
    """Import ``report_paths`` under ``root`` and run revision 0001 of each with the heuristic."""
    root.mkdir(parents=True, exist_ok=True)
    project = write_project_toml(root / "project.toml", root / "workspace")
    work = [(str(root / "project.toml"), str(path)) for path in report_paths]
    started = time.perf_counter()
    if jobs > 1 and len(work) > 1:
        WorldDatabase.from_config(project).close()  # build the demo DB once, before forking
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            case_ids = pool.map(_record_one, work, chunksize=max(1, len(work) // (jobs * 4)))
    else:
        case_ids = [_record_one(job) for job in work]
    seconds = time.perf_counter() - started
    return Recording(
        Workspace(project.workspace),
        case_ids,
        seconds,
        dict(zip(case_ids, report_paths, strict=True)),
    )


def record_samples(root: Path, case_ids: Sequence[str] | None = None, jobs: int = 1) -> Recording:
    """:func:`record_reports` over the packaged samples (all, or those named)."""
    paths = [p for p in sample_report_paths() if not case_ids or p.name in case_ids]
    missing = set(case_ids or ()) - {p.name for p in paths}
    if missing:
        raise SystemExit(f"no sample report {sorted(missing)}; see vba_assets/samples")
    return record_reports(root, paths, jobs)


# --- seeding a fresh revision from the recording ------------------------------------------------------


def seed_revision(
    source: CasePackage, target: CasePackage, revision: str, *, dispatches: bool
) -> int:
    """Prepare ``revision`` of ``target`` (imported, never run) to replay ``source``'s recording.

    Copies the recorded frozen inputs (``input.json`` with its ``revision`` rewritten, and the
    entity-resolution input) and, if ``dispatches``, every file of the recorded ``dispatches/``
    folders (records and context manifests). Writes go through the store (atomic, append-only). Returns the files written.
    """
    src, dst = RevisionLayout(RECORDED_REVISION), RevisionLayout(revision)
    frozen = source.read_json(src.input)
    target.write_json(dst.input, {**frozen, "revision": revision})
    target.write_bytes(dst.er_input, source.read_bytes(src.er_input))
    written = 2
    if dispatches:
        for stage in MODEL_STAGES:
            for relpath in source.list_dir(src.dispatches_dir(stage)):
                name = relpath.removeprefix(src.dispatches_dir(stage))
                target.write_bytes(f"{dst.dispatches_dir(stage)}{name}", source.read_bytes(relpath))
                written += 1
    return written


def accepted_artifacts(package: CasePackage, revision: str) -> dict[str, bytes]:
    """The accepted stage artifacts of a revision (what a replay must reproduce byte for byte)."""
    layout = RevisionLayout(revision)
    names = [
        layout.er_input,
        layout.plan,
        layout.candidates,
        layout.assessment,
        layout.context,
        layout.interpretation,
    ]
    found = {layout.relative(name): package.read_bytes(name) for name in names}
    for relpath in package.list_dir(layout.captures_dir):
        found[layout.relative(relpath)] = package.read_bytes(relpath)
    return found


def same_artifacts(
    recorded: CasePackage, replayed: CasePackage, revision: str
) -> tuple[bool, list[str]]:
    """Whether the replayed revision's accepted artifacts equal the recording's, and which differ."""
    expected = accepted_artifacts(recorded, RECORDED_REVISION)
    actual = accepted_artifacts(replayed, revision)
    differ = sorted(n for n in expected.keys() | actual.keys() if expected.get(n) != actual.get(n))
    return not differ, differ


# --- timing named functions ----------------------------------------------------------------------------


class CallTimer:
    """Wraps attributes so each call adds its wall time (ms) to a per-label total.

    A target is a module, a class or a frozen registry entry (a ``StageSpec``'s ``run``, a
    ``CheckSpec``'s ``evaluate``): code that looks the attribute up at call time gets the timed
    function; nothing in the product is edited, and everything is restored afterwards.
    :meth:`take` returns the totals since the previous call and resets them.
    """

    def __init__(self) -> None:
        self._totals: dict[str, float] = defaultdict(float)
        self.missing: list[str] = []

    def _wrap(self, function: Callable[..., Any], label: str) -> Callable[..., Any]:
        @wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self._totals[label] += (time.perf_counter() - started) * 1000

        return timed

    @contextmanager
    def patched(self, targets: Sequence[Target]) -> Iterator["CallTimer"]:
        """Patch ``(module or class, attribute, label)`` targets; a missing one is listed."""
        originals: list[tuple[object, str, Any]] = []
        for module, attribute, label in targets:
            if not hasattr(module, attribute):
                self.missing.append(f"{getattr(module, '__name__', module)}.{attribute}")
                continue
            original = getattr(module, attribute)
            originals.append((module, attribute, original))
            _set(module, attribute, self._wrap(original, label))
        try:
            yield self
        finally:
            for module, attribute, original in reversed(originals):
                _set(module, attribute, original)

    def take(self) -> dict[str, float]:
        totals = dict(self._totals)
        self._totals.clear()
        return totals


def _set(target: object, attribute: str, value: Any) -> None:
    if dataclasses.is_dataclass(target) and not isinstance(target, type):
        object.__setattr__(target, attribute, value)  # a frozen registry entry
    else:
        setattr(target, attribute, value)


def stage_targets() -> list[Target]:
    """Every stage after the case, as the registry runs it (``stage.<name>``)."""
    return [
        (spec, "run", f"stage.{spec.name}") for spec in STAGE_SPECS if spec.stage is not Stage.CASE
    ]


def check_targets() -> list[Target]:
    """Every asset check of the registry (``check.<name>``)."""
    return [(check, "evaluate", f"check.{check.name}") for _, check in check_specs()]


#: How many stages and checks the registry holds (what a run must have timed).
STAGES_TIMED = len(stage_targets())
CHECKS_TIMED = len(check_specs())


def summarize_breakdown(samples: Sequence[dict[str, float]]) -> dict[str, float]:
    """Median per label over ``samples`` (a label missing from a sample counts as 0 ms)."""
    labels = sorted({label for sample in samples for label in sample})
    return {label: median([sample.get(label, 0.0) for sample in samples]) for label in labels}
