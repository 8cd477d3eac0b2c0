"""The deterministic CaseBuilder: sources, normalization, format controls, unreadable sources."""

import hashlib
import json
import unicodedata
from typing import Any

import pytest

from vba_assets.domain.case.builder import Case, build_case
from vba_assets.domain.case.report import admit_report
from vba_assets.domain.case.report_fields import parse_reported_at
from vba_assets.domain.case.text import find_format_controls, span_has_format_control
from vba_assets.store import canonical_bytes

BASE: dict[str, Any] = {
    "case_id": "BUG-000200",
    "title": "Goldark Snipehunter quest",
    "body": "No Wild Wolpertinger anywhere.",
    "reported_at": "2026-09-24T21:47:12+02:00",
}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build(report: dict[str, Any], files: dict[str, bytes] | None = None) -> Case:
    return build_case(admit_report(json.dumps(report).encode("utf-8"), files or {}))


def test_case_fields_and_source_order() -> None:
    attachments = [
        {"name": "quest", "kind": "quest_text", "text": "Catch the Wild Wolpertinger!"},
        {"name": "chat", "kind": "chat_log", "file": "chat.txt"},
        {"name": "shot", "kind": "screenshot", "file": "shot.png"},
    ]
    case = build(
        {**BASE, "reporter": "Thalindra", "attachments": attachments},
        {"chat.txt": b"[Party] hi\n", "shot.png": b"\x89PNG\r\n"},
    )
    document = case.to_json()
    assert set(document) == {
        "schema_version",
        "case_id",
        "title",
        "reported_at",
        "reported_at_offset",
        "reporter",
        "sources",
        "report_sha256",
    }
    assert document["schema_version"] == 1 and document["reporter"] == "Thalindra"
    assert [(s.alias, s.kind, s.name) for s in case.sources] == [
        ("S1", "title", "title"),
        ("S2", "body", "body"),
        ("S3", "quest_text", "quest"),
        ("S4", "chat_log", "chat"),
        ("S5", "screenshot", "shot"),
    ]
    quest = case.source("S3")
    assert quest is not None and quest.text == attachments[0]["text"]
    assert case.source("S9") is None
    assert [s.alias for s in case.unreadable_sources] == ["S5"]


def test_absent_title_is_an_empty_readable_s1() -> None:
    case = build({key: value for key, value in BASE.items() if key != "title"})
    assert case.sources[0].alias == "S1" and case.sources[0].text == "" and case.sources[0].readable
    assert case.sources[0].sha256 == sha(b"") and case.sources[0].chars == 0
    assert case.sources[1].text == BASE["body"]


def test_nfc_and_newline_normalization() -> None:
    decomposed = unicodedata.normalize("NFD", "Goldark Spatzenjäger\r\nWilder Wolpertinger\rEnde")
    case = build(
        {
            **BASE,
            "body": decomposed,
            "attachments": [
                {"name": "log", "kind": "chat_log", "file": "log.txt"},
            ],
        },
        {"log.txt": decomposed.encode("utf-8")},
    )
    expected = "Goldark Spatzenjäger\nWilder Wolpertinger\nEnde"
    assert unicodedata.is_normalized("NFC", expected)
    for source in (case.sources[1], case.sources[2]):
        assert source.text == expected
        assert source.chars == len(expected)
        assert source.sha256 == sha(expected.encode("utf-8"))


def test_format_controls_are_kept_and_listed_at_normalized_offsets() -> None:
    body = "a\r\nb\u200bc \u202eevil\u202c \ufeffx \u061c \u2066y\u2069"
    case = build({**BASE, "body": body})
    source = case.sources[1]
    assert source.text == body.replace("\r\n", "\n")  # kept, not stripped
    listed = [(fc.offset, fc.codepoint) for fc in source.format_controls]
    assert listed == [
        (3, "U+200B"),
        (6, "U+202E"),
        (11, "U+202C"),
        (13, "U+FEFF"),
        (16, "U+061C"),
        (18, "U+2066"),
        (20, "U+2069"),
    ]
    assert all(source.text[offset] == chr(int(cp[2:], 16)) for offset, cp in listed)


def test_every_documented_format_control_is_detected() -> None:
    codepoints = [
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2065),
        *range(0x2066, 0x206A),
        0xFEFF,
        0x061C,
    ]
    text = "".join(f"x{chr(cp)}" for cp in codepoints)
    assert [hit.codepoint for hit in find_format_controls(text)] == codepoints
    assert find_format_controls("plain text, ä, 鹿角兔, ‧ and ·") == []


def test_span_check_for_grounding() -> None:
    text = "Wild\u200bWolpertinger"
    assert span_has_format_control(text, 0, len(text))
    assert not span_has_format_control(text, 5, len(text))
    assert not span_has_format_control(text, 0, 4)


