"""What `make run` promises, as reusable checks: shared by the e2e tests and ``tests.e2e.smoke``.

Problems are ``(what, how it failed, partition)`` triples, summarized one line per (what, how) so a
message stays readable when every partition fails the same way.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tests.e2e.chromium import VIEWPORT, Chromium, png_summary
from tests.e2e.graphql import DagsterGraphQL
from tests.e2e.settle import CASE_ASSET, JOB, SENSOR, Settled
from vba_assets.samples import sample_report_paths
from vba_assets.store import Workspace

Problem = tuple[str, str, str]

#: A rendered Dagster page decodes to hundreds of distinct byte values; a blank one to a handful.
MIN_DISTINCT_PNG_BYTES = 32


def sample_case_ids() -> list[str]:
    """The case ids of the packaged sample reports, read from their ``report.json``."""
    return sorted(
        json.loads((path / "report.json").read_text(encoding="utf-8"))["case_id"]
        for path in sample_report_paths()
    )


def check_problems(
    client: DagsterGraphQL, asset: str, checks: list[str], partitions: list[str]
) -> list[Problem]:
    """Every (check, partition) whose latest evaluation did not pass."""
    problems = []
    for check in checks:
        executions = client.check_executions(asset, check)
        for partition in partitions:
            execution = executions.get(partition)
            if execution is None:
                problems.append((f"check {asset}.{check}", "never evaluated", partition))
            elif not (execution.status == "SUCCEEDED" and execution.success):
                problems.append((f"check {asset}.{check}", execution.status, partition))
    return problems


def materialization_problems(
    client: DagsterGraphQL, asset: str, partitions: list[str]
) -> list[Problem]:
    """Every partition of ``asset`` without a materialization."""
    latest = client.materialized_partitions(asset, partitions)
    return [(f"asset {asset}", "no materialization", p) for p, run in latest.items() if not run]


def pipeline_problems(
    client: DagsterGraphQL, settled: Settled, assets: list[str] | None = None
) -> list[Problem]:
    """Missing materializations and failed checks of ``assets`` (default: the whole job)."""
    checks_by_asset = client.job_asset_checks(settled.job)
    problems = []
    for asset in assets if assets is not None else sorted(checks_by_asset):
        problems += materialization_problems(client, asset, settled.partitions)
        problems += check_problems(client, asset, checks_by_asset[asset], settled.partitions)
    return problems


def summarize(problems: list[Problem], total: int) -> str:
    """One line per (what, how), with how many of ``total`` partitions it hit."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for what, how, partition in problems:
        grouped.setdefault((what, how), []).append(partition)
    return "\n".join(
        f"{what}: {how} on {len(parts)}/{total} partitions (e.g. {parts[0]})"
        for (what, how), parts in grouped.items()
    )


def run_failure_report(client: DagsterGraphQL, settled: Settled) -> str:
    """The partitions whose latest run did not succeed, grouped by failure message."""
    by_message: dict[str, list[str]] = {}
    for partition, run in settled.latest_runs.items():
        if run.status != "SUCCESS":
            message = "; ".join(client.run_failures(run.run_id)) or "no failure event"
            by_message.setdefault(f"{run.status}: {message[:800]}", []).append(partition)
    return "\n".join(
        f"runs of {len(parts)} partition(s) (e.g. {parts[0]}) ended {message}"
        for message, parts in by_message.items()
    )


@dataclass(frozen=True)
class Page:
    """A UI page, what to click on it first (``(selector, text)`` pairs) and the texts it must
    render once its data loaded."""

    name: str
    path: str
    expected: tuple[str, ...]
    clicks: tuple[tuple[str, str], ...] = ()


def asset_partition_page(
    workspace: Workspace, case_ids: list[str], case_id: str, revision: str
) -> Page:
    """The ``case`` asset's partitions view with one partition open: its key, every sample case
    in the partition list, and the case.json sha256 the store recorded as its data version
    (among the tags, once shown)."""
    partition = f"{case_id}|{revision}"
    recorded_sha = workspace.case(case_id).read_json("package.json")["case_json_sha256"]
    return Page(
        name="case-partitions",
        path=f"/assets/{CASE_ASSET}?view=partitions&partition={quote(partition)}",
        expected=(partition, recorded_sha, "Materialized", "model_requests", *case_ids),
        clicks=(("button", "Show tags"),),
    )


def run_page(settled: Settled, partition: str) -> Page:
    """The run of one partition: its id, status, job, partition key and the launching sensor."""
    run = settled.latest_runs[partition]
    return Page(
        name="run",
        path=f"/runs/{run.run_id}",
        expected=(run.run_id[:8], run.status.title(), JOB, f"partition: {partition}", SENSOR),
    )


def checks_page(client: DagsterGraphQL, settled: Settled) -> Page:
    """The ``case`` asset's checks tab: every check by name and the latest evaluation passed."""
    checks = client.job_asset_checks(settled.job)[CASE_ASSET]
    return Page(
        name="case-checks",
        path=f"/assets/{CASE_ASSET}?view=checks",
        expected=(*checks, "Passed"),
    )


def catalog_page(client: DagsterGraphQL, settled: Settled) -> Page:
    """The asset catalog: every asset of the job by name, with its loaded partition count."""
    registered = len(client.partition_keys(CASE_ASSET))
    return Page(
        name="catalog",
        path="/assets",
        expected=(*sorted(client.job_asset_checks(settled.job)), f"{registered} partitions"),
    )


def capture(
    browser: Chromium, base_url: str, page: Page, out_dir: Path, timeout_s: float
) -> tuple[str, Path]:
    """Open ``page``, wait until it shows every expected text, and save a screenshot.

    Raises:
        PageTextTimeout: the texts never all appeared (the message shows what did).
        AssertionError: the screenshot is not a rendered page of the viewport's size.
    """
    browser.open(base_url + page.path)
    for selector, label in page.clicks:
        browser.click(selector, label, timeout_s=timeout_s)
    text = browser.wait_for_text(*page.expected, timeout_s=timeout_s)
    shot = browser.screenshot(out_dir / f"{page.name}.png")
    width, height, distinct = png_summary(shot)
    assert (width, height) == VIEWPORT, f"{shot} is {width}x{height}"
    assert distinct > MIN_DISTINCT_PNG_BYTES, f"{shot} looks blank ({distinct} byte values)"
    return text, shot
