"""Limits that cannot contradict each other (issue 30): reports at each limit and past it
complete with an interpretation (``vba trial run``'s pipeline function, the heuristic provider,
the demo world DB, protocol v5).

Before protocol v5 a report with 32 or more distinct creature links failed at the interpretation
with ``INTERPRETATION_INVALID_RESPONSES``: every D alias had to be an unknown while ``unknowns``
held 32, and the clarification had to name every unresolved affected subject in 500 characters.
"""

from pathlib import Path

import pytest

from resources.llm.heuristic import HeuristicProvider
from resources.llm.heuristic_index import packaged_name_index
from tests.pipeline.support import ER, REV, project_config, run, write_report
from vba_assets.config import DEMO_CATALOGS
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.interpretation.models import InterpretationOutputV5
from vba_assets.domain.limits import (
    MAX_SEARCHES,
    MAX_UNRESOLVED,
    not_examined_reason,
)
from vba_assets.intake import import_report
from vba_assets.store import Workspace

CATALOGS = [CatalogConfig.model_validate(c) for c in DEMO_CATALOGS]


def _links(count: int, named: bool) -> tuple[str, int]:
    """A body of ``count`` distinct creature links, named by their catalog names (each agrees
    with its link, so searches select), or by a bare label ``n<i>`` (none agrees); and the
    number of distinct names (two entries may share one: the plan names it once)."""
    index = packaged_name_index()
    ids = [i for i in range(3001, 9000) if index.names_of(i)][:count] if named else []
    texts = [index.names_of(i)[0].name for i in ids] or [f"n{i}" for i in range(1, count + 1)]
    numbers = ids or [3000 + i for i in range(1, count + 1)]
    links = " ".join(
        f"[{text}](https://www.wowhead.com/wotlk/npc={i})"
        for text, i in zip(texts, numbers, strict=True)
    )
    return f"these NPCs are bugged: {links}", len(set(texts))


_SLOW = pytest.mark.slow  # 500 named links: the plan stage's scanning (issue 30 item 1) dominates
CASES = [
    pytest.param(count, named, id=f"{count}-links-{'names' if named else 'labels'}", marks=marks)
    for count in (MAX_UNRESOLVED, MAX_UNRESOLVED + 1, 100, 500)
    for named in (False, True)
    for marks in [[_SLOW] if named and count == 500 else []]
]


@pytest.mark.parametrize(("count", "named"), CASES)
def test_a_report_with_many_links_completes_with_an_interpretation(
    tmp_path: Path, count: int, named: bool
) -> None:
    workspace = Workspace(tmp_path / "ws")
    body, distinct = _links(count, named)
    import_report(workspace, write_report(tmp_path, "MANY-0001", "Bugged NPCs", body))
    provider = HeuristicProvider(CATALOGS, packaged_name_index())
    config = project_config(tmp_path / "ws", max_searches=MAX_SEARCHES)
    report = run(workspace, "MANY-0001", config, provider)  # type: ignore[arg-type]
    assert [s.status for s in report.stages][-1] == "accepted"
    assert report.dispatches_this_run == 3  # no rejected reply: the first one met every rule
    package = workspace.case("MANY-0001")
    context = package.read_json(f"{ER}/context.json")
    aliases = len(context["selected"]) + len(context["unresolved"])
    over = context.get("not_examined", [])
    plan = package.read_json(f"{ER}/plan.json")["plan"]
    planned = len(plan["searches"]) + len(plan.get("unsearched", []))
    assert 0 < planned <= distinct  # the planner may leave a name out; the limit does not
    assert aliases + len(over) == planned  # every planned name is an alias or not examined
    assert len(context["unresolved"]) <= MAX_UNRESOLVED
    assert len(over) == max(0, planned - MAX_UNRESOLVED - len(context["selected"]))
    assert all(n["reason"] == not_examined_reason(MAX_UNRESOLVED) for n in over)
    doc = package.read_json(f"analysis/interpretations/{REV}/interpretation.json")
    output = InterpretationOutputV5.model_validate(doc["interpretation"])
    refs = {u.ref for u in output.unknowns}
    assert {d["alias"] for d in context["unresolved"]} <= refs
    if over:
        assert any(u.ref is None and "over the limit" in u.description for u in output.unknowns)
