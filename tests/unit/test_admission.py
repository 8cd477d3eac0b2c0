"""Report admission: every rejection rule, through the real importer into a real workspace.

Each rejection test asserts the ErrorCode, that the message and ``detail['field']`` name the
offending field, and that nothing at all was written to the workspace.
"""

import json
import os
from pathlib import Path
from typing import Any

import pytest

from vba_assets.domain.case.report import (
    MAX_ATTACHMENT_TEXT_CHARS,
    MAX_BODY_CHARS,
    MAX_REPORT_JSON_BYTES,
    MAX_TITLE_CHARS,
    MAX_TOTAL_BYTES,
    admit_report,
)
from vba_assets.domain.case.report_fields import MAX_ATTACHMENTS
from vba_assets.errors import ErrorCode, InputError
from vba_assets.intake import import_report
from vba_assets.store import Workspace

GOOD: dict[str, Any] = {
    "case_id": "BUG-000100",
    "title": "Wild Wolpertinger missing",
    "body": "Goldark Snipehunter gave me the quest but I see no Wild Wolpertinger.",
    "reported_at": "2026-09-24T21:47:12+02:00",
}


def report_folder(base: Path, report: Any, files: dict[str, bytes] | None = None) -> Path:
    """Write a report folder: ``report`` as JSON (or raw bytes) plus attachment files."""
    folder = base / "submitted"
    folder.mkdir(parents=True, exist_ok=True)
    data = report if isinstance(report, bytes) else json.dumps(report).encode("utf-8")
    (folder / "report.json").write_bytes(data)
    for name, content in (files or {}).items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return folder


def assert_rejected(
    tmp_path: Path,
    report: Any,
    code: ErrorCode,
    field: str,
    files: dict[str, bytes] | None = None,
    folder: Path | None = None,
) -> InputError:
    """Import must fail with ``code`` naming ``field``, and the workspace must stay empty."""
    workspace = Workspace(tmp_path / "ws")
    path = folder if folder is not None else report_folder(tmp_path, report, files)
    with pytest.raises(InputError) as caught:
        import_report(workspace, path)
    error = caught.value
    assert error.code is code, error
    assert field in error.message, error.message
    assert error.detail.get("field") == field, error.detail
    assert not workspace.root.exists() or not any(workspace.root.rglob("*"))
    return error


def with_(**changes: Any) -> dict[str, Any]:
    report = {**GOOD, **changes}
    return {key: value for key, value in report.items() if value is not _ABSENT}


_ABSENT = object()


def test_the_baseline_report_is_admitted(tmp_path: Path) -> None:
    result = import_report(Workspace(tmp_path / "ws"), report_folder(tmp_path, GOOD))
    assert result.created and result.case_id == "BUG-000100"


# -- JSON shape -----------------------------------------------------------------------------


def test_malformed_json(tmp_path: Path) -> None:
    error = assert_rejected(
        tmp_path, b'{"case_id": "BUG-1",', ErrorCode.REPORT_MALFORMED, "report.json"
    )
    assert "line 1" in error.message


def test_non_object_json(tmp_path: Path) -> None:
    error = assert_rejected(tmp_path, [GOOD], ErrorCode.REPORT_MALFORMED, "report.json")
    assert "array" in error.message


def test_duplicate_json_keys(tmp_path: Path) -> None:
    data = (
        b'{"case_id": "BUG-1", "case_id": "BUG-2", "title": "t",'
        b' "reported_at": "2026-01-01T00:00Z"}'
    )
    error = assert_rejected(tmp_path, data, ErrorCode.REPORT_MALFORMED, "report.json")
    assert "duplicate key 'case_id'" in error.message


def test_nan_is_not_json(tmp_path: Path) -> None:
    data = json.dumps({**GOOD, "title": float("nan")}).encode()
    assert_rejected(tmp_path, data, ErrorCode.REPORT_MALFORMED, "report.json")


