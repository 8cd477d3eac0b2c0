"""Fixtures for the store tests: a workspace with a stepping clock, and real child processes."""

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.unit.store.processes import Child, run_to_completion
from vba_assets.store import CasePackage, Workspace


class SteppingClock:
    """Returns 2025-03-01T12:00:00Z, then one second and one microsecond later each call."""

    def __init__(self) -> None:
        self.now = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        current = self.now
        self.now += timedelta(seconds=1, microseconds=1)
        return current


@pytest.fixture
def clock() -> SteppingClock:
    return SteppingClock()


@pytest.fixture
def workspace(tmp_path: Path, clock: SteppingClock) -> Workspace:
    return Workspace(tmp_path / "ws", clock=clock)


@pytest.fixture
def package(workspace: Workspace) -> CasePackage:
    return workspace.case("BUG-000020")


@pytest.fixture
def spawn(workspace: Workspace) -> Iterator[Callable[..., Child]]:
    children: list[Child] = []

    def start(command: str, *args: object) -> Child:
        child = Child([command, str(workspace.root), *map(str, args)])
        children.append(child)
        return child

    yield start
    for child in children:
        child.cleanup()


@pytest.fixture
def run_child(workspace: Workspace) -> Callable[..., dict[str, Any]]:
    """Run a child to completion and return its last JSON message."""
    return lambda command, *args: run_to_completion(workspace.root, command, *args)
