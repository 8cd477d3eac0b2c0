"""Every evaluation report through the ``interpret_cases`` job gives the package ``vba trial run`` gives.

ARCHITECTURE 15 ("One path"): ``vba eval --via dagster`` materializes each case through the
project's own job (:class:`vba_assets.defs.eval_job.DagsterPath`), ``--via cli`` runs
:func:`~vba_assets.pipeline.trial.run_trial` (:class:`vba_assets.evaluation.via.TrialPath`, the code
of ``vba trial run``). Both are run here on every report of ``eval/devset.jsonl`` and ``eval/real``
(dev, dev2, test) with the heuristic provider and the embedded SQLite world DB, and on a few reports
that block (the dispatch budget; an unreachable MariaDB world DB). Asserted:

* the two workspaces hold the same files with the same bytes; in ``events.jsonl`` only the fields
  that hold wall-clock time (ARCHITECTURE 4, "Content, not timing": ``at``, ``started_at``,
  ``elapsed_ms``, ``retry_at``) differ, and ``chain``, which hashes them, is checked on each side;
* ``results.json`` (the scores) is the same file;
* every Dagster data version is the sha256 of the artifact the CLI path wrote (the captures' is
  the hash of their manifest), and the assets materialized are the stages the case passed.

The held-out split (``test.jsonl``) is only run and compared byte for byte; nothing of it is printed
(a failure names case ids and relative paths only).
"""

import ast
import hashlib
import json
import re
import socket
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from vba_assets.defs.assets import ASSETS
from vba_assets.defs.eval_job import DagsterPath
from vba_assets.defs.partitions import partition_key
from vba_assets.domain.canonical import content_hash
from vba_assets.evaluation.dataset import load_dataset
from vba_assets.evaluation.report import EvalReport
from vba_assets.evaluation.runner import EVAL_REVISION, run_eval
from vba_assets.evaluation.via import TrialPath
from vba_assets.store.events import chain_value

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
DATASETS = {
    "devset": REPO / "eval" / "devset.jsonl",
    "dev": REPO / "eval" / "real" / "dev.jsonl",
    "dev2": REPO / "eval" / "real" / "dev2.jsonl",
    "test": REPO / "eval" / "real" / "test.jsonl",
}
#: The fields of an event line that hold wall-clock time (ARCHITECTURE 4, "Content, not timing").
TIMING_FIELDS = frozenset({"at", "started_at", "elapsed_ms", "retry_at"})
#: Asset names in pipeline order.
ASSET_ORDER = [asset.key.to_user_string() for asset in ASSETS]
LINK = re.compile(r"npc=\d+")


def _run_both(
    dataset: Path, tmp_path: Path, *, project: Path | None = None, llm: Path | None = None
) -> tuple[EvalReport, EvalReport, dict[tuple[str, str], dg.AssetMaterialization]]:
    """Both paths on ``dataset``; the Dagster run's materializations by (asset, partition)."""
    cli = run_eval(dataset, llm, project, tmp_path / "cli", via=TrialPath())
    with dg.DagsterInstance.ephemeral() as instance:
        job = run_eval(dataset, llm, project, tmp_path / "dagster", via=DagsterPath(instance))
        materializations = {}
        for asset in ASSETS:
            records = instance.fetch_materializations(asset.key, limit=10_000).records
            for record in records:
                materialization = record.asset_materialization
                assert materialization is not None and materialization.partition is not None
                key = (asset.key.to_user_string(), materialization.partition)
                assert key not in materializations, f"{key} materialized twice"
                materializations[key] = materialization
    return cli, job, materializations


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _event_content(relpath: str, data: bytes) -> list[dict[str, Any]]:
    """The lines of an ``events.jsonl`` without their timing fields, after checking ``chain``
    (which hashes the whole line) against the lines themselves."""
    lines = data.split(b"\n")
    assert lines[-1] == b"", f"{relpath}: no final newline"
    records = []
    previous: bytes | None = None
    for number, line in enumerate(lines[:-1], start=1):
        record = json.loads(line)
        assert record["chain"] == chain_value(previous, record), f"{relpath}:{number}: chain"
        previous = line
        records.append({k: v for k, v in record.items() if k not in TIMING_FIELDS | {"chain"}})
    return records


def assert_same_packages(cli_root: Path, dagster_root: Path) -> None:
    """The same files, byte for byte; events compared without their timing fields."""
    cli, job = _files(cli_root), _files(dagster_root)
    assert sorted(job) == sorted(cli), "the two paths wrote different files"
    differ = []
    for relpath, data in cli.items():
        if relpath.endswith("/events.jsonl"):
            if _event_content(relpath, data) != _event_content(relpath, job[relpath]):
                differ.append(relpath)
        elif data != job[relpath]:
            differ.append(relpath)
    assert not differ, f"{len(differ)} files differ, e.g. {differ[:5]}"


def _blocked_stage(case_root: Path) -> str | None:
    events = case_root / "analysis" / "interpretations" / EVAL_REVISION / "events.jsonl"
    if not events.exists():
        return None
    blocks = [
        record["stage"]
        for record in map(json.loads, events.read_text(encoding="utf-8").splitlines())
        if record["event"] == "blocked"
    ]
    return blocks[-1] if blocks else None