@pytest.mark.parametrize("key", ["case_id", "reported_at"])
def test_missing_required_field(tmp_path: Path, key: str) -> None:
    assert_rejected(tmp_path, with_(**{key: _ABSENT}), ErrorCode.REPORT_MISSING_FIELD, key)


@pytest.mark.parametrize(
    ("key", "value"),
    [("title", 42), ("body", ["text"]), ("reporter", True), ("case_id", 20), ("attachments", {})],
)
def test_wrong_typed_field(tmp_path: Path, key: str, value: Any) -> None:
    assert_rejected(tmp_path, with_(**{key: value}), ErrorCode.REPORT_INVALID_FIELD, key)


def test_unknown_top_level_keys_are_named(tmp_path: Path) -> None:
    error = assert_rejected(
        tmp_path,
        with_(priority="high", zone="Dun Morogh"),
        ErrorCode.REPORT_INVALID_FIELD,
        "priority, zone",
    )
    assert error.detail["unknown_keys"] == ["priority", "zone"]


def test_unknown_attachment_key_is_named(tmp_path: Path) -> None:
    attachment = {"name": "q", "kind": "quest_text", "text": "x", "size": 3}
    assert_rejected(
        tmp_path,
        with_(attachments=[attachment]),
        ErrorCode.REPORT_INVALID_FIELD,
        "attachments[0].size",
    )


# -- title and body --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"title": _ABSENT, "body": _ABSENT},
        {"title": "", "body": None},
        {"title": " \n", "body": "\t"},
    ],
)
def test_missing_title_and_body(tmp_path: Path, changes: dict[str, Any]) -> None:
    assert_rejected(tmp_path, with_(**changes), ErrorCode.REPORT_EMPTY, "title/body")


@pytest.mark.parametrize("changes", [{"title": _ABSENT}, {"body": ""}, {"body": None}])
def test_one_of_title_and_body_may_be_missing(tmp_path: Path, changes: dict[str, Any]) -> None:
    admitted = admit_report(json.dumps(with_(**changes)).encode(), {})
    assert admitted.document.title or admitted.document.body


# -- encoding --------------------------------------------------------------------------------


def test_report_json_not_utf8(tmp_path: Path) -> None:
    data = json.dumps({**GOOD, "body": "Spatzenj\u00e4ger"}, ensure_ascii=False).encode("latin-1")
    error = assert_rejected(tmp_path, data, ErrorCode.REPORT_NOT_UTF8, "report.json")
    assert error.detail["byte_offset"] == data.index(b"\xe4")


def test_utf16_report_json_is_not_utf8(tmp_path: Path) -> None:
    # json.loads(bytes) would silently accept UTF-16; admission must not.
    assert_rejected(
        tmp_path, json.dumps(GOOD).encode("utf-16"), ErrorCode.REPORT_NOT_UTF8, "report.json"
    )


def test_lone_surrogate_escape_is_not_utf8(tmp_path: Path) -> None:
    data = json.dumps(GOOD).replace("Wild Wolpertinger missing", "bad \\ud800 text").encode()
    assert_rejected(tmp_path, data, ErrorCode.REPORT_NOT_UTF8, "title")


