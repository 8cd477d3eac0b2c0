"""Faults inside Dagster: a run killed mid-step, and an API key that must stay out of the instance.

* A run of one partition in a real instance (``DAGSTER_HOME`` with SQLite storage, the in-process
  executor) is SIGKILLed inside the assessment step: while its model request is in flight, or
  right after its accepted dispatch record was published. Dagster never learns (the run stays
  STARTED); the revision lock dies with the process. Materializing the partition again completes
  it: every asset gets the data version a clean run in another instance gets, the plan is not
  asked again, the records are complete and ``vba verify`` finds nothing.
* A partition materialized with the OpenAI-compatible provider against a server that echoes the
  API key in every reply (headers, ids, a stop reason, the output, free text), with the HTTP
  clients' DEBUG logs captured into the event log: the key occurs nowhere in the instance's
  storage (run and event-log databases, compute logs) or the workspace.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.support import GRAPH, data_versions, register, resources
from tests.fakes.http_server import ScriptedHTTPServer
from tests.integration.llm.test_llm_canaries import decoded
from tests.integration.llm.test_llm_canary_pipeline import (
    accepted_outputs,
    leaky_server,
    llm_file,
    project_file,
)
from tests.layout import REV1
from vba_assets.defs.resources import LlmResource
from vba_assets.domain.stages import Stage
from vba_assets.intake import import_report
from vba_assets.pipeline.verification import verify_case
from vba_assets.samples import sample_report_path
from vba_assets.store import Workspace

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("fault_child.py")
CASE, PARTITION = "BUG-000020", "BUG-000020|0001"
CANARY = "sk-proj-CANARY-dagster-5e1f77c0-never-store-me"
#: The HTTP clients' loggers, captured into the event log at DEBUG: the strictest setting.
MANAGED_LOGGERS = [
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "openai._base_client",
    "vba_assets",
    "resources",
]


def dagster_home(path: Path, *, debug_logs: bool = False) -> Path:
    path.mkdir(parents=True)
    lines = ["telemetry:", "  enabled: false"]
    if debug_logs:
        lines += ["python_logs:", "  python_log_level: DEBUG", "  managed_python_loggers:"]
        lines += [f"    - {name}" for name in MANAGED_LOGGERS]
    (path / "dagster.yaml").write_text("\n".join(lines) + "\n")
    return path


def prepared(root: Path) -> tuple[Path, Path]:
    """A workspace with the sample imported and its project config; a fresh DAGSTER_HOME."""
    import_report(Workspace(root / "ws"), sample_report_path(CASE))
    home = dagster_home(root / "home")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        register(instance, CASE)
    return project_file(root), home


def materialize(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with dg.DagsterInstance.get() as instance:
        result = dg.materialize(
            GRAPH, partition_key=PARTITION, resources=resources(project), instance=instance
        )
    assert result.success
    return data_versions(result)


def kill_mid_step(home: Path, project: Path, point: str, marker: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, str(CHILD), str(home), str(project), PARTITION, point, str(marker)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 180
        while not marker.exists():
            if child.poll() is not None:
                out, err = child.communicate()
                raise AssertionError(f"the run ended before {point}: {out!r} {err[-2000:]!r}")
            assert time.monotonic() < deadline, f"the run never reached {point}"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture(scope="module")
def clean_versions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every asset's data version after a clean run in another instance and workspace."""
    root = tmp_path_factory.mktemp("clean")
    project, home = prepared(root)
    with pytest.MonkeyPatch.context() as patch:
        return materialize(home, project, patch)


@pytest.mark.parametrize("point", ["model_call", "after_record"])
def test_a_run_killed_mid_step_converges_when_the_partition_is_materialized_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_versions: dict[str, str], point: str
) -> None:
    project, home = prepared(tmp_path)
    kill_mid_step(home, project, point, tmp_path / "marker")

    with dg.DagsterInstance.from_config(str(home)) as instance:
        [killed] = instance.get_run_records()
        assert killed.dagster_run.status == dg.DagsterRunStatus.STARTED  # Dagster never learned
    package = Workspace(tmp_path / "ws").case(CASE)
    assert package.exists(REV1.candidates) and not package.exists(REV1.assessment)

    assert materialize(home, project, monkeypatch) == clean_versions
    assert [
        r.rsplit("/", 1)[-1] for r in package.list_dir(REV1.dispatches_dir(Stage.RESOLUTION_PLAN))
    ] == [
        "resolution_assessment-1.json",
        "resolution_assessment-1.manifest.json",
        "resolution_plan-1.json",
        "resolution_plan-1.manifest.json",
    ]  # the plan was not asked again, the assessment once
    assert [f.line() for f in verify_case(package).all_findings() if f.is_error] == []
    temps = [p for p in package.root.rglob(".*tmp-*")]
    assert temps == []


def test_no_api_key_reaches_the_dagster_instance_or_its_event_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    outputs = accepted_outputs(tmp_path / "fixture")
    root = tmp_path / "real"
    import_report(Workspace(root / "ws"), sample_report_path(CASE))
    project = project_file(root)
    home = dagster_home(root / "home", debug_logs=True)
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with ScriptedHTTPServer(check=leaky_server("openai_compatible", CANARY, outputs)) as server:
        llm = LlmResource(llm_config=str(llm_file(root, "openai_compatible", server.url)))
        with dg.DagsterInstance.get() as instance:
            register(instance, CASE)
            result = dg.materialize(
                GRAPH, partition_key=PARTITION, resources=resources(project, llm), instance=instance
            )
            assert result.success
            events = [dg.serialize_value(record) for record in instance.all_logs(result.run_id)]
        assert len(server.requests) >= 5  # both rejections were corrected: the paths ran
    debug_lines = [e for e in events if "httpcore" in e or "httpx" in e]
    assert debug_lines, "the clients' DEBUG logs were not captured: the test would prove nothing"
    texts = [("event log", "\n".join(events))]
    texts += [
        (str(path), path.read_bytes().decode("utf-8", "replace"))
        for folder in (home, root / "ws")
        for path in folder.rglob("*")
        if path.is_file()
    ]
    assert len(texts) > 10
    leaks = [where for where, text in texts if CANARY in decoded(text)]
    assert leaks == []
