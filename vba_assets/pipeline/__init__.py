"""The revision pipeline: stages, frozen inputs, dispatch records and checks (no Dagster import).

Shared by the Dagster assets (``vba_assets/defs``) and the headless ``vba trial run``.
"""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "artifacts",
    "blocked",
    "capture_runs",
    "checks",
    "code_versions",
    "completion",
    "frozen_revision",
    "integrity",
    "previews",
    "providers",
    "recorder",
    "registry",
    "replay_verifiers",
    "revision",
    "stage_budget",
    "stage_requests",
    "stage_runs",
    "tiebreak_captures",
    "trial",
    "usage",
    "verification",
]
