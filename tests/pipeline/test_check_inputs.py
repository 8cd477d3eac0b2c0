"""A check that cannot read an input fails with a finding; it never raises (``evaluate_safely``).

For every registered check, the files it reads on an honest revision are recorded, and each is made
unreadable in turn: deleted, garbage bytes, a directory in its place, permission denied (simulated
for root, who may read anything, and real for everyone else). Dagster's asset checks and ``vba
verify`` both evaluate checks through :func:`~vba_assets.pipeline.checks.evaluate_safely`, so a raise
here would be a crashed check step instead of a failed check.

One outcome is not a failure: a model stage's artifact or the candidate index that is *absent*
(deleted, or a directory in its place) means the stage accepted nothing, so the checks of that
stage do not apply (``skipped``); that the revision's events say otherwise is ``vba verify``'s
accounting (tests/pipeline/test_tamper_matrix.py).
"""

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from tests.layout import REV1
from tests.pipeline.support import completed_revision, copied
from vba_assets.errors import ErrorCode, StoreError
from vba_assets.pipeline import stage_requests
from vba_assets.pipeline.checks import CheckOutcome, evaluate_safely
from vba_assets.pipeline.frozen_revision import FrozenRevision, load_frozen
from vba_assets.pipeline.registry import CheckSpec, check_specs
from vba_assets.store import CasePackage

REGISTERED: dict[str, CheckSpec] = {check.name: check for _, check in check_specs()}
#: Files whose absence means "the stage accepted nothing": their checks may skip instead of fail.
ABSENT_MEANS_NOT_ACCEPTED = frozenset(
    {REV1.plan, REV1.candidates, REV1.assessment, REV1.interpretation}
)


def _delete(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path.unlink()


def _garbage(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path.write_bytes(b"\xff\xfe\x00 not JSON {")


def _directory(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path.unlink()
    path.mkdir()
    (path / "inside.json").write_bytes(b"{}")


def _permission_denied(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``open`` refuses the file, as it does for anyone but root after ``chmod 000`` (the store
    opens files with ``os.open``: :mod:`vba_assets.store.reading`)."""
    real = os.open

    def refusing(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.path.abspath(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)


def _chmod_000(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads a file whatever its mode (the simulated mode covers it)")
    path.chmod(0)


MODES: dict[str, Callable[[Path, pytest.MonkeyPatch], None]] = {
    "deleted": _delete,
    "garbage": _garbage,
    "directory": _directory,
    "permission_denied": _permission_denied,
    "chmod_000": _chmod_000,
}
ABSENT_MODES = frozenset({"deleted", "directory"})


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> CasePackage:
    return completed_revision(tmp_path_factory.mktemp("honest"))


def _hashed_for_the_request_cache() -> bool:
    """Whether the store read in progress only hashes a file for ``rebuild_request``'s cache key
    (every file a request may be built from, whether or not this stage's request uses it)."""
    frame = sys._getframe(2)  # the caller of CasePackage.read_bytes
    if frame.f_code.co_name != "artifact_ref" or frame.f_back is None:
        return False
    return frame.f_back.f_code.co_filename == stage_requests.__file__


def files_read(check: CheckSpec, package: CasePackage) -> list[str]:
    """The package files ``check`` reads on ``package`` (recorded through the store)."""
    read: list[str] = []
    real = CasePackage.read_bytes

    def recording(self: CasePackage, relpath: str) -> bytes:
        if not _hashed_for_the_request_cache():
            read.append(relpath)
        return real(self, relpath)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CasePackage, "read_bytes", recording)
        outcome = evaluate_safely(check.evaluate, load_frozen(package, REV1.revision))
    assert outcome.passed and outcome.skipped is None, (check.name, outcome)
    return sorted(set(read))


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    for path in tmp_path.rglob("*"):  # let pytest clean up whatever a mode left behind
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_an_unreadable_input_fails_the_check_with_a_finding(
    name: str, mode: str, honest: CasePackage, scratch: Path
) -> None:
    check = REGISTERED[name]
    inputs = files_read(check, honest)
    assert inputs, f"{name} reads no file"
    wrong: list[str] = []
    for number, relpath in enumerate(inputs):
        package = copied(honest, scratch / str(number))
        target = package.path(relpath)
        target.chmod(0o644)
        with pytest.MonkeyPatch.context() as patch:
            MODES[mode](target, patch)
            rev = load_frozen(package, REV1.revision)
            try:
                outcome = evaluate_safely(check.evaluate, rev)
            except Exception as exc:  # the point of the test: it never raises
                wrong.append(f"{relpath}: raised {type(exc).__name__}: {exc}")
                continue
        shutil.rmtree(scratch / str(number), ignore_errors=True)
        absent = mode in ABSENT_MODES and relpath in ABSENT_MEANS_NOT_ACCEPTED
        if absent and outcome.skipped is not None and outcome.findings == []:
            continue  # the stage accepted nothing: its checks do not apply
        if outcome.passed or not [f for f in outcome.findings if f.is_error]:
            wrong.append(f"{relpath}: {outcome}")
    assert wrong == [], f"{name} with an input {mode}"


# --- evaluate_safely itself -----------------------------------------------------------------------


class _Model(BaseModel):
    value: int


def _validation_error() -> ValidationError:
    try:
        _Model.model_validate({"value": "not a number"})
    except ValidationError as exc:
        return exc
    raise AssertionError("unreachable")


RAISED: dict[str, BaseException] = {
    "store error": StoreError(ErrorCode.ARTIFACT_MISSING, "no artifact plan.json"),
    "validation error": _validation_error(),
    "value error": ValueError("Expecting value: line 1 column 1"),
    "key error": KeyError("plan"),
    "permission denied": PermissionError(13, "Permission denied", "plan.json"),
    "is a directory": IsADirectoryError(21, "Is a directory", "plan.json"),
    "i/o error": OSError(5, "Input/output error", "plan.json"),
}


@pytest.mark.parametrize("what", sorted(RAISED))
def test_a_check_that_raises_on_its_input_is_a_failed_check(what: str, honest: CasePackage) -> None:
    error = RAISED[what]

    def check(rev: FrozenRevision) -> CheckOutcome:
        raise error

    outcome = evaluate_safely(check, load_frozen(honest, REV1.revision))
    assert not outcome.passed and outcome.skipped is None
    assert [f.code for f in outcome.findings] == [ErrorCode.CHECK_INPUT_UNREADABLE]
    assert type(error).__name__ in outcome.findings[0].message


def test_a_check_that_evaluates_is_returned_as_it_is(honest: CasePackage) -> None:
    given = CheckOutcome.not_applicable("nothing to check")
    assert evaluate_safely(lambda rev: given, load_frozen(honest, REV1.revision)) is given
