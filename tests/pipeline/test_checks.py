"""The independent asset checks pass on an honest revision and fail on a tampered one."""

from pathlib import Path

import pytest

from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.layout import REV1
from tests.pipeline.support import (
    QUEST,
    assess_exact,
    imported,
    interpret,
    plan_reply,
    project_config,
    run,
)
from vba_assets.domain.stages import MODEL_STAGES, Stage
from vba_assets.errors import ErrorCode
from vba_assets.pipeline import checks
from vba_assets.pipeline.frozen import load_frozen
from vba_assets.store import CasePackage, canonical_bytes, sha256_hex

ALL_CHECKS = [
    *(checks.check_recorded_reply(stage) for stage in MODEL_STAGES),
    checks.check_plan_grounding,
    checks.check_capture_provenance,
    checks.check_candidate_index,
    checks.check_selections,
    checks.check_no_truncated_selection,
    checks.check_interpretation_retention,
]


def completed(tmp_path: Path) -> CasePackage:
    workspace, package = imported(tmp_path)
    case_doc = package.read_json("case.json")
    provider = ScriptedProvider(
        {
            "resolution_plan": [plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )
    run(workspace, "BUG-000020", project_config(tmp_path / "ws"), provider)
    return package


def overwrite(package: CasePackage, relpath: str, doc: object) -> None:
    path = package.path(relpath)
    path.chmod(0o644)
    path.write_bytes(canonical_bytes(doc))


def test_every_check_passes_on_an_honest_revision(tmp_path: Path) -> None:
    env = load_frozen(completed(tmp_path), "0001")
    for check in ALL_CHECKS:
        outcome = check(env)
        assert outcome.passed and outcome.skipped is None, (check.__name__, outcome.findings)
        assert outcome.findings == []


def test_an_ungrounded_plan_fails_the_grounding_check(tmp_path: Path) -> None:
    package = completed(tmp_path)
    doc = package.read_json(REV1.plan)
    doc["plan"]["searches"][0]["term"] = "Wolpertinger King"
    overwrite(package, REV1.plan, doc)
    outcome = checks.check_plan_grounding(load_frozen(package, "0001"))
    assert not outcome.passed
    assert [f.code for f in outcome.findings] == [ErrorCode.PLAN_TERM_NOT_IN_QUOTE]
    assert outcome.findings[0].subject == "Q1 S3[0:17]" or outcome.findings[0].subject.startswith(
        "Q1 "
    )


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


def test_a_tampered_capture_fails_provenance(tmp_path: Path) -> None:
    package = completed(tmp_path)
    env = load_frozen(package, "0001")
    relpath = package.list_dir(REV1.captures_dir)[0]
    doc = package.read_json(relpath)
    doc["result"]["sql"] = doc["result"]["sql"].replace(
        "LIKE ?", f"LIKE '%{doc['result']['term']}%'"
    )
    overwrite(package, relpath, doc)  # its name no longer matches its hash either
    assert not checks.check_capture_provenance(env).passed


def test_a_candidate_index_that_does_not_recompute_fails(tmp_path: Path) -> None:
    package = completed(tmp_path)
    doc = package.read_json(REV1.candidates)
    doc["searches"][0]["candidates"].reverse()
    doc["searches"][0]["candidates"].append(doc["searches"][0]["candidates"][0])
    doc["searches"][0]["candidate_ids"].append("Q1-C99")
    overwrite(package, REV1.candidates, doc)
    outcome = checks.check_candidate_index(load_frozen(package, "0001"))
    assert not outcome.passed
    assert [f.code for f in outcome.findings] == [ErrorCode.RECOMPUTE_MISMATCH]


def test_a_selection_from_a_truncated_search_fails(tmp_path: Path) -> None:
    package = completed(tmp_path)
    relpath = package.list_dir(REV1.captures_dir)[0]
    capture = package.read_json(relpath)
    capture["result"]["truncated"] = True
    digest = sha256_hex(canonical_bytes(capture))
    new_relpath = REV1.capture(digest)
    package.write_json(new_relpath, capture)  # a valid content address, but a lying result
    package.path(relpath).chmod(0o644)
    package.path(relpath).unlink()
    outcome = checks.check_no_truncated_selection(load_frozen(package, "0001"))
    assert not outcome.passed
    assert [f.code for f in outcome.findings] == [ErrorCode.ASSESSMENT_TRUNCATED_SELECTION]
    # the citation check leaves that finding to this one: each finding is listed once
    assert ErrorCode.ASSESSMENT_TRUNCATED_SELECTION not in {
        f.code for f in checks.check_selections(load_frozen(package, "0001")).findings
    }


def test_a_selection_outside_the_candidates_fails_the_citation_check(tmp_path: Path) -> None:
    package = completed(tmp_path)
    doc = package.read_json(REV1.assessment)
    doc["assessment"]["assessments"][0]["candidate_id"] = "Q1-C9"
    overwrite(package, REV1.assessment, doc)
    outcome = checks.check_selections(load_frozen(package, "0001"))
    assert not outcome.passed
    assert [(f.code, f.subject) for f in outcome.findings] == [
        (ErrorCode.ASSESSMENT_NOT_A_CANDIDATE, "Q1")
    ]


def test_an_interpretation_that_drops_a_selected_entity_fails_retention(tmp_path: Path) -> None:
    package = completed(tmp_path)
    relpath = REV1.interpretation
    doc = package.read_json(relpath)
    doc["interpretation"]["context_entities"] = []
    overwrite(package, relpath, doc)
    outcome = checks.check_interpretation_retention(load_frozen(package, "0001"))
    assert not outcome.passed
    assert [(f.code, f.subject) for f in outcome.findings] == [
        (ErrorCode.INTERPRETATION_SELECTION_NOT_RETAINED, "N2")
    ]


def test_an_artifact_that_is_not_the_recorded_reply_fails_its_reply_check(tmp_path: Path) -> None:
    """Canonically rewritten, valid under every rule, but not what the model replied."""
    package = completed(tmp_path)
    doc = package.read_json(REV1.interpretation)
    doc["interpretation"]["restatement"] += " Added later."
    overwrite(package, REV1.interpretation, doc)
    rev = load_frozen(package, "0001")
    assert checks.check_interpretation_retention(rev).passed  # the rules alone cannot see it
    outcome = checks.check_recorded_reply(Stage.INTERPRETATION)(rev)
    assert [(f.code, f.subject) for f in outcome.findings] == [
        (ErrorCode.REPLAY_ARTIFACT_DIFFERS, "interpretation")
    ]
    assert checks.check_recorded_reply(Stage.RESOLUTION_PLAN)(rev).passed


def test_a_changed_frozen_input_fails_the_reply_check_of_the_stage_it_feeds(tmp_path: Path) -> None:
    package = completed(tmp_path)
    doc = package.read_json(REV1.er_input)
    doc["max_searches"] = 3  # the plan request shows max_searches: it no longer rebuilds
    overwrite(package, REV1.er_input, doc)
    outcome = checks.check_recorded_reply(Stage.RESOLUTION_PLAN)(load_frozen(package, "0001"))
    assert [f.code for f in outcome.findings] == [ErrorCode.REPLAY_REQUEST_DIFFERS]
