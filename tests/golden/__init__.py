"""Golden files: committed expected outputs. Regenerate with ``VBA_UPDATE_SNAPSHOTS=1 pytest ...``."""

import json
import os
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).parent


def assert_golden(name: str, actual: Any) -> None:
    """Compare ``actual`` with ``tests/golden/<name>``; rewrite it when VBA_UPDATE_SNAPSHOTS is set."""
    path = GOLDEN_DIR / name
    text = json.dumps(actual, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    if os.environ.get("VBA_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run with VBA_UPDATE_SNAPSHOTS=1 to create it"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert json.loads(text) == expected, (
        f"{name} differs from the golden file; if the change is intended, regenerate it with "
        "VBA_UPDATE_SNAPSHOTS=1 and review the diff"
    )
