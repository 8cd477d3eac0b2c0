"""A catalog whose entity_type is not creature runs end to end (issue 29, item 7).

The project's only catalogs are items (``item_template`` and its locales, shipped with the demo
DB). A made-up report about one item runs through ``vba trial run --stop-after interpretation``
and through the six assets on a real Dagster instance, with the heuristic provider; both select
item 32960 ``Elekk Dispersion Ray`` and write the same resolution context, byte for byte.
"""

import json
from pathlib import Path

import dagster as dg
import pytest

from tests.dagster.support import GRAPH, materialized, register, resources
from vba_assets.cli import main as vba
from vba_assets.defs.assets import ASSETS

CASE = "BUG-000902"
REV = "0001"
ER = f"analysis/interpretations/{REV}/entity-resolution"
REPORT = {
    "case_id": CASE,
    "title": "Elekk Dispersion Ray does nothing",
    "body": "I use the Elekk Dispersion Ray on a pink elekk during Brewfest and nothing happens. "
    "The Elekk Dispersion Ray shows no cast bar.",
    "reported_at": "2026-10-01T12:00:00Z",
}
ITEM_CONFIG = """\
workspace = "{workspace}"

[database]
url = "embedded:demo"
allowlist = ["item_template", "item_template_locale"]
snapshot_label = "demo-wotlk-3.3.5-items"

[entity_resolution]
[[entity_resolution.catalogs]]
name = "item_name"
entity_type = "item"
kind = "name"
table = "item_template"
identity_column = "entry"
name_column = "name"
data_columns = []

[[entity_resolution.catalogs]]
name = "item_localized_name"
entity_type = "item"
kind = "localized_name"
table = "item_template_locale"
identity_column = "ID"
name_column = "Name"
data_columns = ["locale"]
"""


def item_project(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.json").write_text(json.dumps(REPORT), encoding="utf-8")
    path = folder / "project.toml"
    path.write_text(ITEM_CONFIG.format(workspace=folder / "ws"), encoding="utf-8")
    assert vba(["import", "--project-config", str(path), str(folder / "report.json")]) == 0
    return path


def selected_items(case_root: Path) -> list[tuple[str, str, int, str]]:
    context = json.loads((case_root / ER / "context.json").read_text(encoding="utf-8"))
    return [(n["alias"], n["entity_type"], n["identity"], n["name"]) for n in context["selected"]]


@pytest.mark.slow
def test_an_item_catalog_runs_through_the_cli_and_the_dagster_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli_config = item_project(tmp_path / "cli")
    argv = ["trial", "run", "--project-config", str(cli_config), "--case-id", CASE]
    assert vba([*argv, "--stop-after", "interpretation"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines.index(f"{CASE} revision {REV} (stop after interpretation)")
    assert [line.split()[:2] for line in lines[header + 1 : header + 6]] == [
        [stage, "accepted"]
        for stage in (
            "resolution_plan",
            "resolution_captures",
            "candidate_index",
            "resolution_assessment",
            "interpretation",
        )
    ]
    cli_case = tmp_path / "cli" / "ws" / "cases" / CASE
    assert selected_items(cli_case) == [("N1", "item", 32960, "Elekk Dispersion Ray")]
    interpretation = json.loads(
        (cli_case / f"analysis/interpretations/{REV}/interpretation.json").read_text()
    )["interpretation"]
    assert [s["ref"] for s in interpretation["affected_subjects"]] == ["N1"]

    dagster_config = item_project(tmp_path / "dagster")
    with dg.instance_for_test() as instance:
        register(instance, CASE)
        result = dg.materialize(
            GRAPH,
            partition_key=f"{CASE}|{REV}",
            resources=resources(dagster_config),
            instance=instance,
        )
    assert result.success
    assert materialized(result) == {a.key.to_user_string() for a in ASSETS}
    evaluations = result.get_asset_check_evaluations()
    assert evaluations and all(e.passed for e in evaluations), [
        (e.check_name, e.metadata) for e in evaluations if not e.passed
    ]
    dagster_case = tmp_path / "dagster" / "ws" / "cases" / CASE
    assert selected_items(dagster_case) == [("N1", "item", 32960, "Elekk Dispersion Ray")]
    for name in ("plan.json", "candidates.json", "assessment.json", "context.json"):
        assert (dagster_case / ER / name).read_bytes() == (cli_case / ER / name).read_bytes(), name
