"""The seed's defaults and guards, pinned (issue 29, item 7).

* the resolution limits a project config gets when its ``[entity_resolution]`` block omits them;
* every N alias's assessment pointer resolves to its own search's verdict in the accepted
  assessment artifact (a real trial run of sample BUG-000020 with the heuristic provider);
* ``vba trial run --package-id`` refuses another package and writes nothing.

The non-creature catalog path (a catalog of items) is in ``test_non_creature_catalog.py``.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pipeline.support import LLM, REV, imported, project_config
from vba_assets.cli import main as vba
from vba_assets.config import load_project_config
from vba_assets.pipeline.trial import run_trial

ER = f"analysis/interpretations/{REV}/entity-resolution"
EMBEDDED_CONFIG = """\
workspace = "ws"

[database]
url = "embedded:demo"
allowlist = ["creature_template"]
snapshot_label = "demo-wotlk-3.3.5"

[entity_resolution]
[[entity_resolution.catalogs]]
name = "creature_name"
entity_type = "creature"
kind = "name"
table = "creature_template"
identity_column = "entry"
name_column = "name"
data_columns = ["subname"]
"""


def test_omitted_limits_default_to_the_seed_values(tmp_path: Path) -> None:
    path = tmp_path / "project.toml"
    path.write_text(EMBEDDED_CONFIG, encoding="utf-8")
    resolution = load_project_config(path).entity_resolution
    assert resolution is not None
    assert (
        resolution.max_searches,
        resolution.max_candidates,
        resolution.max_invalid_responses,
    ) == (4, 8, 3)


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901: ``/a/0/b`` in ``document`` (``~1`` is ``/``, ``~0`` is ``~``)."""
    for token in pointer.lstrip("/").split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


def test_every_n_alias_points_at_its_searchs_accepted_verdict(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    project = project_config(tmp_path / "ws")
    report = run_trial(
        workspace, package.case_id, REV, project, LLM, stop_after="interpretation", max_dispatches=6
    )
    assert report.stages[-1].status == "accepted", report
    context = package.read_json(f"{ER}/context.json")
    artifact = package.read_json(f"{ER}/assessment.json")
    assert artifact["status"] == "accepted"
    captures = {fact["search_id"]: fact for fact in context["facts"]}
    assert context["selected"], "the heuristic selects the sample's creatures"
    for alias in context["selected"]:
        document, _, fragment = alias["assessment_pointer"].partition("#")
        assert document == "/entity_resolution/assessment"
        verdict = resolve_pointer(artifact["assessment"], fragment)
        assert verdict["search_id"] == alias["search_id"], alias["alias"]
        assert verdict["status"] == "selected"
        assert verdict["capture"] == captures[alias["search_id"]]["alias"]
        assert verdict["capture_row"] == alias["capture_row"]
        candidates = package.read_json(f"{ER}/candidates.json")
        search = next(s for s in candidates["searches"] if s["search_id"] == alias["search_id"])
        chosen = search["candidates"][search["candidate_ids"].index(verdict["candidate_id"])]
        assert (chosen["identity"], chosen["name"]) == (alias["identity"], alias["name"])
        assert chosen["source_index"] == alias["capture_row"]


def case_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_a_wrong_package_id_is_refused_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "project.toml"
    config.write_text(EMBEDDED_CONFIG, encoding="utf-8")
    _, package = imported(tmp_path)
    before = case_files(package.root)
    capsys.readouterr()
    argv = ["trial", "run", "--project-config", str(config), "--case-id", package.case_id]
    code = vba([*argv, "--stop-after", "interpretation", "--package-id", "pkg-BUG-000021"])
    captured = capsys.readouterr()
    assert code == 2  # an InputError
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "vba: error: INVALID_PACKAGE_ID: case BUG-000020 is package 'pkg-BUG-000020', "
        "not 'pkg-BUG-000021'"
    ]
    assert case_files(package.root) == before  # nothing under analysis/, nothing anywhere
    # The right id runs (the guard is not a refusal of every id).
    assert vba([*argv, "--stop-after", "resolution", "--package-id", "pkg-BUG-000020"]) == 0
    assert (package.root / ER / "plan.json").is_file()
    assert json.loads((package.root / "package.json").read_text())["package_id"] == (
        "pkg-BUG-000020"
    )
