"""A package remembers the relpaths it resolved; answers stay those of the full resolution.

Every scenario runs on a package and on :class:`tests.reference.store.PlainCasePackage` (which
resolves every path in full), and must give the same answers and errors, also after a remembered
file was replaced by a symlink, a folder or removed.
"""

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.reference.store import PlainCasePackage
from vba_assets.errors import StoreError
from vba_assets.store import CasePackage, Workspace

FILE = "report/body.txt"


def _outcome(action: Callable[[], object]) -> object:
    try:
        return action()
    except StoreError as exc:
        return (exc.code, exc.message)


def _probe(package: CasePackage, relpath: str) -> tuple[object, ...]:
    return (
        _outcome(lambda: package.exists(relpath)),
        _outcome(lambda: package.read_bytes(relpath)),
        _outcome(lambda: package.artifact_ref(relpath)),
        _outcome(lambda: package.path(relpath).relative_to(package.root).as_posix()),
    )


def _to_symlink_inside(root: Path) -> None:
    (root / FILE).unlink()
    os.symlink(root / "case.json", root / FILE)


def _to_symlink_outside(root: Path) -> None:
    (root / FILE).unlink()
    outside = root.parent.parent / "outside.txt"
    outside.write_bytes(b"secret")
    os.symlink(outside, root / FILE)


def _to_folder(root: Path) -> None:
    (root / FILE).unlink()
    (root / FILE).mkdir()


def _removed(root: Path) -> None:
    (root / FILE).unlink()


def _folder_removed(root: Path) -> None:
    shutil.rmtree(root / "report")


def _unchanged(root: Path) -> None:
    pass


@pytest.mark.parametrize(
    "change",
    [_unchanged, _to_symlink_inside, _to_symlink_outside, _to_folder, _removed, _folder_removed],
)
def test_remembered_paths_answer_as_the_full_resolution(
    tmp_path: Path, change: Callable[[Path], None]
) -> None:
    answers = []
    for kind in (CasePackage, PlainCasePackage):
        root = Workspace(tmp_path / kind.__name__ / "ws").case("BUG-000020").root
        package = kind(root, "BUG-000020")
        package.write_bytes("case.json", b"{}")
        package.write_bytes(FILE, b"hello")
        first = [_probe(package, relpath) for relpath in (FILE, "report/missing.txt")]
        assert (FILE in package._paths) is (kind is CasePackage)
        change(package.root)
        answers.append(
            (first, [_probe(package, relpath) for relpath in (FILE, "report/missing.txt")])
        )
    assert answers[0] == answers[1]


def test_queued_files_exist_before_they_are_linked(package: CasePackage) -> None:
    with package.lock("0001"):
        package.write_bytes(FILE, b"hello")
        package.read_bytes(FILE)  # remembered while still queued
        assert package.exists(FILE)
        assert package.read_bytes(FILE) == b"hello"
    assert package.exists(FILE) and (package.root / FILE).is_file()


@pytest.mark.parametrize("bad", ["", "/abs", "a/../b", ".hidden"])
def test_invalid_relpaths_are_refused_after_valid_ones_were_remembered(
    package: CasePackage, bad: str
) -> None:
    package.write_bytes(FILE, b"hello")
    assert package.exists(FILE)
    with pytest.raises(StoreError):
        package.exists(bad)