def test_a_leading_bom_is_accepted(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + json.dumps(GOOD).encode()
    admitted = admit_report(data, {})
    assert admitted.document.title == GOOD["title"]
    result = import_report(Workspace(tmp_path / "ws"), report_folder(tmp_path, data))
    assert result.created


def test_non_utf8_text_attachment_file_is_admitted_unreadable() -> None:
    attachment = {"name": "log", "kind": "chat_log", "file": "chat.txt"}
    data = json.dumps(with_(attachments=[attachment])).encode()
    admitted = admit_report(data, {"chat.txt": "Spatzenj\u00e4ger".encode("latin-1")})
    assert admitted.attachments[0].unreadable_reason == "not_utf8"


# -- sizes -----------------------------------------------------------------------------------


def test_oversized_report_json(tmp_path: Path) -> None:
    data = json.dumps(with_(body="x" * MAX_REPORT_JSON_BYTES)).encode()
    assert_rejected(tmp_path, data, ErrorCode.REPORT_TOO_LARGE, "report.json")


@pytest.mark.parametrize(("key", "limit"), [("title", MAX_TITLE_CHARS), ("body", MAX_BODY_CHARS)])
def test_overlong_title_and_body(tmp_path: Path, key: str, limit: int) -> None:
    admit_report(json.dumps(with_(**{key: "y" * limit})).encode(), {})  # at the limit: fine
    error = assert_rejected(
        tmp_path, with_(**{key: "y" * (limit + 1)}), ErrorCode.REPORT_TOO_LARGE, key
    )
    assert error.detail["limit"] == limit


def test_limit_counts_normalized_characters() -> None:
    # 300 decomposed "e + combining acute" pairs are 600 code points but 300 after NFC.
    admitted = admit_report(json.dumps(with_(title="e\u0301" * MAX_TITLE_CHARS)).encode(), {})
    assert admitted.document.title == "\u00e9" * MAX_TITLE_CHARS


def test_too_many_attachments(tmp_path: Path) -> None:
    attachments = [
        {"name": f"a{i}", "kind": "other", "text": "x"} for i in range(MAX_ATTACHMENTS + 1)
    ]
    assert_rejected(
        tmp_path, with_(attachments=attachments), ErrorCode.REPORT_TOO_LARGE, "attachments"
    )


def test_total_size_over_the_limit(tmp_path: Path) -> None:
    half = MAX_TOTAL_BYTES // 2
    attachments = [
        {"name": "one", "kind": "other", "file": "one.bin"},
        {"name": "two", "kind": "other", "file": "two.bin"},
    ]
    files = {"one.bin": b"\x00" * half, "two.bin": b"\x00" * half}
    assert_rejected(
        tmp_path,
        with_(attachments=attachments),
        ErrorCode.REPORT_TOO_LARGE,
        "attachments[1].file",
        files,
    )


def test_overlong_text_attachment_is_admitted_unreadable() -> None:
    attachment = {
        "name": "log",
        "kind": "server_log",
        "text": "z" * (MAX_ATTACHMENT_TEXT_CHARS + 1),
    }
    admitted = admit_report(json.dumps(with_(attachments=[attachment])).encode(), {})
    assert admitted.attachments[0].unreadable_reason == "too_long"


# -- control characters ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "codepoint"),
    [
        ("title", "bell \x07 here", "U+0007"),
        ("body", "nul \x00 byte", "U+0000"),
        ("body", "escape \x1b[31m red", "U+001B"),
        ("body", "delete \x7f", "U+007F"),
        ("body", "next line \x85 (C1)", "U+0085"),
        ("body", "vertical\x0btab", "U+000B"),
    ],
)
def test_control_characters_in_text(tmp_path: Path, key: str, value: str, codepoint: str) -> None:
    error = assert_rejected(
        tmp_path, with_(**{key: value}), ErrorCode.REPORT_CONTROL_CHARACTERS, key
    )
    assert codepoint in error.message


def test_raw_control_character_inside_a_json_string_names_the_field(tmp_path: Path) -> None:
    data = json.dumps(GOOD).replace("Wild Wolpertinger missing", "raw\x01char").encode()
    assert_rejected(tmp_path, data, ErrorCode.REPORT_CONTROL_CHARACTERS, "title")


def test_tab_and_newlines_are_allowed() -> None:
    admitted = admit_report(json.dumps(with_(body="a\tb\r\nc\rd\ne")).encode(), {})
    assert admitted.document.body == "a\tb\nc\nd\ne"


def test_control_characters_in_reporter(tmp_path: Path) -> None:
    assert_rejected(
        tmp_path, with_(reporter="Thalindra\nGM"), ErrorCode.REPORT_CONTROL_CHARACTERS, "reporter"
    )


def test_control_characters_in_inline_attachment(tmp_path: Path) -> None:
    attachment = {"name": "chat", "kind": "chat_log", "text": "[Party] hi\x1b[0m"}
    assert_rejected(
        tmp_path,
        with_(attachments=[attachment]),
        ErrorCode.REPORT_CONTROL_CHARACTERS,
        "attachments[0].text",
    )


