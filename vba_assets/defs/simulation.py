"""Runs with a simulated model: recorded replies answered after a fixed latency, every call logged.

What a backfill costs with a live model is mostly waiting for it. To measure that (``bench/
throughput.py``) and to prove the pool limit holds across processes (``tests/dagster/
test_postgres_backfill.py``) without any API key, :class:`SimulatedModelLlm` answers each model
call of a partition from the **recording** of the same case (another workspace where the revision
was run once, e.g. with the ``heuristic`` provider), after sleeping ``latency_s``, and appends one
line per call (pid, stage, case, start, end) to ``call_log``. The run is the real one: the same
assets, checks, captures on the world DB, store writes and dispatch records (which name the
``replay`` provider, as they should).

A partition to be answered that way is **seeded** first (:func:`seed_from_recording`): it gets the
recording's frozen inputs, so its requests are byte-identical to the recorded ones, and nothing
else (no plan, capture, assessment or interpretation).

:func:`simulated_definitions` are the project's definitions with that resource, configured by the
environment (``VBA_SIM_RECORDINGS``, ``VBA_SIM_LATENCY_S``, ``VBA_SIM_CALL_LOG`` and the usual
``VBA_PROJECT_CONFIG``), for a code server started as
``dagster api grpc -m vba_assets.defs.simulation -a defs``.
"""

import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import dagster as dg

from resources.llm.replay import ReplayProvider
from vba_assets.config import load_project_config
from vba_assets.defs.job import build_definitions
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.domain.llm.contract import ChatMessage, ModelRequest, Provider, ProviderReply
from vba_assets.domain.stages import MODEL_STAGES
from vba_assets.intake import import_report
from vba_assets.llm_config import load_llm_config
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stage_runs import WorldAccess
from vba_assets.pipeline.trial import run_trial
from vba_assets.store import CasePackage, RevisionLayout, Workspace

REPLAY_CONFIG = Path(__file__).resolve().parents[2] / "config" / "llm.replay.toml"
#: The recorded revision every simulated partition is answered from.
RECORDED_REVISION = "0001"


class LatencyProvider:
    """Wraps a provider: every ``send`` sleeps ``latency_s`` first and is logged with its times."""

    def __init__(self, inner: Provider, latency_s: float, call_log: Path | None, label: str):
        self.inner = inner
        self.name = inner.name
        self.latency_s = latency_s
        self.call_log = call_log
        self.label = label

    def wire_request(
        self, request: ModelRequest, messages: Sequence[ChatMessage]
    ) -> dict[str, Any]:
        return self.inner.wire_request(request, messages)

    def send(self, request: ModelRequest, messages: Sequence[ChatMessage]) -> ProviderReply:
        start = time.time()
        time.sleep(self.latency_s)
        try:
            return self.inner.send(request, messages)
        finally:
            if self.call_log is not None:
                line = {
                    "pid": os.getpid(),
                    "partition": self.label,
                    "stage": request.stage,
                    "start": start,
                    "end": time.time(),
                }
                # one short line per O_APPEND write: lines of concurrent processes never interleave
                with open(self.call_log, "a", encoding="utf-8") as log:
                    log.write(json.dumps(line) + "\n")


def recorded_dispatch_dirs(recorded: CasePackage, revision: str = RECORDED_REVISION) -> list[Path]:
    layout = RevisionLayout(revision)
    return [recorded.path(layout.dispatches_dir(stage)) for stage in MODEL_STAGES]


class SimulatedModelLlm(LlmResource):
    """Model calls answered from ``recordings`` (a workspace) after ``latency_s``, logged."""

    recordings: str
    latency_s: float = 1.0
    call_log: str = ""

    def provider_factory(self, env: RevisionEnv, world: WorldAccess) -> Callable[[], Provider]:
        case_id = env.package.case_id
        label = f"{case_id}|{env.revision}"
        recorded = Workspace(self.recordings).case(case_id)

        def factory() -> Provider:
            inner = ReplayProvider.from_directories(*recorded_dispatch_dirs(recorded))
            log = Path(self.call_log) if self.call_log else None
            return LatencyProvider(inner, self.latency_s, log, label)

        return factory


def seed_from_recording(recorded: CasePackage, target: CasePackage, revision: str) -> None:
    """Give ``revision`` of ``target`` (imported, never run) the recording's frozen inputs."""
    source, layout = RevisionLayout(RECORDED_REVISION), RevisionLayout(revision)
    frozen = recorded.read_json(source.input)
    target.write_json(layout.input, {**frozen, "revision": revision})
    target.write_bytes(layout.er_input, recorded.read_bytes(source.er_input))


def record_reports(recordings: Workspace, report_paths: Iterable[Path]) -> list[str]:
    """Import each report into ``recordings`` and run its revision ``0001`` once with the
    ``heuristic`` provider (the embedded world DB, no key): real dispatch records to replay."""
    project, llm = load_project_config(None), load_llm_config(None)
    case_ids = []
    for path in report_paths:
        case_id = import_report(recordings, path).case_id
        run_trial(
            recordings,
            case_id,
            RECORDED_REVISION,
            project,
            llm,
            stop_after="interpretation",
            max_dispatches=llm.max_dispatches,
        )
        case_ids.append(case_id)
    return case_ids


def prepare_replayed_cases(
    recordings: Workspace, target: Workspace, report_paths: Iterable[Path], revision: str
) -> list[str]:
    """Import each report into ``target`` and seed ``revision`` from its recording."""
    case_ids = []
    for path in report_paths:
        case_id = import_report(target, path).case_id
        seed_from_recording(recordings.case(case_id), target.case(case_id), revision)
        case_ids.append(case_id)
    return case_ids


def read_call_log(path: Path) -> list[dict[str, Any]]:
    """Every logged call (a torn last line, if any, is ignored)."""
    calls = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                calls.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return calls


def max_in_flight(calls: Iterable[dict[str, Any]]) -> int:
    """The most calls that were ever in flight at once (an end before a start at the same time)."""
    events = sorted(
        [(call["start"], 1) for call in calls] + [(call["end"], -1) for call in calls],
        key=lambda event: (event[0], event[1]),
    )
    running = peak = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    return peak


@dg.definitions
def defs() -> dg.Definitions:
    """The project's definitions answered by :class:`SimulatedModelLlm` (see the module doc)."""
    project_config = os.environ.get("VBA_PROJECT_CONFIG", "")
    return build_definitions(
        project=ProjectResource(project_config=project_config),
        world_db=WorldDatabaseResource(project_config=project_config),
        llm=SimulatedModelLlm(
            llm_config=str(REPLAY_CONFIG),
            recordings=os.environ["VBA_SIM_RECORDINGS"],
            latency_s=float(os.environ.get("VBA_SIM_LATENCY_S", "1.0")),
            call_log=os.environ.get("VBA_SIM_CALL_LOG", ""),
        ),
    )
