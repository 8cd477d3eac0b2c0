"""Workspace layout, case ids, revisions and listings."""

import pytest

from vba_assets.errors import ErrorCode, InputError, StoreError
from vba_assets.store import CasePackage, Workspace


def test_layout(workspace: Workspace) -> None:
    assert workspace.cases_dir == workspace.root / "cases"
    assert workspace.inbox_dir == workspace.root / "inbox"
    package = workspace.case("BUG-000020")
    assert package.case_id == "BUG-000020"
    assert package.root == workspace.cases_dir / "BUG-000020"
    assert not package.root.exists()  # nothing is created until something is written


@pytest.mark.parametrize("bad", ["", "..", "a|b", "a,b", "-lead", "x" * 65, "a/b"])
def test_invalid_case_ids_are_refused(workspace: Workspace, bad: str) -> None:
    with pytest.raises(InputError) as caught:
        workspace.case(bad)
    assert caught.value.code is ErrorCode.INVALID_CASE_ID


def test_case_ids_lists_only_valid_case_folders_sorted(workspace: Workspace) -> None:
    for case_id in ("BUG-2", "BUG-10", "A.1"):
        workspace.case(case_id).write_json("case.json", {"id": case_id})
    (workspace.cases_dir / "not|valid").mkdir()
    (workspace.cases_dir / "stray-file").write_bytes(b"")
    assert workspace.case_ids() == ["A.1", "BUG-10", "BUG-2"]


def test_case_ids_of_an_empty_workspace(workspace: Workspace) -> None:
    assert workspace.case_ids() == []


def test_revisions_and_revision_dir(package: CasePackage) -> None:
    assert package.revisions() == []
    assert package.revision_dir("0002") == "analysis/interpretations/0002"
    package.write_json("analysis/interpretations/0002/input.json", {})  # no lifecycle log yet
    package.append_event("0001", "started")
    package.append_event("0003", "created")
    package.path("analysis/interpretations/draft").mkdir()
    package.path("analysis/interpretations/0000").mkdir()
    with package.lock("0004"):  # a lock alone (a refused run) does not make a revision
        pass
    assert package.revisions() == ["0001", "0003"]
    for bad in ("1", "0000", "00001", "../0001"):
        with pytest.raises(InputError) as caught:
            package.revision_dir(bad)
        assert caught.value.code is ErrorCode.INVALID_REVISION


def test_list_dir_lists_files_sorted_without_hidden_or_folders(package: CasePackage) -> None:
    for name in ("b.json", "a.json", "c.txt"):
        package.write_json(f"analysis/interpretations/0001/dispatches/{name}", {"n": name})
    package.write_json("analysis/interpretations/0001/dispatches/sub/inner.json", {})
    folder = package.path("analysis/interpretations/0001/dispatches")
    (folder / ".a.json.tmp-1-0123456789abcdef").write_bytes(b"partial")
    assert package.list_dir("analysis/interpretations/0001/dispatches") == [
        "analysis/interpretations/0001/dispatches/a.json",
        "analysis/interpretations/0001/dispatches/b.json",
        "analysis/interpretations/0001/dispatches/c.txt",
    ]
    assert package.list_dir("analysis/interpretations/0001/rejected") == []
    assert package.list_dir("") == []
    package.write_json("case.json", {})
    assert package.list_dir("") == ["case.json"]
    assert package.list_dir("analysis/interpretations/0001", recursive=True) == [
        "analysis/interpretations/0001/dispatches/a.json",
        "analysis/interpretations/0001/dispatches/b.json",
        "analysis/interpretations/0001/dispatches/c.txt",
        "analysis/interpretations/0001/dispatches/sub/inner.json",
    ]


def test_new_revision_numbers_under_a_case_lock(package: CasePackage) -> None:
    assert package.new_revision("first") == "0001"
    assert package.new_revision("second") == "0002"
    assert [e["event"] for e in package.read_events("0002")] == ["created"]
    assert [f for f in package.verify() if f.is_error] == []
    lock_path = package.root / "analysis/interpretations/.lock"
    from vba_assets.store.lock import acquire_revision_lock

    held = acquire_revision_lock(lock_path, package.case_id, "<numbering>", package.clock)
    try:
        with pytest.raises(StoreError) as excinfo:
            package.new_revision("concurrent")
        assert excinfo.value.code is ErrorCode.REVISION_LOCKED
    finally:
        held.release()
    assert package.new_revision("third") == "0003"
