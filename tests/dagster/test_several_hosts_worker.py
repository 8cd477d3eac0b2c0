"""The run worker's entry point and the several-host instance file, without any server.

The deployment itself (PostgreSQL, S3, two workers, a kill) is tested by
``tests/dagster/test_several_hosts.py``; here only what needs no service: the Celery URLs built
from ``DAGSTER_PG_*``, the worker's refusal of an instance without the Celery run launcher, and
``deploy/dagster.several-hosts.yaml`` validating against Dagster's instance schema.
"""

import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from dagster._core.instance.config import dagster_instance_config

from tests.conftest import REPO
from vba_assets.defs.run_worker import celery_urls

PG = {
    "DAGSTER_PG_HOST": "127.0.0.1",
    "DAGSTER_PG_PORT": "5432",
    "DAGSTER_PG_USER": "vba_dagster",
    "DAGSTER_PG_PASSWORD": "p@ss:w/rd%",
    "DAGSTER_PG_DB": "vba_dagster",
}


def test_the_celery_urls_name_the_instance_database_with_the_password_quoted() -> None:
    broker, backend = celery_urls(PG)
    for url, scheme in ((broker, "sqla+postgresql+psycopg2"), (backend, "db+postgresql+psycopg2")):
        parts = urlsplit(url)
        assert parts.scheme == scheme
        assert (parts.hostname, parts.port, parts.path) == ("127.0.0.1", 5432, "/vba_dagster")
        assert unquote(parts.password or "") == PG["DAGSTER_PG_PASSWORD"]
        assert parts.username == "vba_dagster"


def test_the_worker_refuses_an_instance_without_the_celery_run_launcher(tmp_path: Path) -> None:
    (tmp_path / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "vba_assets.defs.run_worker"],
        env={"DAGSTER_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "CeleryRunLauncher" in done.stderr and "DefaultRunLauncher" in done.stderr


def test_the_several_host_instance_file_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in PG.items():
        monkeypatch.setenv(name, value)
    for name in ("DAGSTER_CELERY_BROKER_URL", "DAGSTER_CELERY_BACKEND_URL", "VBA_S3_BUCKET",
                 "VBA_S3_ENDPOINT_URL", "VBA_COMPUTE_LOG_DIR"):  # fmt: skip
        monkeypatch.setenv(name, "x")
    text = (REPO / "deploy" / "dagster.several-hosts.yaml").read_text(encoding="utf-8")
    (tmp_path / "dagster.yaml").write_text(text, encoding="utf-8")
    config, _ = dagster_instance_config(str(tmp_path))
    assert config["run_launcher"]["class"] == "CeleryRunLauncher"
    assert config["compute_logs"]["class"] == "S3ComputeLogManager"
    assert config["run_monitoring"]["max_runtime_seconds"] > 0
    launcher = config["run_launcher"]["config"]["config_source"]
    assert launcher["task_acks_late"] is True and launcher["worker_prefetch_multiplier"] == 1
