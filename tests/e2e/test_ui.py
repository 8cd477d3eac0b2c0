"""End-to-end: `make run`'s promise, checked on a real ``dagster dev`` and in headless Chromium.

One server for the module (see conftest): the samples are imported with ``vba demo``, the inbox
sensor registers them as ``<case>|0001`` partitions of ``interpret_cases`` and runs them; the tests
read the result through the GraphQL API and through the rendered UI pages (screenshots are saved
under the pytest tmp dir; run with ``-s`` to see their paths).
"""

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.chromium import Chromium
from tests.e2e.conftest import DagsterUI
from tests.e2e.graphql import TERMINAL_RUN_STATUSES, RunSummary
from tests.e2e.settle import CASE_ASSET, JOB, SENSOR, Settled, latest_run_by_partition
from tests.e2e.verify import (
    Page,
    asset_partition_page,
    capture,
    catalog_page,
    checks_page,
    pipeline_problems,
    run_failure_report,
    run_page,
    summarize,
)
from vba_assets.defs.inbox import REASON_SUFFIX, REJECTED_DIR
from vba_assets.defs.partitions import case_keys
from vba_assets.defs.sensors import FIRST_REVISION
from vba_assets.errors import ErrorCode
from vba_assets.pipeline.registry import STAGE_SPECS
from vba_assets.samples import sample_report_paths
from vba_assets.store import canonical_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

INBOX_TIMEOUT_S = 120.0
PAGE_TIMEOUT_S = 60.0


def assert_no_problems(ui: DagsterUI, settled: Settled, assets: list[str] | None) -> None:
    problems = pipeline_problems(ui.client, settled, assets)
    assert not problems, (
        summarize(problems, len(settled.partitions)) + "\n" + run_failure_report(ui.client, settled)
    )


def show(ui: DagsterUI, browser: Chromium, page: Page, screenshot_dir: Path) -> str:
    text, shot = capture(browser, ui.base_url, page, screenshot_dir, PAGE_TIMEOUT_S)
    print(f"\nscreenshot of {page.path}: {shot}")
    return text


# --- GraphQL: what the sensor and the runs produced ------------------------------------------


def test_sensor_runs_by_default_and_registered_every_sample_partition(
    dagster_ui: DagsterUI, settled: Settled
) -> None:
    client = dagster_ui.client
    assert client.sensor_status(settled.job, SENSOR) == "RUNNING"
    assert settled.partitions == [f"{c}|{FIRST_REVISION}" for c in dagster_ui.sample_case_ids]
    assert set(settled.partitions) <= set(client.partition_keys(CASE_ASSET))
    # Exactly one run per partition, requested by the sensor with its run key.
    runs = [run for run in client.runs(JOB) if run.partition in settled.partitions]
    assert sorted(str(run.partition) for run in runs) == settled.partitions
    for run in runs:
        assert run.tags.get("dagster/sensor_name") == SENSOR
        assert str(run.partition) in run.tags.get("dagster/run_key", "")  # deduplicated


def test_case_asset_is_materialized_and_checked_for_every_sample_partition(
    dagster_ui: DagsterUI, settled: Settled
) -> None:
    assert dagster_ui.client.job_asset_checks(settled.job)[CASE_ASSET], "case has no check"
    assert_no_problems(dagster_ui, settled, [CASE_ASSET])
    materialized = dagster_ui.client.materialized_partitions(CASE_ASSET, settled.partitions)
    assert materialized == {p: settled.latest_runs[p].run_id for p in settled.partitions}


def test_every_asset_of_the_job_is_materialized_and_checked_for_every_sample_partition(
    dagster_ui: DagsterUI, settled: Settled
) -> None:
    assert CASE_ASSET in dagster_ui.client.job_asset_checks(settled.job)
    assert_no_problems(dagster_ui, settled, None)
    assert {run.status for run in settled.latest_runs.values()} == {"SUCCESS"}