def assert_data_versions(
    report: EvalReport,
    cli_root: Path,
    dagster_root: Path,
    materializations: dict[tuple[str, str], dg.AssetMaterialization],
) -> None:
    """Each case's materialized assets are the stages it passed, each data version the sha256 of
    the artifact the CLI path wrote at the same place."""
    seen = set()
    for case in report.cases:
        key = partition_key(case.case_id, EVAL_REVISION)
        stage = _blocked_stage(cli_root / "cases" / case.case_id)
        assert (stage is None) == (case.error_code is None), case.case_id
        passed = ASSET_ORDER if stage is None else ASSET_ORDER[: ASSET_ORDER.index(stage)]
        found = [asset for asset in ASSET_ORDER if (asset, key) in materializations]
        assert found == passed, case.case_id
        for asset in found:
            materialization = materializations[(asset, key)]
            seen.add((asset, key))
            assert materialization.tags is not None
            version = materialization.tags["dagster/data_version"]
            metadata = materialization.metadata
            if "path" in metadata:
                relpath = Path(str(metadata["path"].value)).relative_to(dagster_root)
                expected = hashlib.sha256((cli_root / relpath).read_bytes()).hexdigest()
                assert version == expected, (case.case_id, asset)
            else:  # the captures: the hash of their manifest [[search id, capture sha256], ...]
                assert asset == "resolution_captures", (case.case_id, asset)
                manifest = ast.literal_eval(str(metadata["captures"].value))
                assert version == content_hash(manifest), case.case_id
                captures = cli_root / "cases" / case.case_id / "analysis" / "interpretations"
                for _, sha in manifest:
                    (capture,) = captures.rglob(f"captures/{sha}.json")
                    assert hashlib.sha256(capture.read_bytes()).hexdigest() == sha
    assert seen == set(materializations), "materializations of partitions no case names"


def _compare(
    tmp_path: Path,
    cli: EvalReport,
    job: EvalReport,
    materializations: dict[tuple[str, str], dg.AssetMaterialization],
) -> None:
    assert (tmp_path / "dagster" / "results.json").read_bytes() == (
        tmp_path / "cli" / "results.json"
    ).read_bytes()
    assert job == cli
    cli_ws, job_ws = tmp_path / "cli" / "workspace", tmp_path / "dagster" / "workspace"
    assert_same_packages(cli_ws, job_ws)
    assert_data_versions(cli, cli_ws, job_ws, materializations)


def _identity_captures(workspace: Path) -> int:
    """Captures fetched by a report's link (an identity reference), over all cases."""
    return sum(
        "reference" in json.loads(path.read_text(encoding="utf-8"))["search"]
        for path in workspace.rglob("captures/*.json")
    )


@pytest.mark.parametrize("split", list(DATASETS))
def test_every_eval_report_gives_the_same_package_through_the_job(
    split: str, tmp_path: Path
) -> None:
    dataset = load_dataset(DATASETS[split])
    linked = sum(bool(LINK.search(case.body or "")) for case in dataset.cases)
    cli, job, materializations = _run_both(DATASETS[split], tmp_path)
    assert len(cli.cases) == len(dataset.cases)
    _compare(tmp_path, cli, job, materializations)
    assert not cli.blocked  # the heuristic provider on the embedded DB: nothing blocks
    identity = _identity_captures(tmp_path / "dagster" / "workspace")
    if split == "devset":
        assert linked == 0 and identity == 0
    else:  # linked reports (wowhead npc=ID) and reports without a link, in every real split
        assert 0 < linked < len(dataset.cases)
        assert identity > 0


def _some_reports(tmp_path: Path) -> Path:
    """Six reports of dev.jsonl: three with a creature link, three without."""
    lines = (DATASETS["dev"]).read_text(encoding="utf-8").splitlines()
    with_link = [line for line in lines if LINK.search(json.loads(line)["body"])][:3]
    without = [line for line in lines if not LINK.search(json.loads(line)["body"])][:3]
    path = tmp_path / "six.jsonl"
    path.write_text("\n".join(with_link + without) + "\n", encoding="utf-8")
    return path


def test_reports_that_exhaust_the_dispatch_budget_block_the_same_way(tmp_path: Path) -> None:
    llm = tmp_path / "llm.toml"
    llm.write_text("max_dispatches = 2\n", encoding="utf-8")  # plan and assessment, then block
    cli, job, materializations = _run_both(_some_reports(tmp_path), tmp_path, llm=llm)
    assert [c.error_code for c in cli.cases] == ["LLM_MAX_DISPATCHES"] * 6
    _compare(tmp_path, cli, job, materializations)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # nothing listens there once the probe is closed


def test_an_unreachable_world_db_blocks_the_same_way(tmp_path: Path) -> None:
    text = (REPO / "config" / "project.mariadb-ci.toml").read_text(encoding="utf-8")
    url = f"mysql+pymysql://vba_reader@127.0.0.1:{_closed_port()}/vba_world"
    text = re.sub(r"(?m)^url = .*$", f'url = "{url}"', text)
    text = re.sub(r"(?m)^password_env = .*$", "", text)
    project = tmp_path / "project.toml"
    project.write_text(text, encoding="utf-8")
    cli, job, materializations = _run_both(_some_reports(tmp_path), tmp_path, project=project)
    assert [c.error_code for c in cli.cases] == ["RESEARCH_UNAVAILABLE"] * 6
    _compare(tmp_path, cli, job, materializations)
