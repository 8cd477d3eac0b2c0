"""Odd identity digits never block a case (issue 30): the three spellings of 23487 through
``vba trial run``'s pipeline function with the heuristic provider and the demo world DB.

``npc=000023487`` is entry 23487 (leading zeros normalised) and is selected through its
identity reference; ``npc=２３４８７`` (full-width) and ``npc=٢٣٤٨٧`` (Arabic-Indic) are not
identities: the link is not read, the case completes and the interpretation records the link as
unreadable (a ``Not examined`` unknown). Before the one reading of identity digits
(:mod:`vba_assets.domain.catalog.identity_digits`) each of the three ended at the plan with
``ENTITY_RESOLUTION_INVALID_RESPONSES`` (the plan rule refused the planner's own reading).
"""

from pathlib import Path
from typing import Any

import pytest

from resources.llm.heuristic import HeuristicProvider
from resources.llm.heuristic_index import packaged_name_index
from tests.pipeline.support import ER, REV, project_config, run, write_report
from vba_assets.config import DEMO_CATALOGS
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.intake import import_report
from vba_assets.store import Workspace

CATALOGS = [CatalogConfig.model_validate(c) for c in DEMO_CATALOGS]


def _run(tmp_path: Path, digits: str) -> tuple[dict[str, Any], dict[str, Any]]:
    body = (
        f"[Wild Wolpertinger](https://www.wowhead.com/npc={digits}) can't be caught with the net."
    )
    workspace = Workspace(tmp_path / "ws")
    import_report(workspace, write_report(tmp_path, "ODD-0001", "Brewfest", body))
    provider = HeuristicProvider(CATALOGS, packaged_name_index())
    report = run(workspace, "ODD-0001", project_config(tmp_path / "ws"), provider)  # type: ignore[arg-type]
    assert [s.status for s in report.stages][-1] == "accepted"
    package = workspace.case("ODD-0001")
    plan = package.read_json(f"{ER}/plan.json")["plan"]
    interpretation = package.read_json(f"analysis/interpretations/{REV}/interpretation.json")
    return plan, interpretation["interpretation"]


def test_a_zero_padded_link_selects_its_entry(tmp_path: Path) -> None:
    plan, interpretation = _run(tmp_path, "000023487")
    [search] = plan["searches"]
    assert search["reference"]["identity"] == 23487
    assert search["reference"]["link"]["quote"].endswith("npc=000023487")
    package = Workspace(tmp_path / "ws").case("ODD-0001")
    selected = package.read_json(f"{ER}/context.json")["selected"]
    assert [n["identity"] for n in selected] == [23487]
    assert [e["ref"] for e in interpretation["affected_subjects"]] == ["N1"]


@pytest.mark.parametrize("digits", ["２３４８７", "٢٣٤٨٧"])
def test_a_link_in_other_digits_is_recorded_unreadable_and_the_case_completes(
    tmp_path: Path, digits: str
) -> None:
    plan, interpretation = _run(tmp_path, digits)
    assert all(s.get("reference") is None for s in plan["searches"])
    unreadable = [u for u in interpretation["unknowns"] if "unreadable" in u["description"]]
    assert len(unreadable) == 1 and unreadable[0]["ref"] is None
    assert f"npc={digits}" in unreadable[0]["description"]