# --- Chromium: what the UI renders -----------------------------------------------------------


def test_asset_partitions_page_shows_the_partitions_and_the_case_metadata(
    dagster_ui: DagsterUI, settled: Settled, browser: Chromium, screenshot_dir: Path
) -> None:
    case_id = dagster_ui.sample_case_ids[0]
    page = asset_partition_page(
        dagster_ui.workspace, dagster_ui.sample_case_ids, case_id, FIRST_REVISION
    )
    text = show(dagster_ui, browser, page, screenshot_dir)
    registered = dagster_ui.client.partition_keys(CASE_ASSET)
    latest = dagster_ui.client.materialized_partitions(CASE_ASSET, registered)
    count = sum(1 for run_id in latest.values() if run_id)
    assert count >= len(settled.partitions)
    assert f"Materialized ({count})" in text  # the status filter's count matches the API


def test_run_page_shows_the_run_of_a_sample_partition(
    dagster_ui: DagsterUI, settled: Settled, browser: Chromium, screenshot_dir: Path
) -> None:
    page = run_page(settled, settled.partitions[0])
    show(dagster_ui, browser, page, screenshot_dir)


def test_checks_tab_shows_the_case_checks_passed(
    dagster_ui: DagsterUI, settled: Settled, browser: Chromium, screenshot_dir: Path
) -> None:
    page = checks_page(dagster_ui.client, settled)
    assert len(page.expected) > 1  # at least one check name
    show(dagster_ui, browser, page, screenshot_dir)


def test_asset_catalog_shows_every_asset_of_the_job_with_its_partitions(
    dagster_ui: DagsterUI, settled: Settled, browser: Chromium, screenshot_dir: Path
) -> None:
    page = catalog_page(dagster_ui.client, settled)
    assert CASE_ASSET in page.expected
    show(dagster_ui, browser, page, screenshot_dir)


# --- Operating it: a per-case backfill from the UI, a failed blocking check ----------------

#: The case that gets a second revision and a per-case backfill; the one whose plan is broken.
BACKFILL_CASE = "BUG-000021"
BROKEN_CASE = "BUG-000020"
RUN_TIMEOUT_S = 240.0


def _wait(what: str, probe: Callable[[], object], ui: DagsterUI, timeout_s: float) -> object:
    deadline = time.monotonic() + timeout_s
    while not (value := probe()):
        assert time.monotonic() < deadline, (
            f"{what} within {timeout_s:.0f} s\n{ui.server.log_tail()}"
        )
        time.sleep(2.0)
    return value


def _finished_runs(ui: DagsterUI, backfill_id: str, count: int) -> list[RunSummary]:
    def probe() -> list[RunSummary] | None:
        runs = ui.client.runs_with_tag("dagster/backfill", backfill_id)
        done = len(runs) >= count and all(r.status in TERMINAL_RUN_STATUSES for r in runs)
        return runs if done else None

    runs = _wait(f"the {count} run(s) of backfill {backfill_id} finished", probe, ui, RUN_TIMEOUT_S)
    assert isinstance(runs, list)
    return runs