def test_control_characters_in_attachment_file(tmp_path: Path) -> None:
    attachment = {"name": "chat", "kind": "chat_log", "file": "chat.txt"}
    assert_rejected(
        tmp_path,
        with_(attachments=[attachment]),
        ErrorCode.REPORT_CONTROL_CHARACTERS,
        "attachments[0].file",
        {"chat.txt": b"[Party] hi\x1b[0m\n"},
    )


# -- ids, timestamps, attachments ------------------------------------------------------------


@pytest.mark.parametrize("case_id", ["BUG|0001", "BUG,1", "../x", "", "-BUG", "a" * 65])
def test_invalid_case_id(tmp_path: Path, case_id: str) -> None:
    assert_rejected(tmp_path, with_(case_id=case_id), ErrorCode.INVALID_CASE_ID, "case_id")


def test_naive_timestamp_is_rejected_with_a_reason(tmp_path: Path) -> None:
    error = assert_rejected(
        tmp_path,
        with_(reported_at="2026-09-24T21:47:12"),
        ErrorCode.REPORT_INVALID_FIELD,
        "reported_at",
    )
    assert "timezone" in error.message and "relative dates" in error.message


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2026-09-24",
        "2026-02-30T10:00:00Z",
        "2026-09-24T25:00:00Z",
        "2026-09-24T10:00:00+24:00",
        "2026-09-24T10:00:60Z",
        "2026-09-24T10:00:00Z\n",
        "\u0662\u0660\u0662\u0666-09-24T10:00:00Z",
    ],
)
def test_invalid_timestamp(tmp_path: Path, value: str) -> None:
    assert_rejected(
        tmp_path, with_(reported_at=value), ErrorCode.REPORT_INVALID_FIELD, "reported_at"
    )


def test_duplicate_attachment_names(tmp_path: Path) -> None:
    attachments = [
        {"name": "Chat log", "kind": "chat_log", "text": "a"},
        {"name": "chat LOG", "kind": "other", "text": "b"},
    ]
    assert_rejected(
        tmp_path,
        with_(attachments=attachments),
        ErrorCode.REPORT_INVALID_FIELD,
        "attachments[1].name",
    )


def test_unknown_attachment_kind(tmp_path: Path) -> None:
    error = assert_rejected(
        tmp_path,
        with_(attachments=[{"name": "v", "kind": "video", "text": "x"}]),
        ErrorCode.REPORT_INVALID_FIELD,
        "attachments[0].kind",
    )
    assert "quest_text" in error.message  # lists the allowed kinds


@pytest.mark.parametrize(
    ("attachment", "code", "field"),
    [
        ({"name": "q", "kind": "other"}, ErrorCode.REPORT_MISSING_FIELD, "attachments[0].text"),
        ({"kind": "other", "text": "x"}, ErrorCode.REPORT_MISSING_FIELD, "attachments[0].name"),
        ({"name": "q", "text": "x"}, ErrorCode.REPORT_MISSING_FIELD, "attachments[0].kind"),
        (
            {"name": "q", "kind": "other", "text": "x", "file": "q.txt"},
            ErrorCode.REPORT_INVALID_FIELD,
            "attachments[0]",
        ),
        (
            {"name": "s", "kind": "screenshot", "text": "x"},
            ErrorCode.REPORT_INVALID_FIELD,
            "attachments[0].text",
        ),
        ("quest.txt", ErrorCode.REPORT_INVALID_FIELD, "attachments[0]"),
    ],
)
def test_malformed_attachment(tmp_path: Path, attachment: Any, code: ErrorCode, field: str) -> None:
    assert_rejected(tmp_path, with_(attachments=[attachment]), code, field, {"q.txt": b"x"})


def test_missing_attachment_file(tmp_path: Path) -> None:
    attachment = {"name": "quest", "kind": "quest_text", "file": "quest.txt"}
    error = assert_rejected(
        tmp_path,
        with_(attachments=[attachment]),
        ErrorCode.REPORT_UNREADABLE,
        "attachments[0].file",
    )
    assert "quest.txt" in error.message


