"""The asset checks, generated from the registry: each passes on an honest revision and fails on
each of its failing examples.

The checks under test are :func:`vba_assets.pipeline.registry.check_specs` (what Dagster, ``vba
verify`` and the benchmarks run), never a hand list: a check added to the registry gets a pass test
at once, and the suite fails until :data:`FAILING` holds a tamper that makes it fail (with the
codes it must report). Every example is evaluated the way the product evaluates it
(:func:`~vba_assets.pipeline.checks.evaluate_safely`) and must give exactly its codes, so a check
that crashes (``CHECK_INPUT_UNREADABLE``) or reports the wrong problem does not count as failing.
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.layout import REV1
from tests.pipeline.support import completed_revision, copied
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode
from vba_assets.pipeline import checks
from vba_assets.pipeline.checks import evaluate_safely
from vba_assets.pipeline.frozen_revision import FrozenRevision, load_frozen
from vba_assets.pipeline.registry import CheckSpec, check_specs
from vba_assets.store import CasePackage, canonical_bytes, sha256_hex

REGISTERED: dict[str, CheckSpec] = {check.name: check for _, check in check_specs()}


# --- tampers --------------------------------------------------------------------------------------


def overwrite(package: CasePackage, relpath: str, doc: object) -> None:
    path = package.path(relpath)
    path.chmod(0o644)
    path.write_bytes(canonical_bytes(doc))


def edit(relpath: str, change: Callable[[Any], None]) -> Callable[[CasePackage], None]:
    """A tamper that rewrites the JSON at ``relpath`` canonically after ``change`` (no hash fixed)."""

    def apply(package: CasePackage) -> None:
        doc = package.read_json(relpath)
        change(doc)
        overwrite(package, relpath, doc)

    return apply


def _no_readable_source(package: CasePackage) -> None:
    """Every source unreadable, the package record's hash fixed up: only the source rule fails."""
    doc = package.read_json("case.json")
    for source in doc["sources"]:
        source["readable"] = False
    overwrite(package, "case.json", doc)
    record = package.read_json("package.json")
    record["case_json_sha256"] = sha256_hex(canonical_bytes(doc))
    overwrite(package, "package.json", record)


def _first_capture(package: CasePackage) -> str:
    """The capture of search Q1."""
    relpaths = package.list_dir(REV1.captures_dir)
    return next(r for r in relpaths if package.read_json(r)["search_id"] == "Q1")


def _literal_capture_sql(package: CasePackage) -> None:
    """The term pasted into the SQL; the file keeps its old name (its hash no longer matches)."""
    relpath = _first_capture(package)
    doc = package.read_json(relpath)
    doc["result"]["sql"] = doc["result"]["sql"].replace(
        "LIKE ?", f"LIKE '%{doc['result']['term']}%'"
    )
    overwrite(package, relpath, doc)


def _rehashed_capture(change: Callable[[Any], None]) -> Callable[[CasePackage], None]:
    """A capture edited and stored under its new content address: a valid name, a lying body."""

    def apply(package: CasePackage) -> None:
        relpath = _first_capture(package)
        capture = package.read_json(relpath)
        change(capture)
        package.write_json(REV1.capture(sha256_hex(canonical_bytes(capture))), capture)
        package.path(relpath).chmod(0o644)
        package.path(relpath).unlink()

    return apply


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Any], None]:
    def change(doc: Any) -> None:
        for key in path[:-1]:
            doc = doc[key]
        doc[path[-1]] = value

    return change


def _reversed_candidates(doc: Any) -> None:
    search = doc["searches"][0]
    search["candidates"].reverse()
    search["candidates"].append(search["candidates"][0])
    search["candidate_ids"].append("Q1-C99")


def _append_to_restatement(doc: Any) -> None:
    doc["interpretation"]["restatement"] += " Added later."


def _append_to_rationale(doc: Any) -> None:
    doc["assessment"]["assessments"][0]["rationale"] += " Added later."


