"""bench/prefix_share.py runs and reports every provider configuration (never a timing)."""

import importlib.util
import json
from pathlib import Path

import pytest

from vba_assets.domain.protocol import CURRENT_PROTOCOL_VERSION

REPO = Path(__file__).resolve().parents[2]


def test_prefix_share_reports_each_stage_and_provider(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location(
        "prefix_share", REPO / "bench" / "prefix_share.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--wolpertinger-only"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["protocol_version"] == CURRENT_PROTOCOL_VERSION
    assert document["cache_first_layout"] is True
    results = document["results"]
    assert set(results) == set(module.CONFIGS)
    for name, stages in results.items():
        assert set(stages) == {"resolution_plan", "resolution_assessment", "interpretation"}, name
        for summary in stages.values():
            assert 0 < summary["wolpertinger"] <= 1
    for stage in results["anthropic/strict_tool"].values():  # the target
        assert stage["wolpertinger"] >= document["target"]
