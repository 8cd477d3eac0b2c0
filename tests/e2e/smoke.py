"""Check a running Dagster UI (e.g. the one `make run` started) the way the e2e tests do.

    python -m tests.e2e.smoke --url http://127.0.0.1:3000 --workspace vba-workspace --out DIR

Waits (bounded) until the inbox sensor registered every packaged sample as ``<case>|0001`` and
their runs finished, prints what it found (partitions, runs, materializations, checks), then renders
four pages in headless Chromium and saves their screenshots in ``--out``. Exit code 0 when every
promise holds, 1 otherwise; the ``case`` asset alone is reported separately so a partial pipeline
is visible as such. It never changes the server's state.
"""

import argparse
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from tests.e2e.chromium import CHROMIUM, Chromium, PageTextTimeout
from tests.e2e.graphql import DagsterGraphQL, LocationLoadError
from tests.e2e.settle import CASE_ASSET, wait_until_settled
from tests.e2e.verify import (
    asset_partition_page,
    capture,
    catalog_page,
    checks_page,
    pipeline_problems,
    run_failure_report,
    run_page,
    sample_case_ids,
    summarize,
)
from vba_assets.defs.sensors import FIRST_REVISION
from vba_assets.store import Workspace


def _wait_for_server(url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/server_info", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url}/server_info did not answer within {timeout_s:.0f} s")
        time.sleep(1.0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ui_smoke", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:3000")
    parser.add_argument("--workspace", default="vba-workspace", help="the server's VBA workspace")
    parser.add_argument("--out", help="screenshot folder (default: a new temp folder)")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for runs")
    args = parser.parse_args(argv)
    url = args.url.rstrip("/")
    out = Path(args.out or tempfile.mkdtemp(prefix="ui-smoke-"))
    out.mkdir(parents=True, exist_ok=True)
    client = DagsterGraphQL(url)
    case_ids = sample_case_ids()
    failures = 0

    try:
        _wait_for_server(url, args.timeout)
        settled = wait_until_settled(client, case_ids, FIRST_REVISION, args.timeout)
    except (LocationLoadError, TimeoutError) as error:
        print(f"FAIL {error}")
        return 1
    print(f"ok   sample partitions registered and their runs finished ({settled.seconds:.0f} s):")
    print(f"     {', '.join(settled.partitions)}")
    statuses = Counter(run.status for run in settled.latest_runs.values())
    print(f"     latest run per partition: {dict(statuses)}")

    for label, assets in (("case asset", [CASE_ASSET]), ("every asset of the job", None)):
        problems = pipeline_problems(client, settled, assets)
        if problems:
            failures += 1
            print(f"FAIL {label}:\n{summarize(problems, len(settled.partitions))}")
        else:
            print(f"ok   {label}: materialized and every check passed on every partition")
    report = run_failure_report(client, settled)
    if report:
        failures += 1
        print(f"FAIL {report}")

    if not CHROMIUM.is_file():
        print(f"skip pages: {CHROMIUM} is missing")
        return 1 if failures else 0
    pages = [
        asset_partition_page(
            Workspace(Path(args.workspace)), case_ids, case_ids[0], FIRST_REVISION
        ),
        run_page(settled, settled.partitions[0]),
        checks_page(client, settled),
        catalog_page(client, settled),
    ]
    with Chromium(out / "profile", out / "chromium.log") as browser:
        for page in pages:
            try:
                _, shot = capture(browser, url, page, out, timeout_s=60.0)
            except (PageTextTimeout, AssertionError) as error:
                failures += 1
                print(f"FAIL page {page.path}: {error}")
                continue
            print(f"ok   page {page.path} shows {', '.join(page.expected)}\n     {shot}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
