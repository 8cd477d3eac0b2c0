"""The hostile-report corpus (issue 30, item 6): reports a public tracker gets every day.

Each report is imported, run with the heuristic provider up to the interpretation and verified
(what ``vba verify`` runs); it must complete with an accepted interpretation and verify clean,
or be refused at import with a clear error. The plan stage's CPU time of each is also bounded
(a few seconds, against minutes for the quadratic passes issue 30 found): a hang fails here.

Left out on purpose: more than 32 distinct creature links in one report (the interpretation's
``unknowns`` cap, issue 30 item 4, is another change); the corpus links at most 30 creatures.
"""

import json
import time
from pathlib import Path

import pytest

from tests.pipeline.support import LLM, project_config, write_report
from vba_assets.domain.case.report import MAX_BODY_CHARS
from vba_assets.errors import ErrorCode, InputError
from vba_assets.intake import import_report
from vba_assets.pipeline.trial import run_trial
from vba_assets.pipeline.verification import verify_case
from vba_assets.store import Workspace

#: A generous ceiling for one report's whole run here (2 CPUs shared by many processes).
MAX_RUN_CPU_S = 30.0

_NPC = "https://www.wowhead.com/wotlk/npc={n}"
_LINE = "I can't find Mankrik in the Barrens, he should stand near the camp. "

HOSTILE = {
    "zero_width_and_bidi": (
        "Mank\u200brik is gone. \u202eknirknaM\u202c is not at the camp.\n"
        "The Wild\u2060Wolpertinger\ufeff and Gold\u200dark Snipe\u200chunter are missing.\n"
        "[Mankrik\u200e](https://www.wowhead.com/npc=3432\u200b) "
        "\u2066Hogger\u2069 \u061cdoesn't spawn\u200f in Elwynn Forest.\n"
    )
    * 40,
    "mixed_scripts": (
        "Mankrik (Манкрик, 曼克里克, مانكريك) не появляется. Wilder Wolpertinger fehlt, "
        "Уборочный голем тоже. Hogger ホガー est absent à Elwynn.\n"
    )
    * 60,
    "one_long_line": (_LINE * (MAX_BODY_CHARS // len(_LINE) - 1)).rstrip(),
    "thousands_of_links": " ".join(_NPC.format(n=3001 + i % 30) for i in range(3000)),
    "thousands_of_mentions": " ".join(f"@Mankrik{i} @Hogger" for i in range(2500))
    + "\nMankrik doesn't spawn.",
    "nested_markdown": (
        "> > > - **_[~~Mankrik~~](https://www.wowhead.com/npc=3432)_** doesn't spawn\n"
        "> > >   - `Hogger` <!-- a [comment](x) with **Goldark Snipehunter** --> ![img](y)\n"
        "[//]: # ([NPC] Magistrix Erona)\n"
        "| NPC | where |\n|---|---|\n| **Mankrik** | [the camp](https://x/?npc=3432) |\n"
    )
    * 50
    + "[" * 500
    + "Mankrik"
    + "]" * 500
    + "\n"
    + "*" * 2000
    + "\n",
    "nested_bbcode": (
        "[quote][b][i][url=https://www.wowhead.com/npc=3432]Mankrik[/url][/i][/b] "
        "[url=https://www.wowhead.com/npc=448][url=x]Hogger[/url][/url] doesn't spawn[/quote]\n"
    )
    * 60
    + "[url=" * 3000
    + "\n",
    "html_comment": "Mankrik is missing.\n<!-- "
    + "template text, name the NPC Hogger in Elwynn Forest " * 3000
    + "-->\nthanks",
}


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_a_hostile_report_completes_and_verifies_clean(tmp_path: Path, shape: str) -> None:
    workspace = Workspace(tmp_path / "ws")
    case_id = "BUG-777001"
    import_report(workspace, write_report(tmp_path, case_id, "Mankrik bugged", HOSTILE[shape]))
    started = time.process_time()
    report = run_trial(
        workspace,
        case_id,
        "0001",
        project_config(tmp_path / "ws"),
        LLM,
        stop_after="interpretation",
        max_dispatches=6,
    )
    spent = time.process_time() - started
    assert report.stages[-1].status == "accepted", [s.status for s in report.stages]
    verified = verify_case(workspace.case(case_id))
    assert verified.ok, json.dumps(verified.to_json())[:2000]
    assert spent < MAX_RUN_CPU_S, f"{shape}: {spent:.1f} s CPU"


def test_a_ten_megabyte_line_is_refused_at_import_with_its_size(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    body = ("Mankrik " * (10 * 1024 * 1024 // 8)).rstrip()
    path = write_report(tmp_path, "BUG-777002", "Mankrik bugged", body)
    with pytest.raises(InputError) as refused:
        import_report(workspace, path)
    assert refused.value.code == ErrorCode.REPORT_TOO_LARGE
    assert "10485" in str(refused.value)  # the file's size, in the message
    assert not (workspace.root / "cases" / "BUG-777002").exists()
