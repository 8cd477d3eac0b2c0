"""Dagster wiring only: partitions, assets, checks, sensors, jobs. Logic lives in vba_assets.domain."""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "alerts",
    "assets",
    "backfill",
    "checks",
    "concurrency",
    "dev_server",
    "eval_job",
    "eval_quality",
    "failures",
    "inbox",
    "instance_storage",
    "job",
    "metadata",
    "partitions",
    "provenance",
    "relaunch",
    "resources",
    "resume",
    "run_worker",
    "sensors",
    "serve",
    "simulation",
    "trackers",
    "usage",
]
