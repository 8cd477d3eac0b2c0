"""A kill at every store write point of a run, then one resume: the records are complete.

A forked child runs a whole revision (a rejected plan reply, its correction, two captures, the
assessment, the interpretation) and SIGKILLs itself at write point N: a publish is killed after
its temp file is written but before it is linked, or after the link but before the temp file is
removed; an event append is killed with half of its line written (a torn tail), or with the line
written but before the append returns. The parent then resumes once, exactly as a re-run would,
and checks what ARCHITECTURE 4 promises: every dispatch has its manifest and its event, every
accepted stage and every capture its event, no temp file remains, every artifact equals a clean
run's byte for byte, and ``vba verify`` finds nothing.
"""

import json
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.layout import REV1
from tests.pipeline.support import (
    QUEST,
    assess_exact,
    imported,
    interpret,
    plan_reply,
    project_config,
    run,
)
from tests.pipeline.tamper import package_files
from vba_assets.domain.llm.contract import (
    ChatMessage,
    ModelRequest,
    ProviderReply,
    TokenUsage,
)
from vba_assets.domain.stages import MODEL_STAGES
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import CasePackage, Workspace
from vba_assets.store import atomic as atomic_module
from vba_assets.store import events as events_module
from vba_assets.store.atomic import TEMP_NAME_PATTERN

CASE = "BUG-000020"


class Replies:
    """Answers by (stage, attempt), so a resumed run gets exactly the replies a clean run got:
    the first plan reply is broken JSON (rejected), every other reply is valid."""

    name = "scripted"

    def __init__(self, case_doc: dict[str, Any]) -> None:
        self.case_doc = case_doc

    def wire_request(
        self, request: ModelRequest, messages: list[ChatMessage] | Any
    ) -> dict[str, Any]:
        return request.document(messages)

    def send(self, request: ModelRequest, messages: list[ChatMessage] | Any) -> ProviderReply:
        context = {"protocol_version": request.protocol_version, **request.stage_context}
        if request.stage == "resolution_plan":
            text = (
                "{not json" if len(messages) == 1 else json.dumps(plan_reply(self.case_doc, QUEST))
            )
        elif request.stage == "resolution_assessment":
            text = json.dumps(assess_exact(context))
        else:
            text = json.dumps(interpret(context))
        return ProviderReply(
            response_body=text,
            output_text=text,
            stop_reason="end_turn",
            finish="complete",
            usage=TokenUsage(input=100, output=50),
            request_id=f"req-{request.stage}-{len(messages)}",
        )


# --- the write points -----------------------------------------------------------------------------


