"""Shared helpers of the Dagster tests: the graph with its checks, resources, registration."""

import json
import re
import shutil
from pathlib import Path

import dagster as dg

from vba_assets.defs.assets import ASSETS
from vba_assets.defs.checks import CHECKS
from vba_assets.defs.partitions import register as register_pairs
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.samples import sample_report_paths

#: The six assets and their check definitions: what a run of `interpret_cases` executes.
GRAPH: list[dg.AssetsDefinition] = [*ASSETS, *CHECKS]


def stage_graph(*names: str) -> list[dg.AssetsDefinition]:
    """The named assets and the checks that target them."""
    assets = [a for a in ASSETS if a.key.to_user_string() in names]
    checks = [
        c for c in CHECKS if {k.asset_key.to_user_string() for k in c.check_keys} <= set(names)
    ]
    return [*assets, *checks]


REPO = Path(__file__).resolve().parents[2]


def embedded_project_file(folder: Path) -> Path:
    """A project config of the CI catalogs on the embedded demo world DB, workspace ``ws``."""
    text = (REPO / "config" / "project.mariadb-ci.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^url = .*$", 'url = "embedded:demo"', text)
    text = re.sub(r"(?m)^password_env = .*$", "", text)
    text = re.sub(r"(?m)^workspace = .*$", f'workspace = "{folder / "ws"}"', text)
    path = folder / "project.toml"
    path.write_text(text, encoding="utf-8")
    return path


def resources(project_file: Path, llm: LlmResource | None = None) -> dict[str, object]:
    return {
        "project": ProjectResource(project_config=str(project_file)),
        "world_db": WorldDatabaseResource(project_config=str(project_file)),
        "llm": llm or LlmResource(),
    }


def register(instance: dg.DagsterInstance, *case_ids: str, revision: str = "0001") -> None:
    """Register ``<case>|<revision>`` for each case (what the inbox sensor does)."""
    register_pairs(instance, [(case_id, revision) for case_id in case_ids])


def materialized(result: dg.ExecuteInProcessResult) -> set[str]:
    return {
        e.event_specific_data.materialization.asset_key.to_user_string()  # type: ignore[union-attr]
        for e in result.get_asset_materialization_events()
    }


def data_versions(result: dg.ExecuteInProcessResult) -> dict[str, str]:
    versions = {}
    for event in result.get_asset_materialization_events():
        materialization = event.event_specific_data.materialization  # type: ignore[union-attr]
        versions[materialization.asset_key.to_user_string()] = materialization.tags[
            "dagster/data_version"
        ]
    return versions


def generate_reports(out: Path, count: int) -> list[Path]:
    """``count`` report folders: the samples, then copies with a new case id and one sentence."""
    samples = sample_report_paths()
    paths = []
    for number in range(count):
        sample = samples[number % len(samples)]
        if number < len(samples):
            paths.append(sample)
            continue
        target = out / f"{sample.name}-P{number:02d}"
        shutil.copytree(sample, target)
        report = json.loads((sample / "report.json").read_text(encoding="utf-8"))
        report["case_id"] = target.name
        report["body"] = f"{report.get('body') or ''}\n\nStill happening (report {number})."
        (target / "report.json").write_text(json.dumps(report, ensure_ascii=False), "utf-8")
        paths.append(target)
    return paths
