"""The pure GitHub issue -> report mapping, on anonymised REST payloads (tests/fixtures/github)."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from vba_assets.domain.case.builder import build_case
from vba_assets.domain.case.ids import CASE_ID_PATTERN
from vba_assets.domain.case.report import admit_report
from vba_assets.tracker.github_issues import (
    MAX_IMAGES,
    MappedIssue,
    SkippedIssue,
    SkipReason,
    case_id_for,
    image_urls,
    map_issue,
    report_content_sha256,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github"
ISSUES: list[dict[str, Any]] = json.loads((FIXTURES / "issues.json").read_text(encoding="utf-8"))
COMMENTS: list[dict[str, Any]] = json.loads(
    (FIXTURES / "issue-41-comments.json").read_text(encoding="utf-8")
)


def issue(number: int) -> dict[str, Any]:
    return copy.deepcopy(next(item for item in ISSUES if item["number"] == number))


def mapped(number: int, comments: list[dict[str, Any]] | None = None) -> MappedIssue:
    result = map_issue(issue(number), comments or [])
    assert isinstance(result, MappedIssue), result
    return result


def test_an_issue_with_comments_becomes_a_report_with_provenance() -> None:
    result = mapped(41, COMMENTS)
    report = result.report
    assert report["case_id"] == result.case_id == case_id_for("example-org/example-core", 41)
    assert report["title"] == "[Quest] The Wild Wolpertinger does not spawn"
    assert report["reported_at"] == "2024-09-20T18:02:11Z"
    assert report["reporter"] == "player-one"
    assert report["source"] == {
        "tracker": "github",
        "repository": "example-org/example-core",
        "number": 41,
        "url": "https://github.com/example-org/example-core/issues/41",
        "author": "player-one",
        "created_at": "2024-09-20T18:02:11Z",
        "updated_at": "2024-09-22T07:45:00Z",
        "labels": ["bug", "quest"],
        "ids": {"issue_id": 3000000041, "node_id": "I_kwDOExample41"},
    }
    # body images first (listed, never fetched), then the comments by created_at
    assert [(a["name"], a["kind"]) for a in report["attachments"]] == [
        ("image 1 in the body", "screenshot"),
        ("image 2 in the body", "screenshot"),
        ("comment 1 by maintainer-five at 2024-09-21T10:15:30Z", "other"),
        ("comment 2 by player-one at 2024-09-22T07:45:00Z", "other"),
    ]
    assert report["attachments"][0]["url"].endswith("0b6c4e2a-1111-4a5e-9c1e-000000000041")
    assert report["attachments"][2]["text"] == "Which realm, and at what time?"


def test_the_report_is_admitted_and_its_case_has_unreadable_images() -> None:
    case = build_case(admit_report(mapped(41, COMMENTS).report_json, {}))
    assert [(s.alias, s.kind, s.readable) for s in case.sources] == [
        ("S1", "title", True),
        ("S2", "body", True),
        ("S3", "screenshot", False),
        ("S4", "screenshot", False),
        ("S5", "other", True),
        ("S6", "other", True),
    ]
    assert "\r" not in (case.sources[1].text or "")  # normalized like any report
    assert case.provenance is not None and case.provenance.number == 41


def test_a_null_body_and_no_comments() -> None:
    report = mapped(43).report
    assert report["body"] == "" and "attachments" not in report
    assert report["title"] == "Goldark Snipehunter says nothing"


def test_the_mapping_is_deterministic_whatever_the_comment_order() -> None:
    first = mapped(41, COMMENTS)
    second = mapped(41, list(reversed(COMMENTS)))
    assert first.report_json == second.report_json
    assert first.content_sha256 == second.content_sha256


def test_the_content_hash_follows_the_text_not_labels_or_updated_at() -> None:
    base = mapped(41, COMMENTS)
    relabelled = issue(41)
    relabelled["labels"] = []
    relabelled["updated_at"] = "2024-10-01T00:00:00Z"
    other = map_issue(relabelled, COMMENTS)
    assert isinstance(other, MappedIssue)
    assert other.content_sha256 == base.content_sha256 and other.report_json != base.report_json
    edited = issue(41)
    edited["body"] += "\r\nEdit: still broken."
    assert mapped_content(edited, COMMENTS) != base.content_sha256
    new_comment = [*COMMENTS, {**COMMENTS[0], "id": 2100000003, "body": "Any news?"}]
    assert mapped_content(issue(41), new_comment) != base.content_sha256


def mapped_content(item: dict[str, Any], comments: list[dict[str, Any]]) -> str:
    result = map_issue(item, comments)
    assert isinstance(result, MappedIssue)
    return result.content_sha256


def test_a_pull_request_is_skipped_with_its_reason() -> None:
    result = map_issue(issue(42))
    assert result == SkippedIssue(SkipReason.PULL_REQUEST, 42, "a pull request, not an issue")


def test_the_label_filter_skips_issues_without_any_wanted_label() -> None:
    skipped = map_issue(issue(44), labels=["Bug"])
    assert isinstance(skipped, SkippedIssue) and skipped.reason is SkipReason.LABEL_FILTER
    assert isinstance(map_issue(issue(41), labels=["BUG"]), MappedIssue)  # names ignore case
    assert isinstance(map_issue(issue(44)), MappedIssue)  # no filter: every issue


@pytest.mark.parametrize(
    "change",
    [
        {"number": None},
        {"number": "41"},
        {"created_at": "2024-09-20 18:02"},  # no offset: admission refuses it
        {"html_url": None},
        {"title": "", "body": ""},
        {"title": "lone \ud800 surrogate"},  # JSON may escape one; it is not Unicode
        {"title": ["not", "a", "string"]},
        {"labels": [{"name": "two\nlines"}]},
    ],
)
def test_an_item_that_cannot_be_a_report_is_skipped_as_invalid(change: dict[str, Any]) -> None:
    result = map_issue({**issue(43), **change})
    assert isinstance(result, SkippedIssue) and result.reason is SkipReason.INVALID
    assert result.detail


def test_an_issue_of_another_repository_than_configured_is_invalid() -> None:
    result = map_issue(issue(41), repository="someone-else/other-repo")
    assert isinstance(result, SkippedIssue) and result.reason is SkipReason.INVALID
    same = map_issue(issue(41), repository="Example-Org/Example-Core")  # names ignore case
    assert isinstance(same, MappedIssue)
    assert same.case_id == mapped(41).case_id


def test_case_ids_are_valid_deterministic_and_distinct_across_repositories() -> None:
    assert (
        case_id_for("example-org/example-core", 41)
        == "gh-example-org-example-core-41-"
        + (__import__("hashlib").sha256(b"example-org/example-core").hexdigest()[:12])
    )
    # the same repository whatever its case; slugs that agree are told apart by the digest
    assert case_id_for("Example-Org/Example-Core", 41) == case_id_for(
        "example-org/example-core", 41
    )
    assert case_id_for("a-b/c", 1) != case_id_for("a/b-c", 1)
    assert case_id_for("a/b.c", 1) != case_id_for("a/b-c", 1)
    long_repo = "o" * 39 + "/" + "n" * 100
    for repository, number in [(long_repo, 2**63 - 1), ("a/b", 1), ("x/---", 7)]:
        case_id = case_id_for(repository, number)
        assert CASE_ID_PATTERN.fullmatch(case_id) and len(case_id) <= 64
    with pytest.raises(ValueError):
        case_id_for("a/b", 0)


def test_image_urls_are_found_in_order_once_and_never_fetched() -> None:
    body = (
        "see ![a](https://example.com/one.png) and <img src='https://example.com/two.png'>\n"
        "https://github.com/user-attachments/assets/abc-123 and ![again](https://example.com/one.png)"
        " and a link [not an image](https://example.com/page)"
    )
    assert image_urls(body) == [
        "https://example.com/one.png",
        "https://example.com/two.png",
        "https://github.com/user-attachments/assets/abc-123",
    ]


def test_attachments_past_the_limit_are_counted_not_lost_silently() -> None:
    item = issue(43)
    item["body"] = " ".join(f"![i](https://example.com/{n}.png)" for n in range(MAX_IMAGES + 2))
    comments = [
        {**COMMENTS[0], "id": n, "created_at": f"2024-10-01T00:00:{n:02d}Z", "body": f"c{n}"}
        for n in range(40)
    ]
    result = map_issue(item, comments)
    assert isinstance(result, MappedIssue)
    assert (result.images_omitted, result.comments_omitted) == (2, 40 - (32 - MAX_IMAGES))
    assert len(result.report["attachments"]) == 32
    build_case(admit_report(result.report_json, {}))  # still an admissible report


def test_the_content_hash_is_recomputable_from_the_stored_report() -> None:
    result = mapped(41, COMMENTS)
    stored = json.loads(result.report_json)
    assert report_content_sha256(stored) == result.content_sha256


def test_the_readme_pins_the_case_id_rule_with_a_worked_example() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    example = case_id_for("example-org/example-core", 41)
    assert example == "gh-example-org-example-core-41-eab970d65ac6"
    assert f"`example-org/example-core` #41 is `{example}`" in readme


def test_comments_that_would_make_the_report_too_large_are_counted() -> None:
    comments = [
        {**COMMENTS[0], "id": n, "created_at": f"2024-10-01T00:00:{n:02d}Z", "body": "x" * 60_000}
        for n in range(20)
    ]
    result = map_issue(issue(43), comments)
    assert isinstance(result, MappedIssue)
    kept = len(result.report["attachments"])
    assert 0 < kept < 20 and result.comments_omitted == 20 - kept
    assert len(result.report_json) <= 1024 * 1024
    # the earliest comments are the ones kept
    assert result.report["attachments"][0]["name"].endswith("2024-10-01T00:00:00Z")


def test_a_deleted_account_maps_to_no_reporter() -> None:
    item = issue(43)
    item["user"] = None
    comment = {**COMMENTS[0], "user": None}
    result = map_issue(item, [comment])
    assert isinstance(result, MappedIssue)
    assert result.report["reporter"] is None and result.report["source"]["author"] is None
    assert result.report["attachments"][0]["name"].startswith("comment 1 by unknown at ")