def test_leading_bom_of_a_text_file_is_dropped_but_inner_bom_listed() -> None:
    attachments = [{"name": "q", "kind": "quest_text", "file": "q.txt"}]
    case = build({**BASE, "attachments": attachments}, {"q.txt": b"\xef\xbb\xbfA\xef\xbb\xbfB"})
    source = case.sources[2]
    assert source.text == "A\ufeffB"
    assert [(fc.offset, fc.codepoint) for fc in source.format_controls] == [(1, "U+FEFF")]


@pytest.mark.parametrize(
    ("kind", "data", "reason", "chars"),
    [
        ("screenshot", b"\x89PNG\r\n\x1a\n\x00\x00", "binary_kind", None),
        ("chat_log", "Spatzenjäger".encode("latin-1"), "not_utf8", None),
        ("chat_log", "chat in UTF-16".encode("utf-16-le"), "nul_bytes", None),
        ("server_log", b"w" * 100_001, "too_long", 100_001),
        ("server_log", b"\x1b[31m" + b"w" * 100_000, "too_long", 100_005),
    ],
)
def test_unreadable_attachments_are_admitted_and_listed(
    kind: str, data: bytes, reason: str, chars: int | None
) -> None:
    case = build(
        {**BASE, "attachments": [{"name": "a", "kind": kind, "file": "a.bin"}]}, {"a.bin": data}
    )
    source = case.sources[2]
    assert (source.readable, source.unreadable_reason, source.text) == (False, reason, None)
    assert source.sha256 == sha(data)  # of the raw bytes
    assert source.chars == chars and source.format_controls == []


def test_text_attachment_at_the_limit_is_readable() -> None:
    case = build(
        {**BASE, "attachments": [{"name": "a", "kind": "other", "file": "a.txt"}]},
        {"a.txt": b"w" * 100_000},
    )
    assert case.sources[2].readable and case.sources[2].chars == 100_000


@pytest.mark.parametrize(
    ("value", "utc", "offset"),
    [
        ("2026-09-24T21:47:12+02:00", "2026-09-24T19:47:12Z", "+02:00"),
        ("2026-09-24T21:47:12Z", "2026-09-24T21:47:12Z", "+00:00"),
        ("2026-09-24t21:47:12z", "2026-09-24T21:47:12Z", "+00:00"),
        ("2026-09-28T23:58:31.512+03:00", "2026-09-28T20:58:31.512Z", "+03:00"),
        ("2026-09-28T23:58:31.000000001-00:30", "2026-09-29T00:28:31.000000001Z", "-00:30"),
        ("2026-06-21T04:15+10:00", "2026-06-20T18:15:00Z", "+10:00"),
        ("2026-03-14 17:22:40-0500", "2026-03-14T22:22:40Z", "-05:00"),
        ("2026-12-31T23:30:00-01:00", "2027-01-01T00:30:00Z", "-01:00"),
    ],
)
def test_reported_at_is_normalized_to_utc(value: str, utc: str, offset: str) -> None:
    parsed = parse_reported_at(value)
    assert (parsed.utc, parsed.offset) == (utc, offset)
    case = build({**BASE, "reported_at": value})
    assert (case.reported_at, case.reported_at_offset) == (utc, offset)


def test_report_sha256_is_rfc8785_digest_of_the_raw_files() -> None:
    report = {**BASE, "attachments": [{"name": "c", "kind": "chat_log", "file": "c.txt"}]}
    raw = json.dumps(report).encode()
    admitted = admit_report(raw, {"c.txt": b"hello\r\n"})
    manifest = [["report.json", sha(raw)], ["c.txt", sha(b"hello\r\n")]]
    assert admitted.report_sha256 == sha(canonical_bytes(manifest))
    # The name of the submitted JSON file is not part of it ...
    assert admit_report(raw, {"c.txt": b"hello\r\n"}, "BUG-000200.json").report_sha256 == (
        admitted.report_sha256
    )
    # ... but every raw byte is, even one that normalization would hide.
    assert admit_report(raw, {"c.txt": b"hello\n"}).report_sha256 != admitted.report_sha256


def test_build_is_deterministic_and_round_trips() -> None:
    report = {
        **BASE,
        "body": "e\u0301\u200b",
        "attachments": [
            {"name": "ß-Log ✓", "kind": "other", "text": "𝔘nicode \U0001f43a"},
        ],
    }
    first = canonical_bytes(build(report).to_json())
    assert first == canonical_bytes(build(json.loads(json.dumps(report))).to_json())
    assert Case.model_validate(json.loads(first)) == build(report)


def test_case_json_holds_nothing_machine_specific() -> None:
    document = build(BASE).to_json()
    flat = json.dumps(document)
    for forbidden in ("package", "import", "/tmp", "path", "imported_at", "pkg-"):
        assert forbidden not in flat