def test_a_per_case_backfill_launched_from_the_ui_runs_every_revision_of_that_case_only(
    dagster_ui: DagsterUI, settled: Settled, browser: Chromium, screenshot_dir: Path
) -> None:
    client, workspace = dagster_ui.client, dagster_ui.workspace
    # `vba revision new`: the sensor registers exactly that key and starts its run
    revision = workspace.case(BACKFILL_CASE).new_revision("e2e: a second analysis")
    new_key = f"{BACKFILL_CASE}|{revision}"

    def second_revision_ran() -> bool:
        run = latest_run_by_partition(client.runs(JOB)).get(new_key)
        return run is not None and run.status in TERMINAL_RUN_STATUSES

    _wait(
        f"the sensor registered and ran {new_key}", second_revision_ran, dagster_ui, RUN_TIMEOUT_S
    )
    keys = client.partition_keys(CASE_ASSET)
    wanted = case_keys(keys, BACKFILL_CASE)
    assert wanted == [f"{BACKFILL_CASE}|{FIRST_REVISION}", new_key]
    for other in set(dagster_ui.sample_case_ids) - {BACKFILL_CASE}:
        assert case_keys(keys, other) == [f"{other}|{FIRST_REVISION}"]  # no phantom revision

    # In the UI: the job's "Materialize all", custom selection, the case's revisions, launch.
    before = {backfill["id"] for backfill in client.backfills()}
    browser.open(f"{dagster_ui.base_url}/locations/{settled.job.location}/jobs/{JOB}")
    browser.click("button", "Materialize all", timeout_s=PAGE_TIMEOUT_S)
    # the partition section draws its quick-select buttons above the selector once the
    # partitions load: wait for them so the selector no longer moves
    browser.wait_for_text(
        "Launch runs to materialize 6 assets", "Failed and missing", timeout_s=PAGE_TIMEOUT_S
    )
    browser.click("div", "Select a partition", timeout_s=PAGE_TIMEOUT_S)
    browser.wait_for_focus('input[placeholder="Filter partitions"]', timeout_s=PAGE_TIMEOUT_S)
    browser.type_text(f"{BACKFILL_CASE}|")
    browser.click("label", f"Select all ({len(wanted)})", timeout_s=PAGE_TIMEOUT_S)
    browser.wait_for_text(f"{len(wanted)} partitions", timeout_s=PAGE_TIMEOUT_S)
    shot = browser.screenshot(screenshot_dir / "per-case-backfill-dialog.png")
    print(f"\nscreenshot of the backfill dialog: {shot}")
    browser.click("[role=dialog] button", "Launch backfill", timeout_s=PAGE_TIMEOUT_S)

    new = _wait(
        "the UI launched a backfill",
        lambda: [b for b in client.backfills() if b["id"] not in before],
        dagster_ui,
        PAGE_TIMEOUT_S,
    )
    assert isinstance(new, list)
    [backfill] = new
    assert sorted(backfill["partitionNames"]) == wanted  # that case's revisions, nothing else
    runs = _finished_runs(dagster_ui, backfill["id"], len(wanted))
    assert sorted(str(run.partition) for run in runs) == wanted
    assert {run.status for run in runs} == {"SUCCESS"}, run_failure_report(client, settled)
    show(
        dagster_ui,
        browser,
        Page(
            "per-case-backfill",
            f"/runs/b/{backfill['id']}",
            (backfill["id"], f"{len(wanted)} partitions", "Succeeded", JOB),
        ),
        screenshot_dir,
    )


def test_a_failed_blocking_check_stops_the_downstream_assets_and_shows_on_its_page(
    dagster_ui: DagsterUI, settled: Settled, browser: Chromium, screenshot_dir: Path
) -> None:
    client, package = dagster_ui.client, dagster_ui.workspace.case(BROKEN_CASE)
    key = f"{BROKEN_CASE}|{FIRST_REVISION}"
    # an accepted plan whose first term no longer occurs in its cited span
    plan = f"analysis/interpretations/{FIRST_REVISION}/entity-resolution/plan.json"
    doc = package.read_json(plan)
    doc["plan"]["searches"][0]["term"] = "Wolpertinger King"
    package.path(plan).chmod(0o644)
    package.path(plan).write_bytes(canonical_bytes(doc))

    backfill_id = client.launch_asset_backfill([spec.name for spec in STAGE_SPECS], [key])
    [run] = _finished_runs(dagster_ui, backfill_id, 1)
    assert run.status == "FAILURE"
    failures = "\n".join(client.run_failures(run.run_id))
    assert "resolution_plan_checks" in failures and "plan_grounding" in failures
    execution = client.check_executions("resolution_plan", "plan_grounding")[key]
    assert (execution.run_id, execution.success) == (run.run_id, False)
    # downstream of the failed blocking check nothing ran: its latest materialization is older
    for asset in ("resolution_captures", "candidate_index", "interpretation"):
        latest = client.materialized_partitions(asset, [key])[key]
        assert latest != run.run_id, asset

    show(
        dagster_ui,
        browser,
        Page(
            "failed-check",
            "/assets/resolution_plan?view=checks&checkDetail=plan_grounding",
            ("plan_grounding", "Failed", "blocking", key, "PLAN_TERM_NOT_IN_QUOTE"),
        ),
        screenshot_dir,
    )
    show(
        dagster_ui,
        browser,
        Page(
            "failed-check-run",
            f"/runs/{run.run_id}",
            (
                run.run_id[:8],
                "Failure",
                "resolution_plan_checks",
                "Dependencies for step resolution_captures failed",
                "Not executing",
            ),
        ),
        screenshot_dir,
    )