@dataclass(frozen=True)
class Example:
    """A tamper of the honest revision and the ``(code, subject)`` findings the check reports
    (``subject`` None: not compared)."""

    what: str
    tamper: Callable[[CasePackage], None]
    findings: tuple[tuple[ErrorCode, str | None], ...]


#: At least one failing example per registered check, by check name.
FAILING: dict[str, tuple[Example, ...]] = {
    "case_sources_readable": (
        Example(
            "package.json records another case.json hash",
            edit("package.json", _set(("case_json_sha256",), "0" * 64)),
            ((ErrorCode.CASE_HASH_MISMATCH, None),),
        ),
        Example(
            "no source is readable",
            _no_readable_source,
            ((ErrorCode.CASE_NO_READABLE_SOURCE, None),),
        ),
    ),
    "plan_grounding": (
        Example(
            "a term that is not in its quote",
            edit(REV1.plan, _set(("plan", "searches", 0, "term"), "Wolpertinger King")),
            ((ErrorCode.PLAN_TERM_NOT_IN_QUOTE, None),),
        ),
    ),
    "plan_reply_recorded": (
        Example(
            "a frozen input the plan request shows (max_searches)",
            edit(REV1.er_input, _set(("max_searches",), 3)),
            ((ErrorCode.REPLAY_REQUEST_DIFFERS, "resolution_plan"),),
        ),
    ),
    "capture_provenance": (
        Example(
            "the term pasted into the capture's SQL (old file name kept)",
            _literal_capture_sql,
            ((ErrorCode.ARTIFACT_CORRUPT, None),),
        ),
        Example(
            "the capture's SQL is no template (stored under its new hash)",
            _rehashed_capture(_set(("result", "sql"), "SELECT * FROM creature_template")),
            ((ErrorCode.CAPTURE_SQL_NOT_TEMPLATE, "Q1"),),
        ),
        Example(
            "the capture's row limit differs from the frozen one",
            _rehashed_capture(_set(("result", "row_limit"), 1000)),
            ((ErrorCode.CAPTURE_ROW_LIMIT, "Q1"),),
        ),
    ),
    "candidates_recompute": (
        Example(
            "candidates.json reordered with an extra candidate",
            edit(REV1.candidates, _reversed_candidates),
            ((ErrorCode.RECOMPUTE_MISMATCH, "candidate_index"),),
        ),
    ),
    "selections_cited": (
        Example(
            "a selection outside the candidates",
            edit(REV1.assessment, _set(("assessment", "assessments", 0, "candidate_id"), "Q1-C9")),
            ((ErrorCode.ASSESSMENT_NOT_A_CANDIDATE, "Q1"),),
        ),
    ),
    "no_truncated_selection": (
        Example(
            "a unique selection from a search whose capture says truncated",
            _rehashed_capture(_set(("result", "truncated"), True)),
            ((ErrorCode.ASSESSMENT_TRUNCATED_SELECTION, None),),
        ),
    ),
    "assessment_reply_recorded": (
        Example(
            "assessment.json edited after the reply (still valid)",
            edit(REV1.assessment, _append_to_rationale),
            ((ErrorCode.REPLAY_ARTIFACT_DIFFERS, "resolution_assessment"),),
        ),
    ),
    "interpretation_retention": (
        Example(
            "a selected entity dropped",
            edit(REV1.interpretation, _set(("interpretation", "context_entities"), [])),
            ((ErrorCode.INTERPRETATION_SELECTION_NOT_RETAINED, "N2"),),
        ),
    ),
    "interpretation_reply_recorded": (
        Example(
            "interpretation.json edited after the reply (still valid)",
            edit(REV1.interpretation, _append_to_restatement),
            ((ErrorCode.REPLAY_ARTIFACT_DIFFERS, "interpretation"),),
        ),
    ),
}


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> CasePackage:
    """A completed revision (never modified: examples tamper copies)."""
    return completed_revision(tmp_path_factory.mktemp("honest"))


@pytest.fixture(scope="module")
def unresolved(tmp_path_factory: pytest.TempPathFactory) -> CasePackage:
    """A completed revision frozen without entity resolution."""
    return completed_revision(tmp_path_factory.mktemp("unresolved"), resolution=False)