def test_attachment_file_that_is_a_directory(tmp_path: Path) -> None:
    folder = report_folder(
        tmp_path, with_(attachments=[{"name": "d", "kind": "other", "file": "logs"}])
    )
    (folder / "logs").mkdir()
    assert_rejected(
        tmp_path, None, ErrorCode.REPORT_UNREADABLE, "attachments[0].file", folder=folder
    )


def test_invalid_package_id_writes_nothing(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    with pytest.raises(InputError) as caught:
        import_report(workspace, report_folder(tmp_path, GOOD), package_id="bad|id")
    assert caught.value.code is ErrorCode.INVALID_PACKAGE_ID
    assert not workspace.root.exists()


def test_missing_report_path(tmp_path: Path) -> None:
    assert_rejected(tmp_path, None, ErrorCode.REPORT_UNREADABLE, "report", folder=tmp_path / "nope")


def test_folder_without_report_json(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_rejected(tmp_path, None, ErrorCode.REPORT_UNREADABLE, "report.json", folder=empty)


# -- paths -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "file",
    [
        "/etc/passwd",
        "../outside.txt",
        "logs/../../outside.txt",
        "logs\\chat.txt",
        "C:/x.txt",
        ".hidden.txt",
        "logs/./chat.txt",
        "logs//chat.txt",
        "trailing.",
        "e\u0301.txt",
        "bidi\u202etxt.exe",
    ],
)
def test_attachment_path_escapes_and_non_portable_paths(tmp_path: Path, file: str) -> None:
    attachment = {"name": "f", "kind": "other", "file": file}
    assert_rejected(
        tmp_path,
        with_(attachments=[attachment]),
        ErrorCode.REPORT_INVALID_FIELD,
        "attachments[0].file",
    )


def test_symlink_escape_is_rejected(tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("not part of the report")
    folder = report_folder(
        tmp_path, with_(attachments=[{"name": "f", "kind": "other", "file": "link.txt"}])
    )
    os.symlink(secret, folder / "link.txt")
    error = assert_rejected(
        tmp_path, None, ErrorCode.REPORT_INVALID_FIELD, "attachments[0].file", folder=folder
    )
    assert "outside" in error.message


def test_symlinked_directory_escape_is_rejected(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "chat.txt").write_text("hello")
    folder = report_folder(
        tmp_path, with_(attachments=[{"name": "f", "kind": "other", "file": "logs/chat.txt"}])
    )
    os.symlink(outside, folder / "logs")
    assert_rejected(
        tmp_path, None, ErrorCode.REPORT_INVALID_FIELD, "attachments[0].file", folder=folder
    )


def test_symlink_inside_the_folder_is_followed(tmp_path: Path) -> None:
    folder = report_folder(
        tmp_path,
        with_(attachments=[{"name": "f", "kind": "chat_log", "file": "latest.txt"}]),
        {"logs/chat-0924.txt": b"[Party] hello\n"},
    )
    os.symlink(folder / "logs" / "chat-0924.txt", folder / "latest.txt")
    result = import_report(Workspace(tmp_path / "ws"), folder)
    package = Workspace(tmp_path / "ws").case(result.case_id)
    assert package.read_bytes("report/latest.txt") == b"[Party] hello\n"


def test_attachment_may_not_be_the_report_itself(tmp_path: Path) -> None:
    attachment = {"name": "me", "kind": "other", "file": "report.json"}
    assert_rejected(
        tmp_path,
        with_(attachments=[attachment]),
        ErrorCode.REPORT_INVALID_FIELD,
        "attachments[0].file",
    )


def test_long_user_values_are_shortened_in_messages(tmp_path: Path) -> None:
    error = assert_rejected(
        tmp_path,
        with_(reported_at="9" * 5000, attachments=[]),
        ErrorCode.REPORT_INVALID_FIELD,
        "reported_at",
    )
    assert len(error.message) < 300 and "…" in error.message