# --- The inbox, last: it adds a partition to the shared server ---------------------------


def test_inbox_sensor_registers_a_dropped_report_and_moves_malformed_ones_aside(
    dagster_ui: DagsterUI, settled: Settled
) -> None:
    client, workspace = dagster_ui.client, dagster_ui.workspace
    keys_before = set(client.partition_keys(CASE_ASSET))
    folders_before = {p.name for p in workspace.cases_dir.iterdir()}
    plain = next(p for p in sample_report_paths() if list(p.iterdir()) == [p / "report.json"])
    report = json.loads((plain / "report.json").read_text(encoding="utf-8"))
    good_id = "E2E-INBOX-0001"
    good_partition = f"{good_id}|{FIRST_REVISION}"
    inbox = workspace.inbox_dir
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / f"{good_id}.json").write_text(json.dumps({**report, "case_id": good_id}))
    (inbox / "zz-malformed.json").write_text('{"case_id": "E2E-BROKEN", ')
    # Dagster would register `E2E|0001` and then lose it (ARCHITECTURE 3): admission must refuse.
    (inbox / "zz-bad-case-id.json").write_text(json.dumps({**report, "case_id": "E2E|0001"}))
    expected_rejections = [
        f"zz-malformed.json: rejected ({ErrorCode.REPORT_MALFORMED.value})",
        f"zz-bad-case-id.json: rejected ({ErrorCode.INVALID_CASE_ID.value})",
    ]

    deadline = time.monotonic() + INBOX_TIMEOUT_S
    while True:
        lines = [line for t in client.sensor_ticks(settled.job, SENSOR) for line in t.log_lines]
        logged = [e for e in expected_rejections if any(e in message for _, message in lines)]
        run = latest_run_by_partition(client.runs(JOB)).get(good_partition)
        if logged == expected_rejections and run and run.status in TERMINAL_RUN_STATUSES:
            break
        assert time.monotonic() < deadline, (
            f"after {INBOX_TIMEOUT_S:.0f} s: rejections logged {logged}, run of "
            f"{good_partition}: {run}\n{dagster_ui.server.log_tail()}"
        )
        time.sleep(2.0)

    assert run is not None
    for expected in expected_rejections:  # logged once, as a warning
        assert [level for level, message in lines if expected in message] == ["WARNING"]
    assert set(client.partition_keys(CASE_ASSET)) == keys_before | {good_partition}
    # refused files left the inbox for inbox/rejected/, each with its reason beside it
    assert sorted(p.name for p in inbox.iterdir()) == [f"{good_id}.json", REJECTED_DIR]
    rejected = inbox / REJECTED_DIR
    for name in ("zz-malformed.json", "zz-bad-case-id.json"):
        assert (rejected / name).is_file()
        assert (rejected / f"{name}{REASON_SUFFIX}").read_text().startswith(name)
    assert {p.name for p in workspace.cases_dir.iterdir()} == folders_before | {good_id}
    materialized = client.materialized_partitions(CASE_ASSET, [good_partition])
    assert materialized == {good_partition: run.run_id}
