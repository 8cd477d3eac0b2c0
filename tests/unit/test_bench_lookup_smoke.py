"""``bench/lookup.py`` runs with one round and reports every target it promises (never a timing).

Like tests/unit/test_bench_smoke.py: a real process, the embedded demo DB; only the structure and
the correctness counter are asserted (every lookup gave the same JSON with and without the index).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CATALOGS = {"creature_name", "creature_localized_name"}


def test_lookup_bench_measures_every_target_with_and_without_the_index() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "lookup.py"), "--rounds", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "VBA_TEST_PROJECT_CONFIG": ""},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output = json.loads(done.stdout)
    assert output["benchmark"] == "lookup"
    assert {"parameters", "results", "targets", "machine"} <= output.keys()
    queries = output["parameters"]["queries"]
    assert {q["kind"] for q in queries} == {"real", "partial", "misspelling", "localized"}
    assert all(len(q["query"]) >= 3 for q in queries)
    embedded = output["results"]["sqlite_embedded_demo"]
    assert set(embedded["modes"]) == {"indexed", "scan"}
    for mode in embedded["modes"].values():
        assert set(mode["contains_search"]) == CATALOGS
        assert all(f["n"] == len(queries) for f in mode["contains_search"].values())
        assert mode["lookup"]["n"] == len(queries) and mode["lookup"]["p95_ms"] > 0
    assert embedded["same_results"] == {"lookups": len(queries), "identical": len(queries)}
    assert {c: i["kind"] for c, i in embedded["search_index"].items()} == dict.fromkeys(
        CATALOGS, "fts5_trigram"
    )
    assert set(embedded["speedup"]) == {
        "contains_search_creature_name_p50",
        "contains_search_creature_localized_name_p50",
        "lookup_p50",
        "lookup_p95",
    }
    assert all(isinstance(ratio, float) for ratio in embedded["speedup"].values())
    assert set(output["targets"]) == {
        "contains_search_creature_name_p50_ms",
        "contains_search_creature_localized_name_p50_ms",
        "lookup_p50_ms",
        "lookup_p95_ms",
    }
    for target in output["targets"].values():
        assert target["measured"] > 0 and isinstance(target["met"], bool)
    assert "skipped" in output["results"]["project_config"]