class WritePoints:
    """Counts the store's write points and kills this process at one of them."""

    def __init__(self, kill_at: int | None) -> None:
        self.kill_at = kill_at
        self.count = 0
        self.names: list[str] = []

    def point(self, name: str) -> None:
        self.count += 1
        self.names.append(name)
        if self.count == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def instrumented(points: WritePoints) -> Iterator[None]:
    """Patch the store's two primitives: ``os.link`` in publish_bytes, ``write_all`` in appends."""
    real_link, real_write_all = atomic_module.os.link, events_module.write_all

    def link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        name = Path(dst).name
        points.point(f"publish {name}: temp written, not linked")
        real_link(src, dst, *args, **kwargs)
        points.point(f"publish {name}: linked, temp not removed")

    def write_all(fd: int, data: bytes) -> None:
        event = json.loads(data)["event"]
        if points.kill_at == points.count + 1:
            os.write(fd, data[: len(data) // 2])  # the torn tail a crash leaves
            os.fsync(fd)
        points.point(f"append {event}: half a line")
        real_write_all(fd, data)
        points.point(f"append {event}: line written, not returned")

    atomic_module.os.link = link  # type: ignore[assignment]
    events_module.write_all = write_all  # type: ignore[assignment]
    try:
        yield
    finally:
        atomic_module.os.link = real_link  # type: ignore[assignment]
        events_module.write_all = real_write_all  # type: ignore[assignment]


def run_revision(root: Path) -> tuple[Workspace, CasePackage]:
    workspace = Workspace(root / "ws")
    package = workspace.case(CASE)
    run(workspace, CASE, project_config(root / "ws"), Replies(package.read_json("case.json")))
    return workspace, package


def killed_at(root: Path, point: int) -> int:
    """Fork a child that runs the revision and dies at write ``point``; its wait status."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            with instrumented(WritePoints(point)):
                run_revision(root)
        finally:
            os._exit(0)  # the point was not reached
    _, status = os.waitpid(pid, 0)
    return status


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A clean run: its case folder and the names of its write points."""
    root = tmp_path_factory.mktemp("clean")
    imported(root)
    points = WritePoints(None)
    with instrumented(points):
        _, package = run_revision(root)
    return package.root, points.names


def _content(root: Path) -> dict[str, bytes]:
    """Every file but the lifecycle log (its timing differs from run to run)."""
    return {
        relpath: (root / relpath).read_bytes()
        for relpath in package_files(root)
        if not relpath.endswith("events.jsonl")
    }


def _identities(package: CasePackage) -> list[tuple[Any, ...]]:
    """What each event is about, without its timing."""
    keys = ("event", "stage", "attempt", "outcome", "record", "artifact", "capture", "sha256")
    return sorted(
        tuple(str(event.get(key)) for key in keys) for event in package.read_events(REV1.revision)
    )


def check_point(clean_root: Path, names: list[str], tmp_path: Path, point: int) -> None:
    root = tmp_path / f"p{point}"
    imported(root)
    status = killed_at(root, point)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, names[point - 1]
    _, package = run_revision(root)  # one resume
    where = f"killed at {point} ({names[point - 1]})"
    temps = [p for p in package.root.rglob("*") if TEMP_NAME_PATTERN.match(p.name)]
    assert temps == [], where
    for stage in MODEL_STAGES:
        for relpath in package.list_dir(REV1.dispatches_dir(stage)):
            if relpath.endswith(".manifest.json") or f"/{stage.value}-" not in relpath:
                continue
            assert package.exists(relpath.removesuffix(".json") + ".manifest.json"), where
    assert _content(package.root) == _content(clean_root), where
    clean_package = Workspace(clean_root.parents[1]).case(CASE)
    assert _identities(package) == _identities(clean_package), where
    report = verify_case(package)
    assert [f.line() for f in report.all_findings() if f.is_error] == [], where


def test_the_clean_run_has_write_points_of_every_kind(clean: tuple[Path, list[str]]) -> None:
    _, names = clean
    assert len(names) >= 50
    for needle in (
        "input.json: temp written",
        "plan.json: linked",
        "manifest.json: temp written",
        "append rejected: half",
        "append captured: line written",
        "append accepted: half",
        "interpretation.json: linked",
    ):
        assert any(needle in name for name in names), needle


#: The points the issue found broken, plus one of each kind (the full sweep is marked slow).
def _quick_points(names: list[str]) -> list[int]:
    wanted = (
        "append started: half a line",
        "resolution_plan-1.json: linked, temp not removed",
        "resolution_plan-2.manifest.json: temp written, not linked",
        "append dispatched: line written, not returned",
        "plan.json: linked, temp not removed",
        "append captured: half a line",
        "append accepted: line written, not returned",
    )
    points = []
    for needle in wanted:
        points.append(next(n for n, name in enumerate(names, start=1) if needle in name))
    points.append(len(names))  # the very last write: the interpretation's 'accepted' event
    return sorted(set(points))


def test_a_kill_at_the_points_the_issue_found_leaves_complete_records_after_one_resume(
    clean: tuple[Path, list[str]], tmp_path: Path
) -> None:
    clean_root, names = clean
    for point in _quick_points(names):
        check_point(clean_root, names, tmp_path, point)


@pytest.mark.slow
def test_a_kill_at_every_store_write_point_leaves_complete_records_after_one_resume(
    clean: tuple[Path, list[str]], tmp_path: Path
) -> None:
    clean_root, names = clean
    for point in range(1, len(names) + 1):
        check_point(clean_root, names, tmp_path, point)
    print(f"crash points: {len(names)} killed and resumed, all complete and equal to a clean run")


def test_verify_reports_the_records_a_crash_left_incomplete_until_the_resume(
    clean: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """Before the resume the package is honest about the crash: a finding, never silence."""
    _, names = clean
    point = next(n for n, name in enumerate(names, start=1) if "plan.json: linked" in name)
    root = tmp_path / "crashed"
    imported(root)
    killed_at(root, point)
    package = Workspace(root / "ws").case(CASE)
    codes = {f.code.value for f in verify_case(package).all_findings() if f.is_error}
    assert "PACKAGE_EVENT_MISSING" in codes  # plan.json has no 'accepted' event yet
    info = {f.code.value for f in verify_case(package).all_findings() if not f.is_error}
    assert "PACKAGE_STALE_TEMP" in info