def tampered(
    honest: CasePackage, tmp_path: Path, tamper: Callable[[CasePackage], None]
) -> FrozenRevision:
    package = copied(honest, tmp_path / "copy")
    tamper(package)
    return load_frozen(package, REV1.revision)


# --- generated from the registry ------------------------------------------------------------------


def test_every_registered_check_has_a_failing_example_and_no_example_is_stale() -> None:
    assert sorted(set(REGISTERED) - set(FAILING)) == [], "add a failing example to FAILING"
    assert sorted(set(FAILING) - set(REGISTERED)) == [], "FAILING names a check not registered"
    assert all(FAILING[name] for name in FAILING)


@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_the_check_passes_on_an_honest_revision(name: str, honest: CasePackage) -> None:
    outcome = evaluate_safely(REGISTERED[name].evaluate, load_frozen(honest, REV1.revision))
    assert outcome.skipped is None, f"{name} does not apply to the honest revision: give it one"
    assert outcome.passed and outcome.findings == [], (name, outcome.findings)


@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_the_check_passes_or_skips_without_entity_resolution(
    name: str, unresolved: CasePackage
) -> None:
    outcome = evaluate_safely(REGISTERED[name].evaluate, load_frozen(unresolved, REV1.revision))
    assert outcome.passed and outcome.findings == [], (name, outcome.findings)


@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_the_check_fails_on_each_of_its_examples(
    name: str, honest: CasePackage, tmp_path: Path
) -> None:
    examples = FAILING.get(name, ())
    assert examples, f"registered check {name} has no failing example in FAILING"
    for number, example in enumerate(examples):
        rev = tampered(honest, tmp_path / str(number), example.tamper)
        outcome = evaluate_safely(REGISTERED[name].evaluate, rev)
        assert not outcome.passed, (name, example.what)
        reported = [(f.code, f.subject, f.message) for f in outcome.findings]
        assert [f.code for f in outcome.findings] == [code for code, _ in example.findings], (
            name, example.what, reported)  # fmt: skip
        for finding, (_, subject) in zip(outcome.findings, example.findings, strict=True):
            assert subject is None or finding.subject == subject, (name, example.what, reported)


# --- what the table cannot say --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "ok"),
    [
        ("SELECT a FROM t WHERE n LIKE ? ESCAPE '\\' ORDER BY n LIMIT ? OFFSET ?", True),
        ("SELECT a\nFROM t\nWHERE n LIKE %(p)s ESCAPE '\\\\' ORDER BY n\n LIMIT %(l)s", True),
        ("SELECT a FROM t WHERE n LIKE '%Wolf%' ESCAPE '\\' ORDER BY n LIMIT ?", False),
        ("SELECT a FROM t WHERE n = ? ORDER BY n LIMIT ?", False),
        ("SELECT a FROM t WHERE n LIKE ? ESCAPE '\\' ORDER BY n", False),
    ],
)
def test_the_capture_sql_template_rule(sql: str, ok: bool) -> None:
    assert checks.capture_sql_is_template(sql) is ok


def test_a_truncated_selection_is_reported_once(honest: CasePackage, tmp_path: Path) -> None:
    """The citation check leaves that finding to the truncation check: each finding is listed once."""
    (example,) = FAILING["no_truncated_selection"]
    rev = tampered(honest, tmp_path, example.tamper)
    assert ErrorCode.ASSESSMENT_TRUNCATED_SELECTION not in {
        f.code for f in checks.check_selections(rev).findings
    }


def test_only_the_reply_check_sees_an_edited_but_valid_artifact(
    honest: CasePackage, tmp_path: Path
) -> None:
    """Canonically rewritten, valid under every rule, but not what the model replied."""
    (example,) = FAILING["interpretation_reply_recorded"]
    rev = tampered(honest, tmp_path, example.tamper)
    assert checks.check_interpretation_retention(rev).passed  # the rules alone cannot see it
    assert checks.check_recorded_reply(Stage.RESOLUTION_PLAN)(rev).passed
