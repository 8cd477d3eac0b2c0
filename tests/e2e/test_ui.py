"""End-to-end: `make run`'s promise, checked on a real ``dagster dev`` and in headless Chromium.

One server for the module (see conftest): the samples are imported with ``vba demo``, the inbox
sensor registers them as ``<case>|0001`` partitions of ``interpret_cases`` and runs them; the tests
read the result through the GraphQL API and through the rendered UI pages (screenshots are saved
under the pytest tmp dir; run with ``-s`` to see their paths).
"""

import json
import time
from pathlib import Path

import pytest

from tests.e2e.chromium import Chromium
from tests.e2e.conftest import DagsterUI
from tests.e2e.graphql import TERMINAL_RUN_STATUSES
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
from vba_assets.defs.partitions import CASE_DIMENSION, REVISION_DIMENSION
from vba_assets.defs.sensors import FIRST_REVISION
from vba_assets.errors import ErrorCode
from vba_assets.samples import sample_report_paths

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
    dims = client.partition_keys_by_dimension(CASE_ASSET)
    assert set(dagster_ui.sample_case_ids) <= set(dims[CASE_DIMENSION])
    assert FIRST_REVISION in dims[REVISION_DIMENSION]
    assert settled.partitions == [f"{c}|{FIRST_REVISION}" for c in dagster_ui.sample_case_ids]
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
    dims = dagster_ui.client.partition_keys_by_dimension(CASE_ASSET)
    registered = [f"{c}|{r}" for c in dims[CASE_DIMENSION] for r in dims[REVISION_DIMENSION]]
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


# --- The inbox, last: it adds a partition to the shared server ---------------------------


def test_inbox_sensor_registers_a_dropped_report_and_logs_rejections_of_malformed_ones(
    dagster_ui: DagsterUI, settled: Settled
) -> None:
    client, workspace = dagster_ui.client, dagster_ui.workspace
    cases_before = set(client.partition_keys_by_dimension(CASE_ASSET)[CASE_DIMENSION])
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
    cases_after = set(client.partition_keys_by_dimension(CASE_ASSET)[CASE_DIMENSION])
    assert cases_after == cases_before | {good_id}
    assert {p.name for p in workspace.cases_dir.iterdir()} == folders_before | {good_id}
    materialized = client.materialized_partitions(CASE_ASSET, [good_partition])
    assert materialized == {good_partition: run.run_id}
